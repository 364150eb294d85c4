/**
 * What an install asks of the user, as one value: the consent dialog shows
 * an `InstallOffer` and the consent it sends is taken from that same value,
 * so what is consented to is exactly what was shown — never figures read
 * again later, never a size the runtime did not give.
 *
 * An offer exists only for a provider the runtime calls installable (an
 * archive checksum and exact sizes cited from the publisher); anything else
 * is refused here with the runtime's own reason.
 */
import type { Consent, JobState, JobStatus, Provider, ResourceResolution } from "../api/resourceSchemas";
import { formatBytes } from "../readiness/resolutions";
import { jobIsActive } from "../state/resources";

export interface InstallOffer {
  readonly provider: Provider;
  readonly downloadBytes: number;
  readonly storedBytes: number;
  /** Free disk where the store lives, as the runtime measured it. */
  readonly freeDiskBytes: number | undefined;
  /** Free disk minus the stored size; negative when it does not fit. */
  readonly diskLeftAfterBytes: number | undefined;
  readonly memoryNeededBytes: number | undefined;
  /** This machine's memory, as the runtime measured it. */
  readonly machineMemoryBytes: number | undefined;
  readonly fitsDisk: boolean | undefined;
  readonly fitsMemory: boolean | undefined;
}

export type OfferResult = { readonly ok: true; readonly offer: InstallOffer } | { readonly ok: false; readonly reason: string };

/** An `install` resolution, with the runtime's own disk and memory verdicts. */
export type InstallResolution = Extract<ResourceResolution, { kind: "install" }>;

/** This machine as the runtime measured it, from the same reply. */
export interface MachineFacts {
  readonly free_disk_bytes: number | null;
  readonly memory_bytes: number | null;
}

export function offerFor(resolution: InstallResolution, machine: MachineFacts): OfferResult {
  const { provider } = resolution;
  const { download_bytes: downloadBytes, stored_bytes: storedBytes } = provider;
  if (!provider.installable || downloadBytes === null || storedBytes === null) {
    return { ok: false, reason: provider.unverified_reason ?? "The publisher's exact sizes or checksum are not recorded for this provider." };
  }
  return {
    ok: true,
    offer: {
      provider,
      downloadBytes,
      storedBytes,
      freeDiskBytes: machine.free_disk_bytes ?? undefined,
      diskLeftAfterBytes: resolution.disk_left_after_bytes ?? undefined,
      memoryNeededBytes: provider.memory_bytes ?? undefined,
      machineMemoryBytes: machine.memory_bytes ?? undefined,
      fitsDisk: resolution.fits_disk ?? undefined,
      fitsMemory: resolution.fits_memory ?? undefined,
    },
  };
}

/** The consent for an offer: the figures and effect digest it showed. */
export function consentFor(offer: InstallOffer): Consent {
  return { download_bytes: offer.downloadBytes, stored_bytes: offer.storedBytes, effect_digest: offer.provider.effect_digest };
}

/** A signed size for "disk left after install", which may be below zero. */
export function formatSignedBytes(bytes: number): string {
  return bytes < 0 ? `−${formatBytes(-bytes)}` : formatBytes(bytes);
}

export function formatRate(bytesPerSecond: number): string {
  return `${formatBytes(Math.round(bytesPerSecond))}/s`;
}

/** A remaining time for people: seconds, then minutes, then hours and minutes. */
export function formatEta(seconds: number): string {
  if (seconds < 60) return `${String(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${String(minutes)} min`;
  return `${String(Math.floor(minutes / 60))} h ${String(minutes % 60)} min`;
}

export const JOB_STATE_LABELS: Readonly<Record<JobState, string>> = {
  queued: "Queued",
  downloading: "Downloading",
  verifying: "Verifying the checksum",
  extracting: "Extracting",
  publishing: "Publishing",
  installed: "Installed",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** One line under the progress bar: bytes, rate and time left, as far as known. */
export function progressText(job: JobStatus): string {
  const parts = [
    job.bytes_total === null ? formatBytes(job.bytes_done) : `${formatBytes(job.bytes_done)} of ${formatBytes(job.bytes_total)}`,
  ];
  if (job.rate_bytes_per_sec !== null && jobIsActive(job)) parts.push(formatRate(job.rate_bytes_per_sec));
  if (job.eta_secs !== null && jobIsActive(job)) parts.push(`${formatEta(job.eta_secs)} left`);
  if (job.resumed_from > 0) parts.push(`resumed from ${formatBytes(job.resumed_from)}`);
  return parts.join(" · ");
}
