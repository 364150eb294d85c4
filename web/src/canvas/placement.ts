import type { WorkflowDocument } from "../api/types";
import { GRID } from "./edits";

/** Room a placed node is given: a typical operator card plus a margin. */
const FOOTPRINT = { width: 300, height: 190 };

/**
 * `spot` if nothing is there, else the nearest free place on rings of grid
 * steps around it, so a new node never lands on top of another (and hides
 * its handles).
 */
export function freeSpot(document: WorkflowDocument, spot: { x: number; y: number }): { x: number; y: number } {
  const occupied = [...document.nodes, ...document.notes];
  const free = (p: { x: number; y: number }) =>
    occupied.every((n) => Math.abs(n.x - p.x) >= FOOTPRINT.width || Math.abs(n.y - p.y) >= FOOTPRINT.height);
  const step = GRID * 3;
  for (let ring = 0; ring <= 24; ring++) {
    for (let dx = -ring; dx <= ring; dx++) {
      for (let dy = -ring; dy <= ring; dy++) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== ring) continue;
        const candidate = { x: spot.x + dx * step, y: spot.y + dy * step };
        if (free(candidate)) return candidate;
      }
    }
  }
  return spot;
}
