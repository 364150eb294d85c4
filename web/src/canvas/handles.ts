/**
 * Handle ids on the canvas: `in:<port>` for an input, `out:<port>` for an
 * output. The prefix makes the direction part of the id, so a connection
 * can be checked even when the canvas library reports it the wrong way round.
 */
import type { Connection } from "@xyflow/react";
import type { ConnectionAttempt } from "../domain/ports";

export const inputHandle = (port: string) => `in:${port}`;
export const outputHandle = (port: string) => `out:${port}`;

function portOf(handle: string | null | undefined, prefix: "in:" | "out:"): string | undefined {
  return handle?.startsWith(prefix) ? handle.slice(prefix.length) : undefined;
}

/** The attempted edge, or why it is not an output-to-input connection at all. */
export function toAttempt(connection: Connection): ConnectionAttempt | { refusal: string } {
  const fromPort = portOf(connection.sourceHandle, "out:");
  const toPort = portOf(connection.targetHandle, "in:");
  if (fromPort === undefined || toPort === undefined) {
    return { refusal: "connect an output (right side) to an input (left side)" };
  }
  return { fromNode: connection.source, fromPort, toNode: connection.target, toPort };
}
