/**
 * The managed-resource routes as typed calls (human routes; the agent reaches
 * the same actions through `somite.resource`, where an install waits for the
 * user's permission). Each reply is bounded and checked against its schema.
 */
import type { HttpClient } from "./http";
import { MAX_REPLY_BYTES } from "./limits";
import * as r from "./resourceSchemas";
import type { Consent, DirectoryCheck, JobStatus, ResourceInspect, ResourceOverview, Resolutions } from "./resourceSchemas";

export interface ResourceApi {
  overview(signal?: AbortSignal): Promise<ResourceOverview>;
  inspect(providerId: string, signal?: AbortSignal): Promise<ResourceInspect>;
  /** Starts an install (202): the job then reports on the feed. */
  install(providerId: string, consent: Consent): Promise<JobStatus>;
  cancel(providerId: string, keepPartial: boolean): Promise<JobStatus>;
  /** The ways to meet a requirement of this profile, best first. */
  resolutions(profile: string, signal?: AbortSignal): Promise<Resolutions>;
  checkDirectory(profile: string, path: string): Promise<DirectoryCheck>;
}

const provider = (id: string) => `/api/resources/${encodeURIComponent(id)}`;

export function createResourceApi(http: HttpClient): ResourceApi {
  return {
    overview: (signal) => http.request({ path: "/api/resources", schema: r.resourceOverview, maxBytes: MAX_REPLY_BYTES, signal }),
    inspect: (id, signal) => http.request({ path: provider(id), schema: r.resourceInspect, maxBytes: MAX_REPLY_BYTES, signal }),
    install: (id, consent) =>
      http.request({
        path: `${provider(id)}/install`,
        method: "POST",
        // Exactly the three consent fields, whatever else the caller's object holds.
        body: { consent: { download_bytes: consent.download_bytes, stored_bytes: consent.stored_bytes, effect_digest: consent.effect_digest } },
        schema: r.jobStatus,
        maxBytes: MAX_REPLY_BYTES,
      }),
    cancel: (id, keepPartial) =>
      http.request({
        path: `${provider(id)}/cancel`,
        method: "POST",
        body: { keep_partial: keepPartial },
        schema: r.jobStatus,
        maxBytes: MAX_REPLY_BYTES,
      }),
    resolutions: (profile, signal) =>
      http.request({
        path: `/api/resources/resolutions?${new URLSearchParams({ profile }).toString()}`,
        schema: r.resolutions,
        maxBytes: MAX_REPLY_BYTES,
        signal,
      }),
    checkDirectory: (profile, path) =>
      http.request({
        path: "/api/resources/check-directory",
        method: "POST",
        body: { profile, path },
        schema: r.directoryCheck,
        maxBytes: MAX_REPLY_BYTES,
      }),
  };
}
