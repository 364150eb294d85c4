/**
 * One workflow block of a pipeline's outline as a read-only graph: its
 * `take:` inputs and the `params.*` it reads on the left, its calls
 * (processes, subworkflows, functions) laid out by how channels flow
 * between them, its `emit:` outputs on the right, and the constructs the
 * outline kept opaque with where they are written.
 *
 * Channels come from the outline's static sources: `NAME.out…` of an
 * earlier call, a `take:` name or `params.NAME`. A name called twice
 * (aliases aside, Nextflow allows it for functions) is read as the latest
 * call before the one that uses it. Pure: the nested canvas draws the result.
 */
import type { ChannelSource, Outline, OutlineWorkflow } from "../api/sourceSchemas";

export type OutlineNodeKind = "take" | "param" | "process" | "workflow" | "function" | "unresolved" | "emit" | "opaque";

export interface OutlineNode {
  readonly id: string;
  readonly kind: OutlineNodeKind;
  readonly label: string;
  /** `file:line` where it is written, when the outline says. */
  readonly location?: string | undefined;
  /** What the node stands for in more words (an opaque step's excerpt, a call's target). */
  readonly detail?: string | undefined;
  /** The declared name a call resolves to (the call's own name may be an alias). */
  readonly declared?: string | undefined;
  /** The subworkflow a workflow call opens into. */
  readonly opens?: WorkflowKey | undefined;
  readonly x: number;
  readonly y: number;
}

export interface OutlineEdge {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  /** The channel, e.g. `zip` of `FASTQC.out.zip`. */
  readonly label?: string | undefined;
}

export interface OutlineGraph {
  readonly nodes: readonly OutlineNode[];
  readonly edges: readonly OutlineEdge[];
}

/** A workflow block: `null` name for the entry workflow, plus the file it is declared in. */
export interface WorkflowKey {
  readonly name: string | null;
  readonly file: string;
}

export const COLUMN_WIDTH = 280;
export const ROW_HEIGHT = 96;

/** The entry workflow (`workflow { … }` of the entry script), else the first one. */
export function entryWorkflow(outline: Outline): OutlineWorkflow | undefined {
  return (
    outline.workflows.find((w) => w.name === null && w.location.file === outline.entry) ??
    outline.workflows.find((w) => w.name === null) ??
    outline.workflows[0]
  );
}

export function findWorkflow(outline: Outline, key: WorkflowKey): OutlineWorkflow | undefined {
  return (
    outline.workflows.find((w) => w.name === key.name && w.location.file === key.file) ??
    outline.workflows.find((w) => w.name === key.name)
  );
}

export function workflowKey(workflow: OutlineWorkflow): WorkflowKey {
  return { name: workflow.name, file: workflow.location.file };
}

export function workflowTitle(workflow: OutlineWorkflow): string {
  return workflow.name ?? "entry workflow";
}

export function outlineGraph(outline: Outline, workflow: OutlineWorkflow): OutlineGraph {
  const nodes: Omit<OutlineNode, "x" | "y">[] = [];
  const edges = new Map<string, OutlineEdge>();
  const at = (location: { file: string; line: number }) => `${location.file}:${String(location.line)}`;

  for (const take of workflow.takes) nodes.push({ id: `take:${take}`, kind: "take", label: take, detail: "take: input of this workflow" });
  const params = new Set<string>();
  const callIds: { name: string; id: string }[] = [];

  const sourceNode = (source: ChannelSource, before: number): { id: string; label?: string } | undefined => {
    switch (source.kind) {
      case "take":
        return workflow.takes.includes(source.name) ? { id: `take:${source.name}` } : undefined;
      case "param":
        if (!params.has(source.name)) {
          params.add(source.name);
          nodes.push({ id: `param:${source.name}`, kind: "param", label: `params.${source.name}`, detail: "pipeline parameter" });
        }
        return { id: `param:${source.name}` };
      case "output": {
        const earlier = callIds.slice(0, before).reverse().find((c) => c.name === source.call) ?? callIds.find((c) => c.name === source.call);
        return earlier ? { id: earlier.id, label: outputLabel(source.output) } : undefined;
      }
    }
  };
  const connect = (from: { id: string; label?: string | undefined } | undefined, to: string) => {
    if (!from || from.id === to) return;
    const id = `${from.id}->${to}${from.label ? `:${from.label}` : ""}`;
    edges.set(id, { id, source: from.id, target: to, label: from.label });
  };

  workflow.calls.forEach((call, index) => callIds.push({ name: call.name, id: `call:${String(index)}:${call.name}` }));
  workflow.calls.forEach((call, index) => {
    const id = `call:${String(index)}:${call.name}`;
    const target = call.target;
    const opens =
      target?.kind === "workflow" && outline.workflows.some((w) => w.name === target.name)
        ? { name: target.name, file: target.file }
        : undefined;
    nodes.push({
      id,
      kind: target ? target.kind : "unresolved",
      label: call.name,
      location: at(call.location),
      declared: target?.name,
      detail: target
        ? `${target.kind} ${target.name}${target.name === call.name ? "" : ` (as ${call.name})`} · ${target.file}`
        : "not declared in an included file (a Nextflow built-in or a plugin's)",
      opens,
    });
    for (const argument of call.arguments) for (const source of argument.sources) connect(sourceNode(source, index), id);
  });
  workflow.emits.forEach((emit, index) => {
    const id = `emit:${String(index)}`;
    nodes.push({ id, kind: "emit", label: emit.name ?? emit.text, location: at(emit.location), detail: `emit: ${emit.text}` });
    for (const source of emit.sources) connect(sourceNode(source, workflow.calls.length), id);
  });
  workflow.opaque.forEach((step, index) => {
    nodes.push({ id: `opaque:${String(index)}`, kind: "opaque", label: step.kind, location: at(step.location), detail: step.excerpt });
  });

  return { nodes: layout(nodes, [...edges.values()]), edges: [...edges.values()] };
}

function outputLabel(output: unknown): string | undefined {
  if (output === "all" || output === null || typeof output !== "object") return undefined;
  const selector = output as { emit?: unknown; index?: unknown };
  if (typeof selector.emit === "string") return selector.emit;
  if (typeof selector.index === "number") return `[${String(selector.index)}]`;
  return undefined;
}

/**
 * Columns by the longest channel path from an input (inputs in the first
 * column, emits after the last call), rows in declaration order.
 */
function layout(nodes: readonly Omit<OutlineNode, "x" | "y">[], edges: readonly OutlineEdge[]): OutlineNode[] {
  const incoming = new Map<string, string[]>();
  for (const edge of edges) incoming.set(edge.target, [...(incoming.get(edge.target) ?? []), edge.source]);
  const column = new Map<string, number>();
  // Declaration order is a topological order: sources are earlier calls,
  // takes or params; a cycle (not possible from the outline) stops at 0.
  const depth = (id: string, seen: Set<string>): number => {
    const known = column.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return 0;
    seen.add(id);
    const parents = incoming.get(id) ?? [];
    const value = parents.length === 0 ? 0 : Math.max(...parents.map((p) => depth(p, seen) + 1));
    column.set(id, value);
    return value;
  };
  const callColumns = nodes.filter((n) => n.kind !== "emit" && n.kind !== "opaque").map((n) => depth(n.id, new Set()));
  const lastColumn = Math.max(0, ...callColumns);
  for (const node of nodes) {
    if (node.kind === "emit") column.set(node.id, Math.max(lastColumn + 1, depth(node.id, new Set())));
    if (node.kind === "opaque") column.set(node.id, lastColumn + 1);
  }
  const rows = new Map<number, number>();
  return nodes.map((node) => {
    const x = column.get(node.id) ?? 0;
    const y = rows.get(x) ?? 0;
    rows.set(x, y + 1);
    return { ...node, x: x * COLUMN_WIDTH, y: y * ROW_HEIGHT };
  });
}
