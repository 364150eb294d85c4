import type { z } from "zod/mini";
import { ClientError } from "./errors";

/**
 * Checks `value` against `schema`, or throws a `ClientError` naming the
 * route and the first field that did not match — the message a person sees.
 */
export function validate<T>(schema: z.ZodMiniType<T>, value: unknown, route: string, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at \`${issue.path.join(".")}\`` : "";
  const reason = issue ? `: ${issue.message}` : "";
  throw new ClientError(route, "malformed", `${route} sent ${what} that does not match its contract${where}${reason}`);
}
