import { describe, expect, it } from "vitest";
import { job, provider } from "../testing/resourceWire";
import { ApiError } from "./errors";
import { HttpClient } from "./http";
import { createResourceApi } from "./resourceApi";

function client(answer: (path: string, init: RequestInit) => Response) {
  const seen: { path: string; method: string | undefined; body: unknown }[] = [];
  const http = new HttpClient((input, init) => {
    seen.push({ path: input, method: init.method, body: typeof init.body === "string" ? JSON.parse(init.body) : undefined });
    return Promise.resolve(answer(input, init));
  });
  return { api: createResourceApi(http), seen };
}

const json = (value: unknown, status = 200) => new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });

describe("resource routes", () => {
  it("send exactly the three consent fields, whatever else the caller holds", async () => {
    const { api, seen } = client(() => json(job({ state: "queued" }), 202));
    const shown = { download_bytes: 1, stored_bytes: 2, effect_digest: provider().effect_digest, title: "extra" };
    await api.install("test_kraken2_tiny", shown);
    expect(seen).toEqual([
      {
        path: "/api/resources/test_kraken2_tiny/install",
        method: "POST",
        body: { consent: { download_bytes: 1, stored_bytes: 2, effect_digest: provider().effect_digest } },
      },
    ]);
  });

  it("turn a refusal into the runtime's code and recovery", async () => {
    const refusal = { code: "insufficient_disk", message: "Not enough free disk", recovery: "Free 5 GB or choose a smaller database", details: { needed: 10, free: 1 } };
    const { api } = client(() => json(refusal, 507));
    const error = await api.install("k2_standard", { download_bytes: 1, stored_bytes: 2, effect_digest: provider().effect_digest }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "insufficient_disk", recovery: refusal.recovery, status: 507 });
  });

  it("name the provider and profile safely in the path", async () => {
    const { api, seen } = client((path) =>
      path.startsWith("/api/resources/resolutions")
        ? json({ profile: "kraken2-database", free_disk_bytes: null, memory_bytes: null, resolutions: [] })
        : json(job({ state: "cancelled", partial_kept: false })),
    );
    await api.resolutions("kraken2-database");
    await api.cancel("a/b", false);
    expect(seen.map((s) => [s.path, s.body])).toEqual([
      ["/api/resources/resolutions?profile=kraken2-database", undefined],
      ["/api/resources/a%2Fb/cancel", { keep_partial: false }],
    ]);
  });
});
