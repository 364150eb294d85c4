import { describe, expect, it } from "vitest";
import { ApiError } from "../api/errors";
import type { ResourceApi } from "../api/resourceApi";
import type { Consent, JobStatus, ResourceOverview } from "../api/resourceSchemas";
import { installed, job, provider, resolutions } from "../testing/resourceWire";
import { feedEvent } from "../testing/wire";
import { ResourceStore } from "./resources";

const CONSENT: Consent = { download_bytes: 12_345, stored_bytes: 23_456, effect_digest: provider().effect_digest };
const TARGET = { itemId: "managed_resource:kraken:db", nodeId: "kraken", field: "db", operatorId: "files.import_kraken2_database" };

class FakeResources implements ResourceApi {
  overviews = 0;
  resolutionReads: string[] = [];
  installs: { id: string; consent: Consent }[] = [];
  cancels: { id: string; keep: boolean }[] = [];
  installError: Error | undefined;
  current: ResourceOverview = { store_dir: "/store", free_disk_bytes: 100_000, memory_bytes: null, providers: [provider()], installed: [], jobs: [] };

  overview = () => {
    this.overviews += 1;
    return Promise.resolve(this.current);
  };
  inspect = () => Promise.reject(new Error("not used"));
  install = (id: string, consent: Consent) => {
    this.installs.push({ id, consent });
    return this.installError ? Promise.reject(this.installError) : Promise.resolve(job({ state: "queued", bytes_done: 0 }));
  };
  cancel = (id: string, keep: boolean) => {
    this.cancels.push({ id, keep });
    return Promise.resolve(job({ state: "cancelled", partial_kept: keep }));
  };
  resolutions = (profile: string) => {
    this.resolutionReads.push(profile);
    return Promise.resolve(resolutions());
  };
  checkDirectory = (_profile: string, path: string) => Promise.resolve({ path, ok: true, missing: [] });
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const event = (cursor: number, data: JobStatus | Record<string, unknown>) => feedEvent(cursor, "resource", data);

describe("ResourceStore", () => {
  it("follows a job from the feed and reads the store again when it finishes", async () => {
    const api = new FakeResources();
    const store = new ResourceStore(api);
    await store.loadResolutions("kraken2-database");
    store.feedTap.event(event(1, job({ bytes_done: 1_000 })));
    store.feedTap.event(event(2, job({ bytes_done: 9_000 })));
    expect(store.getState().jobs.get("test_kraken2_tiny")?.bytes_done).toBe(9_000);
    expect(api.overviews).toBe(0);

    store.feedTap.event(event(3, job({ state: "installed", bytes_done: 12_345 })));
    await settle();
    expect(api.overviews).toBe(1);
    expect(api.resolutionReads).toEqual(["kraken2-database", "kraken2-database"]);
    // A repeated finished state does not read again.
    store.feedTap.event(event(4, job({ state: "installed", bytes_done: 12_345 })));
    await settle();
    expect(api.overviews).toBe(1);
  });

  it("ignores other feed kinds and malformed resource events", () => {
    const store = new ResourceStore(new FakeResources());
    store.feedTap.event(feedEvent(1, "run", job()));
    store.feedTap.event(event(2, { ...job(), bytes_done: -5 }));
    expect(store.getState().jobs.size).toBe(0);
  });

  it("sends the consent as given and keeps a refusal with its code and recovery", async () => {
    const api = new FakeResources();
    const store = new ResourceStore(api);
    api.installError = new ApiError("POST /api/resources/x/install", 409, "consent_mismatch", "The consent does not match", "Show the dialog again", undefined);
    expect(await store.install("test_kraken2_tiny", CONSENT, TARGET)).toBe(false);
    expect(api.installs).toEqual([{ id: "test_kraken2_tiny", consent: CONSENT }]);
    expect(store.getState().refusals.get("test_kraken2_tiny")).toEqual({
      code: "consent_mismatch",
      title: "The consent does not match",
      detail: "Show the dialog again",
    });
    // A refused install binds nothing later.
    expect(store.getState().bindings.size).toBe(0);

    api.installError = undefined;
    expect(await store.install("test_kraken2_tiny", CONSENT, TARGET)).toBe(true);
    expect(store.getState().refusals.size).toBe(0);
    expect(store.getState().jobs.get("test_kraken2_tiny")?.state).toBe("queued");
  });

  it("hands an install's requirement to the binder once, when the store lists it", async () => {
    const api = new FakeResources();
    const store = new ResourceStore(api);
    await store.install("test_kraken2_tiny", CONSENT, TARGET);
    await store.loadOverview();
    expect(store.takeReadyBindings()).toEqual([]);

    api.current = { ...api.current, installed: [installed()] };
    store.feedTap.event(event(5, job({ state: "installed", bytes_done: 12_345 })));
    await settle();
    const ready = store.takeReadyBindings();
    expect(ready).toEqual([{ target: TARGET, installed: installed() }]);
    expect(store.takeReadyBindings()).toEqual([]);
  });

  it("drops the binding of an install that was cancelled or failed", async () => {
    const api = new FakeResources();
    const store = new ResourceStore(api);
    await store.install("test_kraken2_tiny", CONSENT, TARGET);
    await store.cancel("test_kraken2_tiny", true);
    await settle();
    expect(api.cancels).toEqual([{ id: "test_kraken2_tiny", keep: true }]);
    expect(store.getState().jobs.get("test_kraken2_tiny")?.partial_kept).toBe(true);
    expect(store.takeReadyBindings()).toEqual([]);
    expect(store.getState().bindings.size).toBe(0);
  });

  it("does not let an overview read before the end undo a finish the feed reported", async () => {
    const api = new FakeResources();
    const store = new ResourceStore(api);
    store.feedTap.event(event(1, job({ state: "installed" })));
    api.current = { ...api.current, jobs: [job({ state: "downloading" })] };
    await store.loadOverview();
    expect(store.getState().jobs.get("test_kraken2_tiny")?.state).toBe("installed");
  });
});
