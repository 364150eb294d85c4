import { Handle, Position } from "@xyflow/react";
import type { NodeProps } from "@xyflow/react";
import type { CSSProperties } from "react";
import { memo, useContext } from "react";
import type { NodeAssessment, PortSpec } from "../api/types";
import { acceptedTypes } from "../domain/ports";
import { NodeDetailContext } from "./detail";
import { inputHandle, outputHandle } from "./handles";
import type { OperatorFlowNode } from "./flowModel";
import { familyColor } from "./portTypes";
import { splitTitle } from "./titles";
import type { CompactProps } from "./nodeProps";
import { sameCompact, sameData } from "./nodeProps";

/** One operator on the canvas: its title, readiness badges and typed ports. */
export const OperatorNode = memo(function OperatorNode({ data }: NodeProps<OperatorFlowNode>) {
  const detail = useContext(NodeDetailContext);
  const { node, label, connectedInputs } = data;
  if (!detail) {
    return <CompactOperator node={node} title={label?.title} kind={label?.kind} connectedInputs={connectedInputs} />;
  }
  return <DetailedOperator data={data} />;
}, sameData);

/**
 * Zoomed out (see ./detail): the title and the port handles. Readiness and
 * run states are not drawn here, so their arrival (for every node at once,
 * right after a large graph opens) leaves these nodes as they are.
 */
const CompactOperator = memo(function CompactOperator({ node, title, kind, connectedInputs }: CompactProps) {
  const { name } = splitTitle(title ?? node.operator_id);
  return (
    <article className={`op-node op-node--compact op-node--${kind ?? "unknown"}`} aria-label={`${name} (${node.id})`}>
      <header className="op-node__header">
        <span className="op-node__name">{name}</span>
      </header>
      <div className="op-node__ports">
        <ul className="port-list port-list--in" aria-label="Inputs">
          {node.ports.in.map((port) => (
            <PortRow key={port.name} port={port} direction="in" connected={connectedInputs.includes(port.name)} compact />
          ))}
        </ul>
        <ul className="port-list port-list--out" aria-label="Outputs">
          {node.ports.out.map((port) => (
            <PortRow key={port.name} port={port} direction="out" connected compact />
          ))}
        </ul>
      </div>
    </article>
  );
}, sameCompact);

function DetailedOperator({ data }: { readonly data: OperatorFlowNode["data"] }) {
  const { node, label, assessment, connectedInputs, runState } = data;
  const { name, purpose } = splitTitle(label?.title ?? node.operator_id);
  return (
    <article className={`op-node op-node--${label?.kind ?? "unknown"}`} aria-label={`${name} (${node.id})`}>
      <header className="op-node__header">
        <div className="op-node__heading">
          <span className="op-node__name">
            <ReadyMark assessment={assessment} />
            {name}
          </span>
          {purpose && <span className="op-node__purpose">{purpose}</span>}
        </div>
        <span className="op-node__id" title={`node id ${node.id} · ${node.operator_id}`}>
          {node.id}
        </span>
      </header>
      {runState && (
        <p className="op-node__run">
          <span className={`run-state run-state--${runState}`} data-run-state={runState} title={`In the run on screen: ${runState}`}>
            {runState}
          </span>
        </p>
      )}
      <Badges assessment={assessment} />
      <div className="op-node__ports">
        <ul className="port-list port-list--in" aria-label="Inputs">
          {node.ports.in.map((port) => (
            <PortRow key={port.name} port={port} direction="in" connected={connectedInputs.includes(port.name)} />
          ))}
        </ul>
        <ul className="port-list port-list--out" aria-label="Outputs">
          {node.ports.out.map((port) => (
            <PortRow key={port.name} port={port} direction="out" connected />
          ))}
        </ul>
      </div>
    </article>
  );
}

interface PortRowProps {
  readonly port: PortSpec;
  readonly direction: "in" | "out";
  readonly connected: boolean;
  /** Only the handle, where the edges attach (see ./detail). */
  readonly compact?: boolean;
}

function PortRow({ port, direction, connected, compact = false }: PortRowProps) {
  const style = { "--port-color": familyColor(port.type) } as CSSProperties;
  const types = direction === "in" ? acceptedTypes(port).join(" | ") : port.type;
  const resource = direction === "in" ? port.resource?.profile : port.resource_profile;
  const description = [
    `${direction === "in" ? "Input" : "Output"} ${port.name}: ${types}`,
    resource && `resource ${resource}`,
    port.optional && "optional",
  ]
    .filter(Boolean)
    .join(" · ");
  return (
    <li className={`port port--${direction}${connected ? " port--connected" : ""}`} style={style} title={description}>
      <Handle
        type={direction === "in" ? "target" : "source"}
        position={direction === "in" ? Position.Left : Position.Right}
        id={direction === "in" ? inputHandle(port.name) : outputHandle(port.name)}
        className="port__handle"
        aria-label={description}
      />
      {!compact && (
        <>
          <span className="port__name">
            {port.name}
            {port.optional && <span className="port__optional">?</span>}
          </span>
          <span className="port__type">{resource ?? port.type}</span>
        </>
      )}
    </li>
  );
}

/** The check before a node's name once it is ready to run. */
export function ReadyMark({ assessment }: { assessment: NodeAssessment | undefined }) {
  if (!assessment?.ready) return null;
  return (
    <svg viewBox="0 0 12 12" className="op-node__ready" role="img" aria-label="ready">
      <circle cx="6" cy="6" r="6" fill="currentColor" />
      <path d="M3.4 6.2l1.7 1.7 3.5-3.6" fill="none" stroke="var(--panel)" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

/** What a node still misses before it can run, as counted badges. */
export function Badges({ assessment }: { assessment: NodeAssessment | undefined }) {
  if (!assessment) return null;
  if (assessment.support === "unsupported_contract") {
    return <p className="op-node__badges"><span className="badge badge--danger">not in catalog</span></p>;
  }
  const { missing_inputs: inputs, missing_parameters: params, missing_resources: resources } = assessment.badges;
  if (assessment.ready) return null;
  return (
    <p className="op-node__badges" aria-label="Missing before this node can run">
      {inputs > 0 && <span className="badge badge--input">{plural(inputs, "input")}</span>}
      {params > 0 && <span className="badge badge--param">{plural(params, "parameter")}</span>}
      {resources > 0 && <span className="badge badge--resource">{plural(resources, "resource")}</span>}
    </p>
  );
}

function plural(n: number, noun: string): string {
  return `${String(n)} ${noun}${n === 1 ? "" : "s"}`;
}
