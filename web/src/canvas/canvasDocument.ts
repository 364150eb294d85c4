import { createContext, useContext } from "react";
import type { WorkflowDocument } from "../api/types";
import type { Connection } from "@xyflow/react";
import { connectionRefusal } from "../domain/ports";
import { toAttempt } from "./handles";

/** The document the canvas shows, for components the library renders itself. */
export const CanvasDocumentContext = createContext<WorkflowDocument | null>(null);

export function useCanvasDocument(): WorkflowDocument | null {
  return useContext(CanvasDocumentContext);
}

/** Why `connection` may not be made on `document`, or undefined. */
export function refusalOf(document: WorkflowDocument, connection: Connection): string | undefined {
  const attempt = toAttempt(connection);
  return "refusal" in attempt ? attempt.refusal : connectionRefusal(document, attempt);
}
