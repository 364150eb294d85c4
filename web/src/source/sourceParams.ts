/**
 * A source workflow's parameters as a form: reading what a person typed
 * against the pipeline's own schema (type, choices, pattern, range) before
 * it is sent, mirroring the runtime's check of `set_param` on a source node.
 * The runtime checks again; its refusal is shown in the same place.
 */
import type { SourceParam } from "../api/sourceSchemas";
import type { ParamValue } from "../api/types";
import { MAX_STRING_PARAM_BYTES } from "../domain/params";
import type { FieldSpec } from "../inspector/fieldSpec";

export type ParsedSourceParam = { readonly ok: true; readonly value: ParamValue } | { readonly ok: false; readonly reason: string };

/** Formats where the value names a file or folder (the runtime checks those exist). */
const PATH_FORMATS = new Set(["file-path", "directory-path", "path"]);

/**
 * What a path must not hold: control characters and the glob and
 * interpolation characters Nextflow's staging would not keep literal (the
 * runtime's `IMPORT_PATH_FORBIDDEN`).
 */
const UNSTAGEABLE = /[\p{Cc}$*?[\]{}]/u;

export function isPathParam(param: SourceParam): boolean {
  return param.format !== null && PATH_FORMATS.has(param.format);
}

export function parseSourceParam(param: SourceParam, input: string | boolean): ParsedSourceParam {
  if (param.type === "boolean") {
    return typeof input === "boolean" ? { ok: true, value: input } : { ok: false, reason: "choose on or off" };
  }
  const text = String(input);
  let value: string | number;
  if (param.type === "string") {
    if (new TextEncoder().encode(text).byteLength > MAX_STRING_PARAM_BYTES) {
      return { ok: false, reason: `at most ${String(MAX_STRING_PARAM_BYTES)} bytes` };
    }
    if (text.includes("\0")) return { ok: false, reason: "cannot contain a NUL character" };
    const unstageable = isPathParam(param) ? UNSTAGEABLE.exec(text)?.[0] : undefined;
    if (unstageable !== undefined) {
      const shown = /\p{Cc}/u.test(unstageable) ? `the control character U+${unstageable.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}` : `\`${unstageable}\``;
      return { ok: false, reason: `the path holds ${shown}, which Nextflow would not stage literally` };
    }
    value = text;
  } else {
    const trimmed = text.trim();
    const number = trimmed === "" ? Number.NaN : Number(trimmed);
    if (!Number.isFinite(number)) return { ok: false, reason: "enter a number" };
    if (param.type === "integer" && !Number.isSafeInteger(number)) return { ok: false, reason: "enter a whole number" };
    value = number;
  }
  if (param.enum.length > 0 && !param.enum.some((choice) => choice === value)) {
    return { ok: false, reason: `choose one of ${param.enum.map(String).join(", ")}` };
  }
  if (typeof value === "number") {
    const range = rangeReason(param, value);
    if (range) return { ok: false, reason: range };
  }
  if (typeof value === "string" && param.pattern !== null) {
    const pattern = compile(param.pattern);
    // A pattern this browser cannot compile is left to the runtime's check.
    if (pattern && !pattern.test(value)) return { ok: false, reason: `must match ${param.pattern}` };
  }
  return { ok: true, value };
}

function rangeReason(param: SourceParam, n: number): string | undefined {
  const { minimum: min, maximum: max } = param;
  if ((min === null || n >= min) && (max === null || n <= max)) return undefined;
  if (min !== null && max !== null) return `must be between ${String(min)} and ${String(max)}`;
  return min !== null ? `must be at least ${String(min)}` : `must be at most ${String(max)}`;
}

const compiled = new Map<string, RegExp | null>();

/** JSON Schema's `pattern` is a search, not a whole-string match (nf-core anchors its own). */
function compile(pattern: string): RegExp | null {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    try {
      regex = new RegExp(pattern, "u");
    } catch {
      regex = null;
    }
    compiled.set(pattern, regex);
  }
  return regex;
}

/** The value as an editable string (booleans are edited with a switch). */
export function formatSourceValue(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** A schema parameter as the shared parameter control edits it: named as the pipeline names it, emptied to unset. */
export function sourceFieldSpec(param: SourceParam): FieldSpec {
  return {
    name: param.name,
    label: param.name,
    labelIsCode: true,
    control: param.type === "boolean" ? "switch" : param.enum.length > 0 ? "choice" : "text",
    choices: param.enum.map(formatSourceValue),
    defaultValue: param.default,
    required: param.required,
    isPath: isPathParam(param),
    numeric: param.type === "integer" ? "int" : param.type === "number" ? "float" : undefined,
    hint: describeSourceParam(param),
    pattern: param.pattern ?? undefined,
    help: param.description ?? undefined,
    resettable: true,
    resetVerb: "Unset",
    emptyUnsets: true,
    format: formatSourceValue,
    parse: (raw) => parseSourceParam(param, raw),
  };
}

/** One line saying what a field accepts: type, path kind, range, default. */
export function describeSourceParam(param: SourceParam): string {
  const parts: string[] = [];
  if (param.format === "file-path") parts.push("file path");
  else if (param.format === "directory-path") parts.push("folder path");
  else if (param.format === "path") parts.push("path");
  else if (param.format === "file-path-pattern") parts.push("file pattern");
  else parts.push(param.type === "boolean" ? "on / off" : param.type);
  const { minimum: min, maximum: max } = param;
  if (min !== null && max !== null) parts.push(`${String(min)} – ${String(max)}`);
  else if (min !== null) parts.push(`≥ ${String(min)}`);
  else if (max !== null) parts.push(`≤ ${String(max)}`);
  if (param.default !== null) parts.push(`default ${formatSourceValue(param.default)}`);
  else if (!param.required) parts.push("optional");
  return parts.join(" · ");
}

export interface ParamGroupView {
  readonly id: string | null;
  readonly title: string;
  readonly params: readonly SourceParam[];
}

/**
 * The parameters in the schema's order, by group (a group first seen
 * earlier stays earlier); hidden ones separately, as nf-core hides what a
 * run rarely needs.
 */
export function groupSourceParams(params: readonly SourceParam[]): { visible: ParamGroupView[]; hidden: SourceParam[] } {
  const groups = new Map<string | null, SourceParam[]>();
  const hidden: SourceParam[] = [];
  for (const param of params) {
    if (param.hidden && !param.required) {
      hidden.push(param);
      continue;
    }
    const list = groups.get(param.group) ?? [];
    list.push(param);
    groups.set(param.group, list);
  }
  const visible = [...groups].map(([id, list]) => ({ id, title: groupTitle(id), params: list }));
  return { visible, hidden };
}

/** `input_output_options` → `Input output options` (the pin keeps only the group id). */
export function groupTitle(id: string | null): string {
  if (id === null) return "Other parameters";
  const words = id.replace(/[_-]+/g, " ").trim();
  return words === "" ? id : words.charAt(0).toUpperCase() + words.slice(1);
}
