import { describe, expect, it } from "vitest";
import type { ReadinessItem, ReadinessResolution } from "../api/types";
import { actionFor, formatBytes } from "./resolutions";

const item: ReadinessItem = {
  id: "managed_resource:kraken:db",
  node_id: "kraken",
  operator_id: "class.kraken2",
  field: "db",
  title: "Provide Kraken2 database for kraken",
  detail: "",
  kind: "managed_resource",
  priority: 3,
  required: true,
  escalatable: true,
  resolutions: [],
  recipes: [],
  evidence: {},
};

const resolution = (r: Partial<ReadinessResolution>): ReadinessResolution => ({
  id: "r",
  kind: "connect",
  label: "",
  recommended: false,
  ...r,
});

describe("actionFor", () => {
  it("connects an existing output to the item's port", () => {
    expect(actionFor(item, resolution({ from_node: "db", from_port: "db" }))).toEqual({
      type: "connect",
      fromNode: "db",
      fromPort: "db",
      toNode: "kraken",
      toPort: "db",
    });
  });

  it("adds a providing operator when no output exists yet", () => {
    expect(actionFor(item, resolution({ operator_id: "files.import_kraken2_database" }))).toMatchObject({
      type: "add_and_connect",
      operatorId: "files.import_kraken2_database",
    });
  });

  it("focuses the field for configure and attach", () => {
    expect(actionFor({ ...item, field: "r1" }, resolution({ kind: "attach" }))).toEqual({ type: "focus", nodeId: "kraken", field: "r1" });
  });

  it("never acts on downloads, builds or setup — it only shows them", () => {
    for (const kind of ["download", "build", "use_existing", "setup", "review"] as const) {
      expect(actionFor(item, resolution({ kind, download_bytes: 5_500_000_000 }))).toEqual({ type: "details" });
    }
  });

  it("gives a pipeline step its container, asks for Conda packages, or replaces it", () => {
    const step: ReadinessItem = { ...item, id: "process_environment:source:DEEPVARIANT", kind: "process_environment", node_id: "source", field: "DEEPVARIANT" };
    expect(actionFor(step, resolution({ kind: "setup" }))).toEqual({ type: "container", nodeId: "source", process: "DEEPVARIANT" });
    expect(actionFor(step, resolution({ kind: "configure" }))).toEqual({ type: "conda", nodeId: "source", process: "DEEPVARIANT" });
    expect(actionFor(step, resolution({ kind: "build", operator_id: "var.deepvariant", value: "NFCORE:DEEPVARIANT" }))).toEqual({
      type: "replace",
      nodeId: "source",
      invocation: "NFCORE:DEEPVARIANT",
      operatorId: "var.deepvariant",
    });
  });

  it("pins a remote input and sets the one value a resolution names", () => {
    const remote: ReadinessItem = { ...item, kind: "remote_input", node_id: "source", field: "introns", required: false };
    expect(actionFor(remote, resolution({ kind: "download" }))).toEqual({ type: "pin", nodeId: "source", param: "introns" });
    const outdir: ReadinessItem = { ...item, kind: "input", node_id: "source", field: "outdir" };
    expect(actionFor(outdir, resolution({ kind: "configure", value: "results" }))).toEqual({
      type: "set",
      nodeId: "source",
      field: "outdir",
      value: "results",
    });
    // A resource download still only shows its details.
    expect(actionFor(item, resolution({ kind: "download" }))).toEqual({ type: "details" });
  });

  it("formats sizes for people", () => {
    expect(formatBytes(5_500_000_000)).toBe("5.5 GB");
    expect(formatBytes(88_000_000_000)).toBe("88 GB");
    expect(formatBytes(512)).toBe("512 B");
  });
});
