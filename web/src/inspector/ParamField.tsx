import { useEffect, useId, useRef, useState } from "react";
import { describeFailure } from "../api/errors";
import type { Operation, ParamValue } from "../api/types";
import { useServices } from "../shell/context";
import type { FieldSpec } from "./fieldSpec";

export interface ParamFieldProps {
  readonly nodeId: string;
  /** The parameter, from a catalog contract or a pipeline's schema (see fieldSpec.ts). */
  readonly field: FieldSpec;
  /** The value set on the node, if any (otherwise the default applies). */
  readonly value: ParamValue | undefined;
  /** Changes when the readiness panel asks for this field to be focused. */
  readonly focusRequest: number | undefined;
}

/**
 * One parameter, edited in place. The value is checked against what its
 * declaration allows (type, range, choices, pattern) before it is sent as
 * an ordinary `set_param` / `unset_param` transaction; the runtime's own
 * refusal, if any, is shown in the same place.
 */
export function ParamField({ nodeId, field, value, focusRequest }: ParamFieldProps) {
  const { workspace } = useServices();
  const id = useId();
  const input = useRef<HTMLInputElement & HTMLSelectElement>(null);
  const [draft, setDraft] = useState(field.format(value));
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

  const reset = () => send(`${field.resetVerb} ${field.label} on ${nodeId}`, { op: "unset_param", node_id: nodeId, param: field.name });

  const commit = async (raw: string | boolean) => {
    if (sending.current) return;
    if (field.emptyUnsets && raw === "") {
      if (value !== undefined) await reset();
      else setError(undefined);
      return;
    }
    const parsed = field.parse(raw);
    if (!parsed.ok) {
      setError({ title: parsed.reason });
      return;
    }
    if (parsed.value === value) {
      setError(undefined);
      return;
    }
    await send(`Set ${field.label} on ${nodeId}`, { op: "set_param", node_id: nodeId, param: field.name, value: parsed.value });
  };

  const describedBy = [`${id}-hint`, error && `${id}-error`, field.help && `${id}-help`].filter(Boolean).join(" ");
  const common = {
    id,
    name: field.name,
    "aria-describedby": describedBy,
    "aria-invalid": error ? true : undefined,
    "aria-busy": saving || undefined,
    "aria-required": field.required || undefined,
  } as const;
  const fallback = field.format(field.defaultValue);

  return (
    <div className={`field${error ? " field--invalid" : ""}${field.isPath ? " field--file" : ""}`} data-param={field.name}>
      <div className="field__label-row">
        <label htmlFor={id} className={`field__label${field.labelIsCode ? " mono" : ""}`}>
          {field.label}
          {field.required && <span className="field__required" aria-label="required">*</span>}
        </label>
        {value !== undefined && field.resettable && (
          <button type="button" className="link-button" onClick={() => void reset()} disabled={saving}>
            Reset
          </button>
        )}
      </div>
      {field.control === "switch" ? (
        <label className="switch">
          <input
            {...common}
            ref={input}
            type="checkbox"
            role="switch"
            checked={value === undefined ? field.defaultValue === true : value === true}
            onChange={(e) => void commit(e.target.checked)}
          />
          <span className="switch__track" aria-hidden="true" />
          <span className="switch__text">{(value ?? field.defaultValue) === true ? "On" : "Off"}</span>
        </label>
      ) : field.control === "choice" ? (
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
          {value === undefined && (field.defaultValue === undefined || field.defaultValue === null) && (
            <option value="" disabled>
              Choose…
            </option>
          )}
          {field.choices.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          ref={input}
          className={`input${field.isPath ? " input--mono" : ""}`}
          type="text"
          inputMode={field.numeric === "int" ? "numeric" : field.numeric === "float" ? "decimal" : undefined}
          spellCheck={false}
          autoComplete="off"
          value={draft}
          placeholder={field.isPath ? "path relative to the project folder" : fallback || undefined}
          onChange={(e) => {
            setDraft(e.target.value);
            setError(undefined);
          }}
          onBlur={() => {
            if (draft !== field.format(value)) void commit(draft);
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter") void commit(draft);
            if (e.key === "Escape") {
              setDraft(field.format(value));
              setError(undefined);
            }
          }}
        />
      )}
      <p id={`${id}-hint`} className="field__hint">
        {field.hint}
        {field.pattern && <span className="mono"> · {field.pattern}</span>}
      </p>
      {error && (
        <p id={`${id}-error`} className="field__error" role="alert">
          {error.title}
          {error.detail && <span className="field__error-detail"> {error.detail}</span>}
        </p>
      )}
      {field.help && (
        <p id={`${id}-help`} className="field__help">
          {field.help}
        </p>
      )}
    </div>
  );
}
