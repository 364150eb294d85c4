import { describe, expect, it } from "vitest";
import { node } from "../testing/documents";
import { sameCompact, sameData, sameDataAndSelection } from "./nodeProps";

describe("node components skip renders that change nothing they draw", () => {
  const data = { signature: "a" };
  it("ignores the measured size and position the library passes along", () => {
    expect(sameData({ data, width: undefined, positionAbsoluteX: 0 } as { data: unknown }, { data, width: 280, positionAbsoluteX: 40 } as { data: unknown })).toBe(true);
  });

  it("renders again for new data", () => {
    expect(sameData({ data }, { data: { signature: "a" } })).toBe(false);
  });

  it("renders a note again when its selection changes", () => {
    expect(sameDataAndSelection({ data, selected: false }, { data, selected: false })).toBe(true);
    expect(sameDataAndSelection({ data, selected: false }, { data, selected: true })).toBe(false);
    expect(sameDataAndSelection({ data, selected: true }, { data: { signature: "a" }, selected: true })).toBe(false);
  });
});

describe("a zoomed-out operator draws from its node, title, kind and connected inputs only", () => {
  const qc = node("qc", "qc.fastqc");
  const compact = { node: qc, title: "FastQC", kind: "external", connectedInputs: ["reads"] };

  it("stays as it is when the canvas is rebuilt around it (a fresh but equal list of inputs)", () => {
    expect(sameCompact(compact, { ...compact, connectedInputs: ["reads"] })).toBe(true);
  });

  it("draws again for anything it shows", () => {
    expect(sameCompact(compact, { ...compact, node: { ...qc } })).toBe(false);
    expect(sameCompact(compact, { ...compact, title: undefined })).toBe(false);
    expect(sameCompact(compact, { ...compact, kind: "inprocess" })).toBe(false);
    expect(sameCompact(compact, { ...compact, connectedInputs: [] })).toBe(false);
    expect(sameCompact(compact, { ...compact, connectedInputs: ["other"] })).toBe(false);
  });
});
