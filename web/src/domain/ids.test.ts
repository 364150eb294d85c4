import { describe, expect, it } from "vitest";
import { workflowNote } from "../api/schemas";
import { freshId } from "./ids";

describe("graph ids", () => {
  it("never makes `.` or `..`, which would name a folder outside a node's results", () => {
    for (const base of [".", "..", "/..", " . "]) {
      const id = freshId(base, new Set());
      expect(id).not.toMatch(/^\.{1,2}$/);
    }
    expect(freshId("qc.fastqc", new Set())).toBe("qc.fastqc");
  });

  it("refuses `.` and `..` from the runtime as it refuses any malformed id", () => {
    const note = (id: string) => ({ id, text: "t", x: 0, y: 0 });
    expect(workflowNote.safeParse(note("..")).success).toBe(false);
    expect(workflowNote.safeParse(note(".")).success).toBe(false);
    expect(workflowNote.safeParse(note("sample.1")).success).toBe(true);
  });
});
