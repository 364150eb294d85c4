import { describe, expect, it } from "vitest";
import type { Assessment, ReadinessItem } from "../api/types";
import { REV_A, REV_B } from "../testing/wire";
import type { GateInputs } from "./gating";
import { CONTROL_ACTIONS, gateControls } from "./gating";

const item = (patch: Partial<ReadinessItem>): ReadinessItem => ({
  id: "input:reads:r1",
  node_id: "reads",
  operator_id: "files.import_paired",
  field: "r1",
  title: "Choose R1 FASTQ path for reads",
  detail: "No file is chosen yet.",
  kind: "input",
  priority: 2,
  required: true,
  escalatable: false,
  resolutions: [],
  recipes: [],
  evidence: {},
  ...patch,
});

const pixi = item({ id: "toolchain:pixi", node_id: null, field: "pixi", title: "pixi is not available", kind: "toolchain", required: false });

const assessment = (patch: Partial<Assessment>): Assessment => ({
  graph_revision: REV_A,
  catalog_revision: REV_B,
  state: "ready",
  required_count: 0,
  counts: {},
  next_requirement: null,
  items: [],
  nodes: [],
  ...patch,
});

const inputs = (patch: Partial<GateInputs>): GateInputs => ({
  readiness: assessment({}),
  graphRevision: REV_A,
  recoveryRequired: null,
  busy: {},
  runActive: false,
  ...patch,
});

describe("gateControls", () => {
  it("enables every control on a ready graph", () => {
    const gates = gateControls(inputs({}));
    for (const action of CONTROL_ACTIONS) expect(gates[action]).toEqual({ enabled: true });
  });

  it("blocks every control while a required item is open, naming the next one", () => {
    const blocked = assessment({
      state: "needs_action",
      required_count: 2,
      next_requirement: "input:reads:r1",
      items: [item({}), item({ id: "input:reads:r2", title: "Choose R2 FASTQ path for reads" })],
    });
    const gates = gateControls(inputs({ readiness: blocked }));
    expect(gates.compile).toEqual({ enabled: false, reason: "Cannot compile: 2 requirements open; next: Choose R1 FASTQ path for reads" });
    expect(gates.validate.reason).toBe("Cannot validate: 2 requirements open; next: Choose R1 FASTQ path for reads");
    expect(gates.run.enabled).toBe(false);
    expect(gates.export.enabled).toBe(false);
  });

  it("blocks an empty graph, an unassessed one and one whose assessment is of an earlier edit", () => {
    expect(gateControls(inputs({ readiness: assessment({ state: "empty" }) })).run.reason).toBe(
      "Cannot run: the workflow is empty. Add an input and a tool from the catalog first",
    );
    expect(gateControls(inputs({ readiness: undefined })).compile).toEqual({ enabled: false, reason: "Assessing readiness…" });
    expect(gateControls(inputs({ graphRevision: REV_B })).export).toEqual({ enabled: false, reason: "Checking readiness of the latest edit…" });
  });

  it("blocks everything while the workflow must be rebound", () => {
    const gates = gateControls(inputs({ recoveryRequired: "the workflow file moved" }));
    expect(gates.compile.reason).toBe("Cannot compile: the workflow file moved. Rebind the workflow first");
  });

  it("lets a missing Pixi block nothing, but warns on run and validate", () => {
    const gates = gateControls(inputs({ readiness: assessment({ items: [pixi], counts: { toolchain: 1 } }) }));
    expect(gates.compile).toEqual({ enabled: true });
    expect(gates.export).toEqual({ enabled: true });
    expect(gates.run.enabled).toBe(true);
    expect(gates.run.warning).toContain("toolchain_missing");
    expect(gates.validate.warning).toContain("pixi is not available");
  });

  it("holds a control while its own work runs, and run and validate while a run is active", () => {
    const busy = gateControls(inputs({ busy: { compile: true } }));
    expect(busy.compile).toEqual({ enabled: false, reason: "Compiling…" });
    expect(busy.export.enabled).toBe(true);
    const running = gateControls(inputs({ runActive: true }));
    expect(running.run.enabled).toBe(false);
    expect(running.validate.reason).toContain("A run is in progress");
    expect(running.compile.enabled).toBe(true);
  });

  it("puts readiness before busy-ness in the reason only when nothing is under way", () => {
    const blocked = assessment({ state: "needs_action", required_count: 1, next_requirement: "input:reads:r1", items: [item({})] });
    expect(gateControls(inputs({ readiness: blocked, runActive: true })).run.reason).toBe(
      "Cannot run: 1 requirement open; next: Choose R1 FASTQ path for reads",
    );
  });
});
