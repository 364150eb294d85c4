import { describe, expect, it } from "vitest";
import { installed, job, provider, resolutions, standard8 } from "../testing/resourceWire";
import { jobStatus, provider as providerSchema, resolutions as resolutionsSchema, resourceOverview } from "./resourceSchemas";

describe("resource schemas", () => {
  it("accept the runtime's overview, with unstated sizes left null", () => {
    const overview = resourceOverview.parse({
      store_dir: "/home/u/.local/share/somite/resources",
      free_disk_bytes: null,
      memory_bytes: 16_000_000_000,
      providers: [standard8, provider()],
      installed: [installed()],
      jobs: [job()],
    });
    expect(overview.providers[0]?.download_bytes).toBeNull();
    expect(overview.installed[0]?.reference).toBe("somite-resource:test_kraken2_tiny@test-1");
  });

  it("read each resolution kind by its tag", () => {
    const reply = resolutionsSchema.parse(resolutions());
    expect(reply.resolutions.map((r) => r.kind)).toEqual(["install", "install", "use_existing", "requirement"]);
    expect(resolutionsSchema.safeParse({ ...resolutions(), resolutions: [{ kind: "download_anyway" }] }).success).toBe(false);
  });

  it("refuse a provider whose effect digest or sizes break the contract", () => {
    expect(providerSchema.safeParse(provider({ effect_digest: "md5:abc" })).success).toBe(false);
    expect(providerSchema.safeParse({ ...provider(), download_bytes: -1 }).success).toBe(false);
    expect(providerSchema.safeParse({ ...provider(), stored_bytes: 1.5 }).success).toBe(false);
  });

  it("carry a failed job's error envelope", () => {
    const failed = jobStatus.parse(
      job({ state: "failed", error: { code: "checksum_mismatch", message: "The archive's checksum differs", recovery: "Nothing was published; try again." } }),
    );
    expect(failed.error?.code).toBe("checksum_mismatch");
    expect(jobStatus.safeParse({ ...job(), state: "paused" }).success).toBe(false);
    expect(jobStatus.safeParse({ ...job(), rate_bytes_per_sec: Number.POSITIVE_INFINITY }).success).toBe(false);
  });
});
