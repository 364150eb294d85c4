import { describe, expect, it } from "vitest";
import { canonicalJson, lineDiff } from "./diff";

describe("lineDiff", () => {
  it("marks added and removed lines around unchanged ones", () => {
    const diff = lineDiff("a\nb\nc", "a\nx\nc\nd");
    expect(diff).toEqual([
      { kind: "same", text: "a" },
      { kind: "removed", text: "b" },
      { kind: "added", text: "x" },
      { kind: "same", text: "c" },
      { kind: "added", text: "d" },
    ]);
  });

  it("shows no change for the same contract written in another key order", () => {
    const before = canonicalJson({ id: "project.x", argv: ["x", "-a"] });
    const after = canonicalJson({ argv: ["x", "-a"], id: "project.x" });
    expect(lineDiff(before, after).every((line) => line.kind === "same")).toBe(true);
  });
});
