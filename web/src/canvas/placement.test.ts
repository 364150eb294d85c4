import { describe, expect, it } from "vitest";
import { emptyDocument, node } from "../testing/documents";
import { freeSpot } from "./placement";

describe("freeSpot", () => {
  it("keeps the requested spot on an empty canvas", () => {
    expect(freeSpot(emptyDocument(), { x: 96, y: 48 })).toEqual({ x: 96, y: 48 });
  });

  it("moves a new node off an existing one to the nearest free place", () => {
    const doc = { ...emptyDocument(), nodes: [node("reads", "files.import_fastq", 0, 0)] };
    const spot = freeSpot(doc, { x: 16, y: 16 });
    expect(Math.abs(spot.x) >= 300 || Math.abs(spot.y) >= 190).toBe(true);
    expect(Math.hypot(spot.x, spot.y)).toBeLessThan(400);
  });
});
