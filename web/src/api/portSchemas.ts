/**
 * The port contract a node pins, in its own module: the workflow document
 * (`schemas.ts`) and a source node's invocation replacements
 * (`sourceSchemas.ts`) both carry it, and `schemas.ts` already imports
 * `sourceSchemas.ts`, so neither of them can own it without an import cycle.
 */
import { z } from "zod/mini";

/** A port type name such as `FastqGz` (the documented set has 28). */
export const portType = z.string().check(z.regex(/^[A-Z][A-Za-z0-9]{0,31}$/, "expected a port type name"));
const count = z.int().check(z.nonnegative());

const resourceResolution = z.object({
  id: z.string(),
  label: z.string(),
  kind: z.enum(["use_existing", "download", "build"]),
  recommended: z._default(z.boolean(), false),
  download_bytes: z.optional(count),
  stored_bytes: z.optional(count),
  scientific_effect: z.optional(z.string()),
  source_url: z.optional(z.string()),
  version: z.optional(z.string()),
});

export const portSpec = z.object({
  name: z.string().check(z.minLength(1)),
  type: portType,
  union: z._default(z.array(portType), []),
  optional: z._default(z.boolean(), false),
  resource: z.optional(
    z.object({
      profile: z.string(),
      title: z.string(),
      detail: z.string(),
      resolutions: z._default(z.array(resourceResolution), []),
    }),
  ),
  resource_profile: z.optional(z.string()),
  stage_as: z.optional(z.string()),
  import_param: z.optional(z.string()),
});

export const ports = z.object({
  in: z._default(z.array(portSpec), []),
  out: z._default(z.array(portSpec), []),
});
