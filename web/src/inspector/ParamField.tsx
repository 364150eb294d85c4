import { useEffect, useId, useRef, useState } from "react";
import { describeFailure } from "../api/errors";
import type { Operation, ParamSpec, ParamValue } from "../api/types";
import { formatParam, parseParam } from "../domain/params";
import { useServices } from "../shell/context";

export interface ParamFieldProps {
  readonly nodeId: string;
  readonly spec: ParamSpec;
  /** The value set on the node, if any (otherwise the default applies). */
  readonly value: ParamValue | undefined;
  /** A local file path the node imports, rather than a tool parameter. */
  readonly isFile: boolean;
  /** Changes when the readiness panel asks for this field to be focused. */
  readonly focusRequest: number | undefined;
}

/**
 * One parameter, edited in place. The value is checked against the
 * contract's type, range and choices before it is sent; the runtime's own
 * refusal, if any, is shown in the same place.
 */
export function ParamField({ nodeId, spec, value, isFile, focusRequest }: ParamFieldProps) {
  const { workspace } = useServices();
  const id = useId();
  const input = useRef<HTMLInputElement & HTMLSelectElement>(null);
  const [draft, setDraft] = useState(formatParam(value));
  const [error, setError] = useState<{ title: string; detail?: string | undefined } | undefined>();
  const [saving, setSaving] = useState(false);
  // Enter and the blur that may follow it must not send the value twice.
  const sending = useRef(false);

  useEffect(() => {
    if (focusRequest === undefined) return;
    input.current?.focus();
    input.current?.scrollIntoView({ block: "nearest" });
  }, [focusRequest]);

  const commit = async (raw: string | boolean) => {
    if (sending.current) return;
    const parsed = parseParam(spec, raw);
    if (!parsed.ok) {
      setError({ title: parsed.reason });
      return;
    }
    if (parsed.value === value) {
      setError(undefined);
      return;
    }
    await send(`Set ${spec.label} on ${nodeId}`, { op: "set_param", node_id: nodeId, param: spec.name, value: parsed.value });
  };

  const send = async (summary: string, operation: Operation) => {
    sending.current = true;
    setSaving(true);
    const result = await workspace.edit(summary, [operation], { reportErrors: false });
    sending.current = false;
    setSaving(false);
    setError(result.ok ? undefined : describeFailure(result.error));
  };

  const reset = () => send(`Reset ${spec.label} on ${nodeId}`, { op: "unset_param", node_id: nodeId, param: spec.name });

  const hint = describeRule(spec, isFile);
  const describedBy = [`${id}-hint`, error && `${id}-error`, spec.help && `${id}-help`].filter(Boolean).join(" ");
  const common = {
    id,
    "aria-describedby": describedBy,
    "aria-invalid": error ? true : undefined,
    "aria-busy": saving || undefined,
  } as const;

  return (
    <div className={`field${error ? " field--invalid" : ""}${isFile ? " field--file" : ""}`} data-param={spec.name}>
      <div className="field__label-row">
        <label htmlFor={id} className="field__label">
          {spec.label}
          {spec.required && <span className="field__required" aria-label="required">*</span>}
        </label>
        {value !== undefined && !spec.required && (
          <button type="button" className="link-button" onClick={() => void reset()} disabled={saving}>
            Reset
          </button>
        )}
      </div>
      {spec.type === "bool" ? (
        <label className="switch">
          <input
            {...common}
            ref={input}
            type="checkbox"
            role="switch"
            checked={value === undefined ? spec.default === true : value === true}
            onChange={(e) => void commit(e.target.checked)}
          />
          <span className="switch__track" aria-hidden="true" />
          <span className="switch__text">{(value ?? spec.default) === true ? "On" : "Off"}</span>
        </label>
      ) : spec.choices ? (
        <select
          {...common}
          ref={input}
          className="input"
          value={draft === "" ? formatParam(spec.default) : draft}
          onChange={(e) => {
            setDraft(e.target.value);
            void commit(e.target.value);
          }}
        >
          {value === undefined && spec.default === undefined && (
            <option value="" disabled>
              Choose…
            </option>
          )}
          {spec.choices.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          ref={input}
          className={`input${isFile ? " input--mono" : ""}`}
          type="text"
          inputMode={spec.type === "int" ? "numeric" : spec.type === "float" ? "decimal" : undefined}
          spellCheck={false}
          autoComplete="off"
          value={draft}
          placeholder={isFile ? "path relative to the project folder" : formatParam(spec.default) || undefined}
          onChange={(e) => {
            setDraft(e.target.value);
            setError(undefined);
          }}
          onBlur={() => {
            if (draft !== formatParam(value)) void commit(draft);
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter") void commit(draft);
            if (e.key === "Escape") {
              setDraft(formatParam(value));
              setError(undefined);
            }
          }}
        />
      )}
      <p id={`${id}-hint`} className="field__hint">
        {hint}
      </p>
      {error && (
        <p id={`${id}-error`} className="field__error" role="alert">
          {error.title}
          {error.detail && <span className="field__error-detail"> {error.detail}</span>}
        </p>
      )}
      {spec.help && (
        <p id={`${id}-help`} className="field__help">
          {spec.help}
        </p>
      )}
    </div>
  );
}

function describeRule(spec: ParamSpec, isFile: boolean): string {
  if (isFile) return "local file path";
  const parts: string[] = [spec.type === "bool" ? "on / off" : spec.type];
  if (spec.min !== undefined && spec.max !== undefined) parts.push(`${String(spec.min)} – ${String(spec.max)}`);
  else if (spec.min !== undefined) parts.push(`≥ ${String(spec.min)}`);
  else if (spec.max !== undefined) parts.push(`≤ ${String(spec.max)}`);
  if (spec.default !== undefined) parts.push(`default ${formatParam(spec.default)}`);
  else if (!spec.required) parts.push("optional");
  return parts.join(" · ");
}
