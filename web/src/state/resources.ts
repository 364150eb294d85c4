/**
 * Managed resources as the page knows them: the overview (providers,
 * installed resources, jobs), the resolutions of each resource profile, and
 * the live install jobs from the feed's `resource` events.
 *
 * Pure TS like the other stores. A job's progress arrives on the feed (the
 * runtime publishes every state change and a few byte updates a second), so
 * nothing polls; when a job finishes, the overview and resolutions are read
 * again, since an install changes what is installed and how much disk is
 * left. An install started for a requirement remembers it as a *binding*:
 * once the resource is installed, `takeReadyBindings` hands the requirement
 * and the installed reference to whoever binds it into the graph — the
 * user's one choice (install this, for this input) is carried out to the end.
 */
import type { FeedEvent } from "../api/types";
import { ClientError } from "../api/errors";
import type { ResourceApi } from "../api/resourceApi";
import { jobStatus as jobStatusSchema } from "../api/resourceSchemas";
import type { Consent, DirectoryCheck, InstalledResource, JobState, JobStatus, ResourceOverview, Resolutions } from "../api/resourceSchemas";
import { validate } from "../api/validate";
import type { Failure } from "./controls";
import { toFailure } from "./controls";
import type { FeedTap } from "./workspace";

/** The feed kind whose payload is a `JobStatus`. */
export const RESOURCE_FEED_KIND = "resource";

export type Loadable<T> =
  | { readonly status: "loading" }
  | { readonly status: "loaded"; readonly value: T }
  | { readonly status: "failed"; readonly error: Failure };

/** The requirement an install was started for, and the operator that will provide it. */
export interface BindingTarget {
  readonly itemId: string;
  readonly nodeId: string;
  readonly field: string;
  readonly operatorId: string;
}

export interface ReadyBinding {
  readonly target: BindingTarget;
  readonly installed: InstalledResource;
}

export interface ResourceState {
  readonly overview: Loadable<ResourceOverview> | undefined;
  /** By profile. */
  readonly resolutions: ReadonlyMap<string, Loadable<Resolutions>>;
  /** The newest status of each provider's job, by provider id. */
  readonly jobs: ReadonlyMap<string, JobStatus>;
  /** Why the last install or cancel request of a provider was refused. */
  readonly refusals: ReadonlyMap<string, Failure>;
  /** Installs started for a requirement, by provider id, until bound. */
  readonly bindings: ReadonlyMap<string, BindingTarget>;
}

const ROUTE = "GET /api/activity/stream";

export class ResourceStore {
  private state: ResourceState = {
    overview: undefined,
    resolutions: new Map(),
    jobs: new Map(),
    refusals: new Map(),
    bindings: new Map(),
  };
  private readonly listeners = new Set<() => void>();

  constructor(private readonly api: ResourceApi) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getState = (): ResourceState => this.state;

  readonly feedTap: FeedTap = {
    event: (event) => {
      this.receive(event);
    },
    // Job events may have been missed: read the truth again.
    resynced: () => {
      void this.refresh();
    },
  };

  /** Reads the overview, and the resolutions of every profile already asked for. */
  async refresh(): Promise<void> {
    const profiles = [...this.state.resolutions.keys()];
    await Promise.all([this.loadOverview(), ...profiles.map((profile) => this.loadResolutions(profile))]);
  }

  async loadOverview(): Promise<void> {
    if (!this.state.overview) this.set({ overview: { status: "loading" } });
    try {
      const overview = await this.api.overview();
      const jobs = new Map(this.state.jobs);
      // A job the feed already saw finish keeps that state: this reply may
      // have been read before the end (a new job reports on the feed itself).
      for (const job of overview.jobs) {
        const known = jobs.get(job.provider_id);
        if (!(known && !jobIsActive(known) && jobIsActive(job))) jobs.set(job.provider_id, job);
      }
      this.set({ overview: { status: "loaded", value: overview }, jobs });
    } catch (error) {
      this.set({ overview: { status: "failed", error: toFailure(error) } });
    }
  }

  async loadResolutions(profile: string): Promise<void> {
    if (!this.state.resolutions.has(profile)) this.setResolutions(profile, { status: "loading" });
    try {
      this.setResolutions(profile, { status: "loaded", value: await this.api.resolutions(profile) });
    } catch (error) {
      this.setResolutions(profile, { status: "failed", error: toFailure(error) });
    }
  }

  /**
   * Starts an install with the consent the user gave, for the requirement it
   * was chosen for (if any). A refusal (`consent_mismatch`,
   * `insufficient_disk`, …) is kept to be shown with its code and recovery.
   */
  async install(providerId: string, consent: Consent, target?: BindingTarget): Promise<boolean> {
    this.clearRefusal(providerId);
    try {
      const job = await this.api.install(providerId, consent);
      const bindings = new Map(this.state.bindings);
      if (target) bindings.set(providerId, target);
      this.set({ bindings });
      this.absorb(job);
      return true;
    } catch (error) {
      this.refuse(providerId, error);
      return false;
    }
  }

  async cancel(providerId: string, keepPartial: boolean): Promise<void> {
    this.clearRefusal(providerId);
    try {
      this.absorb(await this.api.cancel(providerId, keepPartial));
    } catch (error) {
      this.refuse(providerId, error);
    }
  }

  /** Checks a folder against the profile's structure; failures are thrown to the caller. */
  checkDirectory(profile: string, path: string): Promise<DirectoryCheck> {
    return this.api.checkDirectory(profile, path);
  }

  dismissRefusal(providerId: string): void {
    this.clearRefusal(providerId);
  }

  /**
   * The installs whose requirement can now be bound: the job finished
   * installed and the overview lists the installed resource. Each is
   * handed out once.
   */
  takeReadyBindings(): ReadyBinding[] {
    const overview = this.state.overview?.status === "loaded" ? this.state.overview.value : undefined;
    if (!overview || this.state.bindings.size === 0) return [];
    const ready: ReadyBinding[] = [];
    const bindings = new Map(this.state.bindings);
    for (const [providerId, target] of this.state.bindings) {
      const job = this.state.jobs.get(providerId);
      if (!job || jobIsActive(job)) continue;
      bindings.delete(providerId);
      if (job.state !== "installed") continue;
      const installed = overview.installed.find((i) => i.provider_id === providerId && i.release === job.release);
      if (installed) ready.push({ target, installed });
      else bindings.set(providerId, target);
    }
    if (bindings.size !== this.state.bindings.size || ready.length > 0) this.set({ bindings });
    return ready;
  }

  private receive(event: FeedEvent): void {
    if (event.kind !== RESOURCE_FEED_KIND) return;
    let job: JobStatus;
    try {
      job = validate(jobStatusSchema, event.data, ROUTE, "a resource event");
    } catch (error) {
      // A malformed event is not applied; the next refresh reads the truth.
      if (error instanceof ClientError) return;
      throw error;
    }
    this.absorb(job);
  }

  private absorb(job: JobStatus): void {
    const previous = this.state.jobs.get(job.provider_id);
    const jobs = new Map(this.state.jobs);
    jobs.set(job.provider_id, job);
    this.set({ jobs });
    // A job that just finished changed what is installed and the disk left.
    if (!jobIsActive(job) && (previous === undefined || jobIsActive(previous))) void this.refresh();
  }

  private refuse(providerId: string, error: unknown): void {
    const refusals = new Map(this.state.refusals);
    refusals.set(providerId, toFailure(error));
    this.set({ refusals });
  }

  private clearRefusal(providerId: string): void {
    if (!this.state.refusals.has(providerId)) return;
    const refusals = new Map(this.state.refusals);
    refusals.delete(providerId);
    this.set({ refusals });
  }

  private setResolutions(profile: string, value: Loadable<Resolutions>): void {
    const resolutions = new Map(this.state.resolutions);
    resolutions.set(profile, value);
    this.set({ resolutions });
  }

  private set(patch: Partial<ResourceState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }
}

const FINISHED: ReadonlySet<JobState> = new Set(["installed", "failed", "cancelled"]);

/** Whether a job is still under way (queued up to publishing). */
export function jobIsActive(job: JobStatus | undefined): boolean {
  return job !== undefined && !FINISHED.has(job.state);
}
