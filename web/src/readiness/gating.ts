/**
 * Whether each control (compile, run, validate, export) may be used now, and
 * if not, why — in words a person can act on.
 *
 * The runtime's own gate (`Assessment::gate`) refuses an empty graph and any
 * graph with a required item open, for every one of the four actions, with
 * `workflow_not_ready`. The buttons mirror exactly that rule, so a disabled
 * button and the runtime's refusal always agree. Toolchain items (no Pixi)
 * are informational: they do not block compile or export (which need no
 * tool), and a run or validation started without Pixi fails at the runtime
 * with `toolchain_missing`, which the run panel shows with its recovery —
 * so those stay enabled, with the warning in their tooltip.
 */
import type { Assessment } from "../api/types";

export type ControlAction = "compile" | "run" | "validate" | "export";

export const CONTROL_ACTIONS: readonly ControlAction[] = ["compile", "run", "validate", "export"];

export interface Gate {
  readonly enabled: boolean;
  /** Why the control is disabled; set exactly when it is. */
  readonly reason?: string;
  /** Something that will make the action fail although it may be started. */
  readonly warning?: string;
}

export interface GateInputs {
  readonly readiness: Assessment | undefined;
  /** The graph revision on screen. */
  readonly graphRevision: string | undefined;
  readonly recoveryRequired: string | null;
  /** Controls whose own work is under way. */
  readonly busy: Readonly<Partial<Record<ControlAction, boolean>>>;
  /** A run or validation is being started or has not ended. */
  readonly runActive: boolean;
}

const VERBS: Readonly<Record<ControlAction, string>> = {
  compile: "compile",
  run: "run",
  validate: "validate",
  export: "export",
};

const BUSY: Readonly<Record<ControlAction, string>> = {
  compile: "Compiling…",
  run: "Starting the run…",
  validate: "Starting the validation…",
  export: "Exporting…",
};

export function gateControls(inputs: GateInputs): Readonly<Record<ControlAction, Gate>> {
  const readinessGate = readinessBlock(inputs);
  const toolchain = toolchainWarning(inputs.readiness);
  const gate = (action: ControlAction): Gate => {
    if (inputs.busy[action]) return { enabled: false, reason: BUSY[action] };
    const blocked = readinessGate?.(VERBS[action]);
    if (blocked) return { enabled: false, reason: blocked };
    if ((action === "run" || action === "validate") && inputs.runActive) {
      return { enabled: false, reason: "A run is in progress: wait for it to end, or cancel it" };
    }
    if ((action === "run" || action === "validate") && toolchain) return { enabled: true, warning: toolchain };
    return { enabled: true };
  };
  return { compile: gate("compile"), run: gate("run"), validate: gate("validate"), export: gate("export") };
}

/** The reason readiness blocks every action, as a function of the verb; undefined when nothing blocks. */
function readinessBlock(inputs: GateInputs): ((verb: string) => string) | undefined {
  const { readiness, graphRevision, recoveryRequired } = inputs;
  if (recoveryRequired) {
    return (verb) => `Cannot ${verb}: ${recoveryRequired}. Rebind the workflow first`;
  }
  if (!readiness) return () => "Assessing readiness…";
  if (readiness.graph_revision !== graphRevision) return () => "Checking readiness of the latest edit…";
  if (readiness.state === "empty") {
    return (verb) => `Cannot ${verb}: the workflow is empty. Add an input and a tool from the catalog first`;
  }
  const required = readiness.items.filter((i) => i.required);
  if (readiness.required_count > 0 || required.length > 0) {
    const count = Math.max(readiness.required_count, required.length);
    const next = readiness.items.find((i) => i.id === readiness.next_requirement) ?? required[0];
    const tail = next ? `; next: ${next.title}` : "";
    return (verb) =>
      `Cannot ${verb}: ${String(count)} requirement${count === 1 ? "" : "s"} open${tail}`;
  }
  return undefined;
}

function toolchainWarning(readiness: Assessment | undefined): string | undefined {
  const items = readiness?.items.filter((i) => i.kind === "toolchain") ?? [];
  if (items.length === 0) return undefined;
  return `${items.map((i) => i.title).join("; ")}: a launch will fail with toolchain_missing until it is installed`;
}
