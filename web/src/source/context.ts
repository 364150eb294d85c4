/**
 * How source-workflow components reach their routes and open a node's
 * outline, without threading them through every layer between the shell
 * and a canvas node.
 */
import { createContext, useContext } from "react";
import type { SourceApi } from "../api/sourceEndpoints";

export const SourceApiContext = createContext<SourceApi | null>(null);

export function useSourceApi(): SourceApi {
  const api = useContext(SourceApiContext);
  if (!api) throw new Error("useSourceApi needs <SourceApiContext.Provider>");
  return api;
}

/** Opens the read-only outline of a source node (the shell shows it over the canvas). */
export const OpenOutlineContext = createContext<(nodeId: string) => void>(() => undefined);

export function useOpenOutline(): (nodeId: string) => void {
  return useContext(OpenOutlineContext);
}
