/**
 * How the nf-core catalog's freshness is said: fetched now, reused from the
 * hour's cache, or — when nf-co.re cannot be reached — the last good copy,
 * offline, with its age, so a person knows how current the releases are.
 */
import type { NfcoreSearchPage } from "../api/sourceSchemas";

export function formatAge(seconds: number): string {
  if (seconds < 60) return `${String(seconds)} s`;
  if (seconds < 3600) return `${String(Math.floor(seconds / 60))} min`;
  if (seconds < 86_400) return `${String(Math.floor(seconds / 3600))} h`;
  return `${String(Math.floor(seconds / 86_400))} d`;
}

export function catalogFreshness(catalog: NfcoreSearchPage["catalog"]): string {
  const age = formatAge(catalog.age_seconds);
  switch (catalog.origin) {
    case "offline":
      return `Offline: the last good nf-core catalog, ${age} old`;
    case "cached":
      return `nf-core catalog cached ${age} ago`;
    case "fetched":
      return "nf-core catalog fetched just now";
  }
}
