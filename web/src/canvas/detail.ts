/**
 * Level of detail. Below {@link DETAIL_ZOOM} a node's text is a few pixels
 * tall and cannot be read, so an operator renders as its title and its port
 * handles only: a third of the elements to lay out, which is most of what a
 * fitted 500-node graph's first render costs.
 *
 * The library measures every node before it fits the view, at zoom 1, so at
 * first the zoom says nothing about what the fit will show. Until the fit,
 * the fit's zoom is estimated instead: from the nodes' positions and the
 * window, which is at least as large as the canvas pane, so the estimate is
 * never below the real fit's zoom, and a graph that will be shown in detail
 * is never measured compact.
 */
import { createContext } from "react";

/** The zoom below which operators render compact. */
export const DETAIL_ZOOM = 0.35;

/** Whether nodes show their full detail (see the module docs). */
export const NodeDetailContext = createContext(true);

/** An operator's width (`.op-node` in styles.css). */
const NODE_WIDTH = 280;
/** No operator is shorter than its header and one port row. */
const MIN_NODE_HEIGHT = 60;

interface Placed {
  readonly x: number;
  readonly y: number;
}

/**
 * Whether fitting `nodes` into a pane no larger than `pane`, with the
 * canvas's fit padding, could zoom to {@link DETAIL_ZOOM} or more.
 */
export function fitCouldShowDetail(
  nodes: readonly Placed[],
  pane: { readonly width: number; readonly height: number },
  padding: number,
): boolean {
  if (nodes.length === 0) return true;
  let [left, top, right, bottom] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const { x, y } of nodes) {
    left = Math.min(left, x);
    top = Math.min(top, y);
    right = Math.max(right, x + NODE_WIDTH);
    bottom = Math.max(bottom, y + MIN_NODE_HEIGHT);
  }
  const zoom = Math.min(
    pane.width / ((right - left) * (1 + padding)),
    pane.height / ((bottom - top) * (1 + padding)),
  );
  return zoom >= DETAIL_ZOOM;
}
