/**
 * Placing a search result's source recipe on the canvas. The runtime
 * returns the recipe's operations with node ids derived from the accession
 * and positions from (0, 0); the canvas may already hold those ids, or
 * nodes at those places. Placement renames colliding ids consistently
 * (nodes and the edges that name them) and shifts the recipe below what
 * is there, so the whole recipe still applies as ONE transaction: one
 * undoable edit, refused as a whole if the graph moved on.
 */
import type { DataRecipe } from "../api/dataSchemas";
import type { Operation } from "../api/types";

/** Vertical gap between what is on the canvas and a placed recipe. */
export const PLACEMENT_GAP = 160;

export interface CanvasExtent {
  /** Every node, edge and note id in use (one namespace). */
  readonly ids: ReadonlySet<string>;
  /** The lowest node's y, or undefined on an empty canvas. */
  readonly bottom: number | undefined;
}

/** A free id for `wanted`: itself, else `wanted_2`, `wanted_3`, ... */
function freeId(wanted: string, taken: Set<string>): string {
  let id = wanted;
  for (let n = 2; taken.has(id); n += 1) id = `${wanted}_${String(n)}`;
  taken.add(id);
  return id;
}

export function placeRecipe(recipe: DataRecipe, canvas: CanvasExtent): Operation[] {
  const taken = new Set(canvas.ids);
  const renamed = new Map<string, string>();
  for (const operation of recipe.operations) {
    if (operation.op === "add_operator") renamed.set(operation.node_id, freeId(operation.node_id, taken));
  }
  const dy = canvas.bottom === undefined ? 0 : canvas.bottom + PLACEMENT_GAP;
  const node = (id: string) => renamed.get(id) ?? id;
  return recipe.operations.map((operation): Operation => {
    if (operation.op === "add_operator") {
      return { ...operation, node_id: node(operation.node_id), y: operation.y + dy };
    }
    const from_node = node(operation.from_node);
    const to_node = node(operation.to_node);
    const edge_id =
      from_node === operation.from_node && to_node === operation.to_node
        ? freeId(operation.edge_id, taken)
        : freeId(`${from_node}_${operation.from_port}__${to_node}_${operation.to_port}`, taken);
    return { ...operation, edge_id, from_node, to_node };
  });
}
