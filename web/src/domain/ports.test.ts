import { describe, expect, it } from "vitest";
import type { WorkflowDocument } from "../api/types";
import { emptyDocument, node } from "../testing/documents";
import { connectionRefusal } from "./ports";

const doc: WorkflowDocument = {
  ...emptyDocument(),
  nodes: [
    node("reads", "files.import_fastq"),
    node("db", "files.import_kraken2_database"),
    node("trim", "qc.fastp"),
    node("qc", "qc.fastqc"),
    node("kraken", "class.kraken2"),
  ],
  edges: [{ id: "reads-trim", from_node: "reads", from_port: "reads", to_node: "trim", to_port: "r1" }],
};

const attempt = (fromNode: string, fromPort: string, toNode: string, toPort: string) =>
  connectionRefusal(doc, { fromNode, fromPort, toNode, toPort });

describe("connectionRefusal", () => {
  it("accepts an equal type and a type from the input's union", () => {
    expect(attempt("reads", "reads", "qc", "reads")).toBeUndefined();
    expect(attempt("trim", "trimmed_r1", "qc", "reads")).toBeUndefined();
  });

  it("names the accepted types when the type does not fit", () => {
    expect(attempt("trim", "report_json", "qc", "reads")).toBe("port `reads` accepts Fastq | FastqGz, not Json");
  });

  it("requires the resource profile a managed-resource input needs", () => {
    expect(attempt("db", "db", "kraken", "db")).toBeUndefined();
    const directory = { ...doc, nodes: [...doc.nodes, { ...node("dir", "files.import_kraken2_database"), ports: { in: [], out: [{ name: "out", type: "Directory", union: [], optional: false }] } }] };
    expect(connectionRefusal(directory, { fromNode: "dir", fromPort: "out", toNode: "kraken", toPort: "db" })).toBe(
      "port `db` needs a kraken2-database resource",
    );
  });

  it("refuses a second edge into one input, a self-loop and a cycle", () => {
    expect(attempt("reads", "reads", "trim", "r1")).toMatch(/already connected/);
    expect(attempt("trim", "trimmed_r1", "trim", "r1")).toMatch(/own input/);
    const chain = { ...doc, edges: [...doc.edges, { id: "trim-qc", from_node: "trim", from_port: "trimmed_r1", to_node: "qc", to_port: "reads" }] };
    const looped = { ...chain, nodes: chain.nodes.map((n) => (n.id === "trim" ? { ...n, ports: { ...n.ports, in: [...n.ports.in, { name: "extra", type: "Html", union: [], optional: true }] } } : n)) };
    expect(connectionRefusal(looped, { fromNode: "qc", fromPort: "report_html", toNode: "trim", toPort: "extra" })).toMatch(/cycle/);
  });
});
