/**
 * How components reach the workspace and the contract cache: one context,
 * created once in `main.tsx`, read through hooks that subscribe to exactly
 * the store they need.
 */
import { createContext, useContext, useSyncExternalStore } from "react";
import type { SomiteApi } from "../api/endpoints";
import type { DataApi } from "../data/dataApi";
import type { AgentState, AgentStore } from "../state/agent";
import type { ContractCache, ContractEntry } from "../state/contracts";
import type { Controls, ControlsState } from "../state/controls";
import type { ResourceState, ResourceStore } from "../state/resources";
import type { Workspace, WorkspaceState } from "../state/workspace";

export interface Services {
  readonly api: SomiteApi;
  readonly workspace: Workspace;
  readonly contracts: ContractCache;
  readonly controls: Controls;
  readonly agent: AgentStore;
  /** The public-data search of the Find data panel. */
  readonly data: DataApi;
  readonly resources: ResourceStore;
}

export const ServicesContext = createContext<Services | null>(null);

export function useServices(): Services {
  const services = useContext(ServicesContext);
  if (!services) throw new Error("useServices needs <ServicesContext.Provider>");
  return services;
}

export function useWorkspaceState(): WorkspaceState {
  const { workspace } = useServices();
  return useSyncExternalStore(workspace.subscribe, workspace.getState);
}

export function useContractEntries(): ReadonlyMap<string, ContractEntry> {
  const { contracts } = useServices();
  return useSyncExternalStore(contracts.subscribe, contracts.getEntries);
}

export function useControlsState(): ControlsState {
  const { controls } = useServices();
  return useSyncExternalStore(controls.subscribe, controls.getState);
}

export function useAgentState(): AgentState {
  const { agent } = useServices();
  return useSyncExternalStore(agent.subscribe, agent.getState);
}

export function useResourceState(): ResourceState {
  const { resources } = useServices();
  return useSyncExternalStore(resources.subscribe, resources.getState);
}
