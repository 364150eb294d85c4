/**
 * The inspector of a source node: the pin (repository, release or ref,
 * commit, tree digest, Nextflow requirement), what it still needs, and a
 * parameters form generated from the pipeline's `nextflow_schema.json`.
 * Each value is checked against the schema before it is sent as an
 * ordinary `set_param` transaction; the runtime checks again and its
 * refusal is shown in the same place.
 */
import { useState } from "react";
import type { SourceParam, SourcePin } from "../api/sourceSchemas";
import type { Assessment, WorkflowNode } from "../api/types";
import { Needs } from "../inspector/Needs";
import { ParamField } from "../inspector/ParamField";
import { useOpenOutline } from "./context";
import { groupSourceParams, sourceFieldSpec } from "./sourceParams";
import "./source.css";

export interface SourceInspectorProps {
  readonly node: WorkflowNode;
  readonly pin: SourcePin;
  readonly readiness: Assessment | undefined;
  /** A field the readiness panel asked to focus, with a fresh number per request. */
  readonly focus: { readonly field: string; readonly request: number } | undefined;
  readonly onDelete: () => void;
}

export function SourceInspector({ node, pin, readiness, focus, onDelete }: SourceInspectorProps) {
  const openOutline = useOpenOutline();
  const [showHidden, setShowHidden] = useState(false);
  const open = readiness?.items.filter((i) => i.node_id === node.id && i.required) ?? [];
  const { visible, hidden } = groupSourceParams(pin.params);
  const hiddenShown = showHidden || hidden.some((p) => p.name === focus?.field || node.params[p.name] !== undefined);
  const field = (param: SourceParam) => (
    <ParamField
      key={`${param.name}:${JSON.stringify(node.params[param.name] ?? null)}`}
      nodeId={node.id}
      field={sourceFieldSpec(param)}
      value={node.params[param.name]}
      focusRequest={focus?.field === param.name ? focus.request : undefined}
    />
  );

  return (
    <>
      <section className="inspector__section inspector__head">
        <p className="inspector__eyebrow">{pin.provider === "nf-core" ? "nf-core pipeline" : "GitHub pipeline"} · pinned</p>
        <h2 className="inspector__title">{pin.repository}</h2>
        {pin.description && <p className="inspector__purpose">{pin.description}</p>}
        <dl className="facts">
          <dt>Node</dt>
          <dd className="mono">{node.id}</dd>
          <dt>{pin.release !== null ? "Release" : "Ref"}</dt>
          <dd className="mono">{pin.release ?? pin.git_ref}</dd>
          <dt>Commit</dt>
          <dd className="mono" title={pin.commit}>
            {pin.commit.slice(0, 12)}
          </dd>
          <dt>Tree</dt>
          <dd className="mono" title={pin.tree_digest}>
            {pin.tree_digest.slice(7, 19)}
          </dd>
          <dt>Entry</dt>
          <dd className="mono">{pin.entry}</dd>
          {pin.nextflow_version && (
            <>
              <dt>Nextflow</dt>
              <dd className="mono">{pin.nextflow_version}</dd>
            </>
          )}
        </dl>
        <button type="button" className="button" onClick={() => { openOutline(node.id); }}>
          Open outline
        </button>
      </section>

      <Needs items={open} />

      <section className="inspector__section" aria-label="Pipeline parameters">
        <h3 className="inspector__subtitle">Parameters</h3>
        {pin.params.length === 0 && <p className="muted">The pipeline declares no parameters in nextflow_schema.json.</p>}
        {visible.map((group) => (
          <fieldset key={group.id ?? ""} className="source-params__group">
            <legend className="source-params__legend">{group.title}</legend>
            <div className="fields">{group.params.map(field)}</div>
          </fieldset>
        ))}
        {hidden.length > 0 &&
          (hiddenShown ? (
            <fieldset className="source-params__group">
              <legend className="source-params__legend">Hidden parameters</legend>
              <div className="fields">{hidden.map(field)}</div>
            </fieldset>
          ) : (
            <button type="button" className="link-button" onClick={() => { setShowHidden(true); }}>
              Show {hidden.length} hidden parameters
            </button>
          ))}
      </section>

      <section className="inspector__section">
        <h3 className="inspector__subtitle">Processes</h3>
        <ul className="source-processes">
          {pin.processes.map((process) => (
            <li key={`${process.file}:${process.name}`}>
              <span className="mono">{process.name}</span>{" "}
              {process.environment ? (
                <span className="muted mono" title={process.environment}>
                  conda env
                </span>
              ) : (
                <span className="tag tag--archived">no environment</span>
              )}
            </li>
          ))}
        </ul>
      </section>

      <section className="inspector__section inspector__actions">
        <button type="button" className="button button--danger" onClick={onDelete}>
          Remove pipeline
        </button>
      </section>
    </>
  );
}
