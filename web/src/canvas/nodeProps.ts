/**
 * When a node component may skip a render. The library hands every node its
 * measured size, position and z-index as props, so a plain `memo` renders
 * all 500 nodes of a graph again the moment they are first measured (and
 * whenever the view moves them); these components draw only from their data
 * (and a note from whether it is selected), so a change to anything else
 * leaves what they draw as it is.
 */
import type { WorkflowNode } from "../api/types";

/** Whether a node that draws only from its data would draw the same. */
export function sameData(previous: { readonly data: unknown }, next: { readonly data: unknown }): boolean {
  return previous.data === next.data;
}

/** Whether a node that draws from its data and its selection would draw the same. */
export function sameDataAndSelection(
  previous: { readonly data: unknown; readonly selected: boolean },
  next: { readonly data: unknown; readonly selected: boolean },
): boolean {
  return previous.data === next.data && previous.selected === next.selected;
}

/** What a zoomed-out operator draws from (see `CompactOperator` in ./OperatorNode). */
export interface CompactProps {
  readonly node: WorkflowNode;
  readonly title: string | undefined;
  readonly kind: string | undefined;
  readonly connectedInputs: readonly string[];
}

/**
 * Whether a zoomed-out operator would draw the same: its readiness or run
 * state may have changed, which it does not draw, and its connected inputs
 * arrive as a fresh list every time the canvas is rebuilt.
 */
export function sameCompact(previous: CompactProps, next: CompactProps): boolean {
  return (
    previous.node === next.node &&
    previous.title === next.title &&
    previous.kind === next.kind &&
    previous.connectedInputs.length === next.connectedInputs.length &&
    previous.connectedInputs.every((port, index) => next.connectedInputs[index] === port)
  );
}
