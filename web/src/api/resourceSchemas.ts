/**
 * Managed resources on the wire (docs/resources.md): reviewed providers, the
 * consent an install repeats, installed resources, install jobs (also the
 * payload of the feed's `resource` events) and the resolutions of a resource
 * requirement. Kept apart from `schemas.ts` so the area owns its contract.
 *
 * Sizes the publisher does not state exactly are `null` on the wire and stay
 * missing here: the page never fills in a figure the runtime did not give.
 */
import { z } from "zod/mini";
import { errorEnvelope } from "./schemas";

const count = z.int().check(z.nonnegative());
const digest = z.string().check(z.regex(/^blake3:[0-9a-f]{64}$/, "expected a blake3:<hex> digest"));
const finite = z.number().check(z.refine(Number.isFinite, "expected a finite number"));

export const checksum = z.object({
  algorithm: z.enum(["sha256"]),
  value: z.string().check(z.regex(/^[0-9a-f]+$/, "expected lower-case hex")),
});

export const provider = z.object({
  id: z.string().check(z.minLength(1)),
  profile: z.string(),
  title: z.string(),
  release: z.string(),
  url: z.string(),
  checksum: z.nullable(checksum),
  download_bytes: z.nullable(count),
  stored_bytes: z.nullable(count),
  memory_bytes: z.nullable(count),
  scientific_effect: z.string(),
  effect_digest: digest,
  recommended: z.boolean(),
  licence: z.string(),
  citation: z.string(),
  source: z.string(),
  test_only: z.boolean(),
  installable: z.boolean(),
  unverified_reason: z.nullable(z.string()),
});

export const installedResource = z.object({
  provider_id: z.string(),
  release: z.string(),
  profile: z.string(),
  reference: z.string().check(z.regex(/^somite-resource:[^@]+@.+$/, "expected somite-resource:<provider>@<release>")),
  path: z.string(),
  checksum,
  tree_digest: digest,
  stored_bytes: count,
  installed_at: z.string(),
  verified: z.boolean(),
});

export const jobState = z.enum(["queued", "downloading", "verifying", "extracting", "publishing", "installed", "failed", "cancelled"]);

export const jobStatus = z.object({
  provider_id: z.string(),
  release: z.string(),
  state: jobState,
  bytes_done: count,
  bytes_total: z.nullable(count),
  rate_bytes_per_sec: z.nullable(finite),
  eta_secs: z.nullable(count),
  resumed_from: count,
  partial_kept: z.nullable(z.boolean()),
  error: z.nullable(errorEnvelope),
});

export const resourceOverview = z.object({
  store_dir: z.string(),
  free_disk_bytes: z.nullable(count),
  memory_bytes: z.nullable(count),
  providers: z.array(provider),
  installed: z.array(installedResource),
  jobs: z.array(jobStatus),
});

export const resourceInspect = z.object({
  provider,
  installed: z.nullable(installedResource),
  job: z.nullable(jobStatus),
  partial_bytes: count,
});

export const resourceResolution = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("installed"),
    reference: z.string(),
    provider_id: z.string(),
    release: z.string(),
    title: z.string(),
    stored_bytes: count,
    scientific_effect: z.string(),
    memory_bytes: z.nullable(count),
  }),
  z.object({
    kind: z.literal("install"),
    provider,
    fits_disk: z.nullable(z.boolean()),
    fits_memory: z.nullable(z.boolean()),
    disk_left_after_bytes: z.nullable(z.int()),
  }),
  z.object({
    kind: z.literal("use_existing"),
    title: z.string(),
    required_files: z.array(z.string()),
  }),
  z.object({
    kind: z.literal("requirement"),
    title: z.string(),
  }),
]);

export const resolutions = z.object({
  profile: z.string(),
  free_disk_bytes: z.nullable(count),
  memory_bytes: z.nullable(count),
  resolutions: z.array(resourceResolution),
});

export const directoryCheck = z.object({
  path: z.string(),
  ok: z.boolean(),
  missing: z.array(z.string()),
});

export type Checksum = z.infer<typeof checksum>;
export type Provider = z.infer<typeof provider>;
export type InstalledResource = z.infer<typeof installedResource>;
export type JobState = z.infer<typeof jobState>;
export type JobStatus = z.infer<typeof jobStatus>;
export type ResourceOverview = z.infer<typeof resourceOverview>;
export type ResourceInspect = z.infer<typeof resourceInspect>;
export type ResourceResolution = z.infer<typeof resourceResolution>;
export type Resolutions = z.infer<typeof resolutions>;
export type DirectoryCheck = z.infer<typeof directoryCheck>;

/** What an install sends: the exact figures and effect digest the user was shown. */
export interface Consent {
  readonly download_bytes: number;
  readonly stored_bytes: number;
  readonly effect_digest: string;
}
