/**
 * A pinned pipeline on the canvas: what it is (repository, release or ref),
 * exactly which tree (short commit, tree digest), what it still misses, and
 * how many of its calls are replaced by catalog operators, and the way into
 * its outline. It has no ports: a source workflow is the whole graph.
 */
import type { NodeProps } from "@xyflow/react";
import { memo } from "react";
import { Badges, ReadyMark } from "../canvas/OperatorNode";
import type { SourceFlowNode } from "../canvas/flowModel";
import { useOpenOutline } from "./context";
import "./source.css";
import { sameData } from "../canvas/nodeProps";

export const SourceNode = memo(function SourceNode({ data }: NodeProps<SourceFlowNode>) {
  const { node, assessment } = data;
  const openOutline = useOpenOutline();
  const pin = node.source;
  if (!pin) return null;
  const version = pin.release ?? pin.git_ref ?? "";
  const replaced = node.replacements?.length ?? 0;
  return (
    <article className="op-node op-node--source source-node" aria-label={`${pin.repository} (${node.id})`} data-source-node={node.id}>
      <header className="op-node__header">
        <div className="op-node__heading">
          <span className="op-node__name">
            <ReadyMark assessment={assessment} />
            {pin.repository}
          </span>
          <span className="op-node__purpose">{pin.provider === "nf-core" ? "nf-core pipeline" : "GitHub pipeline"}</span>
        </div>
        <span className="op-node__id" title={`node id ${node.id} · ${node.operator_id}`}>
          {node.id}
        </span>
      </header>
      <dl className="source-node__pin">
        <dt>{pin.release !== null ? "Release" : "Ref"}</dt>
        <dd className="mono" data-pin="release">{version}</dd>
        <dt>Commit</dt>
        <dd className="mono" data-pin="commit" title={pin.commit}>
          {pin.commit.slice(0, 7)}
        </dd>
        <dt>Tree</dt>
        <dd className="mono" data-pin="tree" title={pin.tree_digest}>
          {pin.tree_digest.slice(7, 19)}
        </dd>
      </dl>
      <Badges assessment={assessment} />
      <p className="source-node__actions">
        <span className="muted">
          {pin.processes.length} {pin.processes.length === 1 ? "process" : "processes"} · {pin.params.length} parameters
          {replaced > 0 && <span data-replaced={replaced}> · {replaced} replaced</span>}
        </span>
        <button type="button" className="button button--small nodrag" onClick={() => { openOutline(node.id); }}>
          Open outline
        </button>
      </p>
    </article>
  );
}, sameData);
