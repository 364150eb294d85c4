/**
 * A source-workflow refusal as shown in place: the runtime's code, message
 * and recovery, plus what its details add for a person — when a rate-limited
 * provider allows requests again.
 */
import { ApiError } from "../api/errors";
import type { Failure } from "../state/controls";
import { toFailure } from "../state/controls";

export function sourceFailure(error: unknown): Failure {
  const failure = toFailure(error);
  const resetAt = error instanceof ApiError && error.code === "rate_limited" ? error.details?.reset_at : undefined;
  if (typeof resetAt !== "string") return failure;
  const when = new Date(resetAt);
  const shown = Number.isNaN(when.getTime()) ? resetAt : when.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
  return { ...failure, detail: [failure.detail, `The provider allows requests again at ${shown}.`].filter(Boolean).join(" ") };
}
