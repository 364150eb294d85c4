/**
 * What one parameter control needs to know about the parameter it edits,
 * whoever declares it: a catalog operator's contract or a pipeline's
 * `nextflow_schema.json` (`sourceFieldSpec` in source/sourceParams.ts).
 * `ParamField` draws and sends the same way for both; each adapter says how
 * its parameters are named, read, shown and reset.
 */
import type { ParamSpec } from "../api/types";
import type { ParsedParam } from "../domain/params";
import { formatParam, parseParam } from "../domain/params";

export interface FieldSpec {
  /** The parameter as the node's `params` key it is sent as. */
  readonly name: string;
  readonly label: string;
  /** The label is a name as code spells it (a pipeline's `--outdir`), shown monospaced. */
  readonly labelIsCode: boolean;
  readonly control: "switch" | "choice" | "text";
  /** The choices of a `choice` control, as shown and as `parse` reads them. */
  readonly choices: readonly string[];
  /** What applies when the node sets nothing (`undefined`/`null`: nothing). */
  readonly defaultValue: unknown;
  readonly required: boolean;
  /** The value names a file or folder (relative to the project). */
  readonly isPath: boolean;
  readonly numeric: "int" | "float" | undefined;
  /** One line saying what the field accepts. */
  readonly hint: string;
  /** A pattern the value must match, shown after the hint. */
  readonly pattern: string | undefined;
  readonly help: string | undefined;
  /** A set value may go back to the default (a required operator parameter may not). */
  readonly resettable: boolean;
  /** How going back is said in the edit's summary. */
  readonly resetVerb: "Reset" | "Unset";
  /** Clearing the text unsets the value rather than being read as one. */
  readonly emptyUnsets: boolean;
  format(value: unknown): string;
  parse(raw: string | boolean): ParsedParam;
}

/** A catalog operator's parameter (`isFile`: a local path the node imports). */
export function catalogFieldSpec(spec: ParamSpec, isFile: boolean): FieldSpec {
  return {
    name: spec.name,
    label: spec.label,
    labelIsCode: false,
    control: spec.type === "bool" ? "switch" : spec.choices ? "choice" : "text",
    choices: spec.choices ?? [],
    defaultValue: spec.default,
    required: spec.required,
    isPath: isFile,
    numeric: spec.type === "int" ? "int" : spec.type === "float" ? "float" : undefined,
    hint: describeRule(spec, isFile),
    pattern: undefined,
    help: spec.help,
    resettable: !spec.required,
    resetVerb: "Reset",
    emptyUnsets: false,
    format: (value) => formatParam(value as ParamSpec["default"] | null | undefined),
    parse: (raw) => parseParam(spec, raw),
  };
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
