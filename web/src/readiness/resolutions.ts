/**
 * What each kind of readiness resolution does when chosen. Only graph work
 * happens at once (connect, add a providing operator and connect it, set the
 * one value a resolution names, give a pipeline step its declared container
 * or a catalog replacement); choosing a file or a value focuses the inspector
 * field; a Conda specification is asked for in the panel. Pinning a remote
 * input is the one download a button starts, and only because the user
 * pressed it (the runtime digests what arrives). Other downloads, builds and
 * setup steps only show their details — nothing else fetches or installs.
 */
import type { ParamValue, ReadinessItem, ReadinessResolution } from "../api/types";

export type ResolutionAction =
  | { readonly type: "connect"; readonly fromNode: string; readonly fromPort: string; readonly toNode: string; readonly toPort: string }
  | { readonly type: "add_and_connect"; readonly operatorId: string; readonly toNode: string; readonly toPort: string }
  | { readonly type: "focus"; readonly nodeId: string; readonly field: string }
  | { readonly type: "set"; readonly nodeId: string; readonly field: string; readonly value: ParamValue }
  | { readonly type: "container"; readonly nodeId: string; readonly process: string }
  | { readonly type: "conda"; readonly nodeId: string; readonly process: string }
  | { readonly type: "replace"; readonly nodeId: string; readonly invocation: string; readonly operatorId: string }
  | { readonly type: "pin"; readonly nodeId: string; readonly param: string }
  | { readonly type: "details" };

export function actionFor(item: ReadinessItem, resolution: ReadinessResolution): ResolutionAction {
  const { node_id: nodeId, field } = item;
  if (nodeId && field && item.kind === "process_environment") {
    if (resolution.kind === "setup") return { type: "container", nodeId, process: field };
    if (resolution.kind === "configure") return { type: "conda", nodeId, process: field };
    if (resolution.kind === "build" && resolution.operator_id && typeof resolution.value === "string") {
      return { type: "replace", nodeId, invocation: resolution.value, operatorId: resolution.operator_id };
    }
  }
  if (nodeId && field && item.kind === "remote_input" && resolution.kind === "download") {
    return { type: "pin", nodeId, param: field };
  }
  if (nodeId && field && resolution.kind === "configure" && resolution.value !== undefined) {
    return { type: "set", nodeId, field, value: resolution.value };
  }
  switch (resolution.kind) {
    case "connect":
      if (nodeId && field && resolution.from_node && resolution.from_port) {
        return { type: "connect", fromNode: resolution.from_node, fromPort: resolution.from_port, toNode: nodeId, toPort: field };
      }
      if (nodeId && field && resolution.operator_id) {
        return { type: "add_and_connect", operatorId: resolution.operator_id, toNode: nodeId, toPort: field };
      }
      return { type: "details" };
    case "configure":
    case "attach":
      return nodeId && field ? { type: "focus", nodeId, field } : { type: "details" };
    case "use_existing":
    case "download":
    case "build":
    case "review":
    case "setup":
      return { type: "details" };
  }
}

/** The label of the button that performs the action. */
export function actionLabel(action: ResolutionAction, resolution: ReadinessResolution): string {
  switch (action.type) {
    case "connect":
      return `Connect ${action.fromNode}.${action.fromPort}`;
    case "add_and_connect":
      return `Add ${action.operatorId}`;
    case "focus":
      return resolution.kind === "attach" ? "Choose file" : "Set value";
    case "set":
      return `Use ${String(action.value)}`;
    case "container":
      return "Use its container";
    case "conda":
      return "Give Conda packages";
    case "replace":
      return `Replace with ${action.operatorId}`;
    case "pin":
      return "Pin a copy";
    case "details":
      return "Details";
  }
}

export function formatBytes(bytes: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value >= 10 || unit === 0 ? Math.round(value).toString() : value.toFixed(1)} ${units[unit] ?? "B"}`;
}
