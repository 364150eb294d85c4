import type { WorkflowDocument } from "../api/types";

/** The workflow as of one committed state: what history entries hold. */
export interface Snapshot {
  readonly document: WorkflowDocument;
  readonly stateRevision: string;
  readonly graphRevision: string;
}
