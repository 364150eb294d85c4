/**
 * A custom agent command as the user types it: one argument per line, or a
 * JSON array of strings. Never a shell string — nothing here splits on
 * spaces or interprets quotes, so what is shown is exactly what runs.
 */
import { MAX_ARGV_TOKEN_BYTES, MAX_ARGV_TOKENS } from "../api/limits";

export type ArgvParse =
  | { readonly ok: true; readonly argv: readonly string[]; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly error: string };

export function parseArgv(text: string): ArgvParse {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, error: "Give the agent's executable on the first line, then one argument per line." };
  let argv: string[];
  if (trimmed.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return { ok: false, error: "This starts like a JSON array but is not valid JSON." };
    }
    if (!Array.isArray(parsed) || !parsed.every((t): t is string => typeof t === "string")) {
      return { ok: false, error: "A JSON command must be an array of strings." };
    }
    argv = parsed;
  } else {
    argv = trimmed
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== "");
  }
  if (argv.length === 0 || argv[0] === "") return { ok: false, error: "The command has no executable." };
  if (argv.length > MAX_ARGV_TOKENS) return { ok: false, error: `At most ${String(MAX_ARGV_TOKENS)} arguments are accepted; this has ${String(argv.length)}.` };
  const encoder = new TextEncoder();
  for (const [index, token] of argv.entries()) {
    if (token.includes("\0")) return { ok: false, error: `Argument ${String(index + 1)} contains a NUL character.` };
    if (encoder.encode(token).byteLength > MAX_ARGV_TOKEN_BYTES) {
      return { ok: false, error: `Argument ${String(index + 1)} is longer than ${String(MAX_ARGV_TOKEN_BYTES)} bytes.` };
    }
  }
  const warnings = trimmed.startsWith("[")
    ? []
    : argv
        .map((token, index) => (/\s/.test(token) ? `Line ${String(index + 1)} contains a space, so it is one argument (“${token}”). Put each argument on its own line.` : undefined))
        .filter((w): w is string => w !== undefined);
  return { ok: true, argv, warnings };
}
