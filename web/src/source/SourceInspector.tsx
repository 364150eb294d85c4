/**
 * The inspector of a source node: the pin (repository, release or ref,
 * commit, tree digest, Nextflow requirement), what it still needs, and a
 * parameters form generated from the pipeline's `nextflow_schema.json`.
 * Each value is checked against the schema before it is sent as an
 * ordinary `set_param` transaction; the runtime checks again and its
 * refusal is shown in the same place.
 */
import { useEffect, useId, useRef, useState } from "react";
import { describeFailure } from "../api/errors";
import type { SourceParam, SourcePin } from "../api/sourceSchemas";
import type { Assessment, Operation, ParamValue, WorkflowNode } from "../api/types";
import { Why } from "../readiness/Why";
import { useServices } from "../shell/context";
import { useOpenOutline } from "./context";
import { describeSourceParam, formatSourceValue, groupSourceParams, isPathParam, parseSourceParam } from "./sourceParams";
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
    <SourceParamField
      key={`${param.name}:${JSON.stringify(node.params[param.name] ?? null)}`}
      nodeId={node.id}
      param={param}
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

      {open.length > 0 && (
        <section className="inspector__section" aria-label="Open requirements">
          <h3 className="inspector__subtitle">Needs</h3>
          <ul className="needs">
            {open.map((item) => (
              <li key={item.id} className={`need need--${item.kind}`}>
                {item.title}
                <Why evidence={item.evidence} />
              </li>
            ))}
          </ul>
        </section>
      )}

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

interface SourceParamFieldProps {
  readonly nodeId: string;
  readonly param: SourceParam;
  readonly value: ParamValue | undefined;
  readonly focusRequest: number | undefined;
}

/** One schema parameter, edited in place like a native node's. */
function SourceParamField({ nodeId, param, value, focusRequest }: SourceParamFieldProps) {
  const { workspace } = useServices();
  const id = useId();
  const input = useRef<HTMLInputElement & HTMLSelectElement>(null);
  const [draft, setDraft] = useState(formatSourceValue(value));
  const [error, setError] = useState<{ title: string; detail?: string | undefined } | undefined>();
  const [saving, setSaving] = useState(false);
  // Enter and the blur that may follow it must not send the value twice.
  const sending = useRef(false);

  useEffect(() => {
    if (focusRequest === undefined) return;
    input.current?.focus();
    input.current?.scrollIntoView({ block: "nearest" });
  }, [focusRequest]);

  const send = async (summary: string, operation: Operation) => {
    sending.current = true;
    setSaving(true);
    const result = await workspace.edit(summary, [operation], { reportErrors: false });
    sending.current = false;
    setSaving(false);
    setError(result.ok ? undefined : describeFailure(result.error));
  };

  const commit = async (raw: string | boolean) => {
    if (sending.current) return;
    if (raw === "" && value !== undefined) {
      await send(`Unset ${param.name} on ${nodeId}`, { op: "unset_param", node_id: nodeId, param: param.name });
      return;
    }
    if (raw === "") {
      setError(undefined);
      return;
    }
    const parsed = parseSourceParam(param, raw);
    if (!parsed.ok) {
      setError({ title: parsed.reason });
      return;
    }
    if (parsed.value === value) {
      setError(undefined);
      return;
    }
    await send(`Set ${param.name} on ${nodeId}`, { op: "set_param", node_id: nodeId, param: param.name, value: parsed.value });
  };

  const path = isPathParam(param);
  const describedBy = [`${id}-hint`, error && `${id}-error`, param.description && `${id}-help`].filter(Boolean).join(" ");
  const common = {
    id,
    name: param.name,
    "aria-describedby": describedBy,
    "aria-invalid": error ? true : undefined,
    "aria-busy": saving || undefined,
    "aria-required": param.required || undefined,
  } as const;
  const fallback = formatSourceValue(param.default);

  return (
    <div className={`field${error ? " field--invalid" : ""}${path ? " field--file" : ""}`} data-param={param.name}>
      <div className="field__label-row">
        <label htmlFor={id} className="field__label mono">
          {param.name}
          {param.required && <span className="field__required" aria-label="required">*</span>}
        </label>
        {value !== undefined && (
          <button
            type="button"
            className="link-button"
            disabled={saving}
            onClick={() => void send(`Unset ${param.name} on ${nodeId}`, { op: "unset_param", node_id: nodeId, param: param.name })}
          >
            Reset
          </button>
        )}
      </div>
      {param.type === "boolean" ? (
        <label className="switch">
          <input
            {...common}
            ref={input}
            type="checkbox"
            role="switch"
            checked={value === undefined ? param.default === true : value === true}
            onChange={(e) => void commit(e.target.checked)}
          />
          <span className="switch__track" aria-hidden="true" />
          <span className="switch__text">{(value ?? param.default) === true ? "On" : "Off"}</span>
        </label>
      ) : param.enum.length > 0 ? (
        <select
          {...common}
          ref={input}
          className="input"
          value={draft === "" ? fallback : draft}
          onChange={(e) => {
            setDraft(e.target.value);
            void commit(e.target.value);
          }}
        >
          {value === undefined && param.default === null && (
            <option value="" disabled>
              Choose…
            </option>
          )}
          {param.enum.map((choice) => (
            <option key={formatSourceValue(choice)} value={formatSourceValue(choice)}>
              {formatSourceValue(choice)}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          ref={input}
          className={`input${path ? " input--mono" : ""}`}
          type="text"
          inputMode={param.type === "integer" ? "numeric" : param.type === "number" ? "decimal" : undefined}
          spellCheck={false}
          autoComplete="off"
          value={draft}
          placeholder={path ? "path relative to the project folder" : fallback || undefined}
          onChange={(e) => {
            setDraft(e.target.value);
            setError(undefined);
          }}
          onBlur={() => {
            if (draft !== formatSourceValue(value)) void commit(draft);
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter") void commit(draft);
            if (e.key === "Escape") {
              setDraft(formatSourceValue(value));
              setError(undefined);
            }
          }}
        />
      )}
      <p id={`${id}-hint`} className="field__hint">
        {describeSourceParam(param)}
        {param.pattern && <span className="mono"> · {param.pattern}</span>}
      </p>
      {error && (
        <p id={`${id}-error`} className="field__error" role="alert">
          {error.title}
          {error.detail && <span className="field__error-detail"> {error.detail}</span>}
        </p>
      )}
      {param.description && (
        <p id={`${id}-help`} className="field__help">
          {param.description}
        </p>
      )}
    </div>
  );
}
