import { describe, expect, it } from "vitest";
import { job, provider, resolutions, standard8 } from "../testing/resourceWire";
import type { InstallResolution } from "./offer";
import { consentFor, formatEta, formatSignedBytes, offerFor, progressText } from "./offer";

const install = (patch: Partial<InstallResolution> = {}): InstallResolution => ({
  kind: "install",
  provider: provider(),
  fits_disk: true,
  fits_memory: true,
  disk_left_after_bytes: 76_544,
  ...patch,
});

describe("install offers", () => {
  it("show the runtime's figures and send exactly those as consent", () => {
    const result = offerFor(install(), resolutions());
    if (!result.ok) throw new Error(result.reason);
    const { offer } = result;
    expect(offer).toMatchObject({
      downloadBytes: 12_345,
      storedBytes: 23_456,
      freeDiskBytes: 100_000,
      diskLeftAfterBytes: 76_544,
      memoryNeededBytes: 1_000_000,
      machineMemoryBytes: 16_000_000_000,
      fitsDisk: true,
      fitsMemory: true,
    });
    expect(consentFor(offer)).toEqual({ download_bytes: 12_345, stored_bytes: 23_456, effect_digest: provider().effect_digest });
  });

  it("refuse a provider without citable checksum or sizes, with the runtime's reason", () => {
    const result = offerFor(install({ provider: standard8 }), resolutions());
    expect(result).toEqual({ ok: false, reason: standard8.unverified_reason });
    // Even if it were called installable, missing sizes leave nothing to consent to.
    expect(offerFor(install({ provider: provider({ stored_bytes: null }) }), resolutions()).ok).toBe(false);
  });

  it("keep unknown machine facts unknown rather than zero", () => {
    const result = offerFor(install({ fits_disk: null, disk_left_after_bytes: null }), { free_disk_bytes: null, memory_bytes: null });
    if (!result.ok) throw new Error(result.reason);
    expect(result.offer.freeDiskBytes).toBeUndefined();
    expect(result.offer.diskLeftAfterBytes).toBeUndefined();
    expect(result.offer.fitsDisk).toBeUndefined();
    expect(result.offer.machineMemoryBytes).toBeUndefined();
  });
});

describe("progress text", () => {
  it("says bytes, rate and time left while it runs", () => {
    expect(progressText(job({ bytes_done: 4_096, bytes_total: 12_345, rate_bytes_per_sec: 2_048, eta_secs: 4 }))).toBe(
      "4.1 kB of 12 kB · 2.0 kB/s · 4 s left",
    );
  });

  it("drops rate and time once finished and names a resume", () => {
    expect(progressText(job({ state: "cancelled", bytes_done: 6_000, resumed_from: 2_000 }))).toBe("6.0 kB of 12 kB · resumed from 2.0 kB");
    expect(progressText(job({ bytes_total: null, rate_bytes_per_sec: null, eta_secs: null }))).toBe("4.1 kB");
  });

  it("formats times and a shortfall for people", () => {
    expect(formatEta(59)).toBe("59 s");
    expect(formatEta(600)).toBe("10 min");
    expect(formatEta(3 * 3600 + 20 * 60)).toBe("3 h 20 min");
    expect(formatSignedBytes(-5_500_000_000)).toBe("−5.5 GB");
  });
});
