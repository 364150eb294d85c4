/** What is selected on the canvas: node and note ids, and edge ids. */
export interface Selection {
  readonly nodes: ReadonlySet<string>;
  readonly edges: ReadonlySet<string>;
}

export const EMPTY_SELECTION: Selection = { nodes: new Set(), edges: new Set() };

export function selectOnly(nodeId: string): Selection {
  return { nodes: new Set([nodeId]), edges: new Set() };
}

/** `set` with `id` added or removed, or `set` itself when nothing changes. */
export function toggled(set: ReadonlySet<string>, id: string, on: boolean): ReadonlySet<string> {
  if (set.has(id) === on) return set;
  const next = new Set(set);
  if (on) next.add(id);
  else next.delete(id);
  return next;
}
