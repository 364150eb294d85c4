/**
 * The two ways a call to the runtime fails.
 *
 * `ApiError` is the runtime's own structured refusal — `{code, message,
 * recovery, details?}` — which always says what to do next and is shown as
 * such. `ClientError` is everything the runtime did not say itself: the
 * network failed, the reply was too large, or its shape did not match the
 * contract. Both carry the route, so a message can name where it happened.
 */

export class ApiError extends Error {
  override readonly name = "ApiError";

  constructor(
    readonly route: string,
    readonly status: number,
    readonly code: string,
    message: string,
    readonly recovery: string,
    readonly details: Readonly<Record<string, unknown>> | undefined,
  ) {
    super(message);
  }

  /** The operation a transaction failure points at, when the runtime said. */
  get operationIndex(): number | undefined {
    const index = this.details?.operation_index;
    return typeof index === "number" ? index : undefined;
  }
}

export type ClientFailure = "network" | "timeout" | "too_large" | "malformed";

export class ClientError extends Error {
  override readonly name = "ClientError";

  constructor(
    readonly route: string,
    readonly failure: ClientFailure,
    message: string,
  ) {
    super(message);
  }
}

/** A one-line title and an optional hint for showing any failure to a person. */
export function describeFailure(error: unknown): { title: string; detail?: string } {
  if (error instanceof ApiError) {
    return { title: error.message, detail: error.recovery };
  }
  if (error instanceof ClientError) {
    return { title: error.message, detail: clientHint(error.failure) };
  }
  return { title: error instanceof Error ? error.message : String(error) };
}

function clientHint(failure: ClientFailure): string {
  switch (failure) {
    case "network":
    case "timeout":
      return "Check that `somite serve` is still running, then retry.";
    case "too_large":
    case "malformed":
      return "Nothing was applied. This Somite build and its runtime may not match; restart with scripts/start.";
  }
}
