/**
 * Reading a parameter value from what a person typed, with the contract's
 * type, range and choices checked before anything is sent. The runtime
 * checks again; its answer is shown the same way.
 */
import type { ParamValue } from "../api/types";

export interface ParamRule {
  readonly name: string;
  readonly type: "bool" | "int" | "float" | "string";
  readonly min?: number | undefined;
  readonly max?: number | undefined;
  readonly choices?: readonly string[] | undefined;
}

/** Bytes of one string parameter the runtime accepts. */
export const MAX_STRING_PARAM_BYTES = 4096;

export type ParsedParam = { readonly ok: true; readonly value: ParamValue } | { readonly ok: false; readonly reason: string };

export function parseParam(rule: ParamRule, input: string | boolean): ParsedParam {
  if (rule.type === "bool") {
    return typeof input === "boolean" ? { ok: true, value: input } : { ok: false, reason: "choose on or off" };
  }
  const text = String(input);
  if (rule.type === "string") {
    if (rule.choices && !rule.choices.includes(text)) {
      return { ok: false, reason: `choose one of ${rule.choices.join(", ")}` };
    }
    if (new TextEncoder().encode(text).byteLength > MAX_STRING_PARAM_BYTES) {
      return { ok: false, reason: `at most ${MAX_STRING_PARAM_BYTES} bytes` };
    }
    if (text.includes("\0")) return { ok: false, reason: "cannot contain a NUL character" };
    return { ok: true, value: text };
  }
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, reason: "enter a number" };
  const number = Number(trimmed);
  if (!Number.isFinite(number)) return { ok: false, reason: "enter a number" };
  if (rule.type === "int" && !Number.isSafeInteger(number)) return { ok: false, reason: "enter a whole number" };
  const range = rangeReason(rule, number);
  return range ? { ok: false, reason: range } : { ok: true, value: number };
}

function rangeReason(rule: ParamRule, n: number): string | undefined {
  const below = rule.min !== undefined && n < rule.min;
  const above = rule.max !== undefined && n > rule.max;
  if (!below && !above) return undefined;
  if (rule.min !== undefined && rule.max !== undefined) return `must be between ${rule.min} and ${rule.max}`;
  return rule.min !== undefined ? `must be at least ${rule.min}` : `must be at most ${String(rule.max)}`;
}

/** The value as an editable string (booleans are edited with a switch). */
export function formatParam(value: ParamValue | null | undefined): string {
  return value === null || value === undefined ? "" : String(value);
}
