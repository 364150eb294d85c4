/**
 * Fresh ids for what this tab creates. Node, edge and note ids share one
 * namespace and are read by people and agents alike, so they are short and
 * readable (`fastqc`, `fastqc-2`) rather than random; idempotency keys are
 * random, since each identifies exactly one intended edit.
 */
import type { WorkflowDocument } from "../api/types";

export function idsInUse(document: WorkflowDocument): Set<string> {
  return new Set([
    ...document.nodes.map((n) => n.id),
    ...document.edges.map((e) => e.id),
    ...document.notes.map((n) => n.id),
  ]);
}

/** `base`, or `base-2`, `base-3`, ... — the first not in `taken`; records it. */
export function freshId(base: string, taken: Set<string>): string {
  const stem = sanitize(base);
  let id = stem;
  for (let n = 2; taken.has(id); n++) id = `${stem}-${String(n)}`;
  taken.add(id);
  return id;
}

/** A node id from an operator id: `qc.fastqc` → `fastqc`. */
export function nodeIdBase(operatorId: string): string {
  return operatorId.split(".").pop() ?? operatorId;
}

export function edgeIdBase(fromNode: string, fromPort: string, toNode: string): string {
  return `${fromNode}.${fromPort}-to-${toNode}`;
}

function sanitize(text: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 100);
  // `.` and `..` are no ids: as folder names they leave a node's results.
  return cleaned === "" || cleaned === "." || cleaned === ".." ? "item" : cleaned;
}

/** A key matching `^[A-Za-z0-9_-]{8,128}$`, unique per intended edit. */
export function idempotencyKey(): string {
  return `web-${crypto.randomUUID()}`;
}
