import { describe, expect, test } from "vitest";
import { fitCouldShowDetail } from "./detail";

const pane = { width: 1600, height: 900 };

describe("fitCouldShowDetail", () => {
  test("an empty canvas and a handful of nodes are shown in detail", () => {
    expect(fitCouldShowDetail([], pane, 0.2)).toBe(true);
    const few = Array.from({ length: 6 }, (_, i) => ({ x: i * 320, y: (i % 2) * 200 }));
    expect(fitCouldShowDetail(few, pane, 0.2)).toBe(true);
  });

  test("500 nodes in 25 columns are too small to read once fitted", () => {
    const many = Array.from({ length: 500 }, (_, i) => ({ x: (i % 25) * 320, y: Math.floor(i / 25) * 200 }));
    expect(fitCouldShowDetail(many, pane, 0.2)).toBe(false);
  });

  test("a tall column is judged by its height, not its width", () => {
    const column = Array.from({ length: 40 }, (_, i) => ({ x: 0, y: i * 200 }));
    expect(fitCouldShowDetail(column, pane, 0.2)).toBe(false);
    expect(fitCouldShowDetail(column, { width: 1600, height: 8000 }, 0.2)).toBe(true);
  });
});
