/**
 * The Agent panel's state: the launcher list, the session view, the feed,
 * and the calls the panel makes. Pure TS; React reads it through
 * `subscribe` / `getState`.
 *
 * The session view (`GET /api/agent/session`) is the truth about what can
 * be done now (its state, the pending permissions, the config options); the
 * feed is the history. Events that change the session make the store read
 * the view again, coalesced so a burst costs one request.
 */
import type { AgentApi } from "../api/endpoints";
import { MAX_PROMPT_BYTES } from "../api/limits";
import type {
  ActivityPage,
  CleanupReport,
  ConfigValue,
  ConnectRequest,
  FeedEvent,
  FeedPosition,
  LauncherList,
  SessionView,
} from "../api/types";
import type { AgentFeedState } from "./agentFeed";
import { EMPTY_AGENT_FEED, reduceAgentFeed, reduceAgentFeedAll } from "./agentFeed";
import type { Failure } from "./controls";
import { toFailure } from "./controls";
import type { FeedTap } from "./workspace";

export type AgentAction = "connect" | "prompt" | "cancel" | "disconnect" | "config" | "permission";

export interface AgentState {
  readonly launchers:
    | { readonly status: "loading" }
    | { readonly status: "loaded"; readonly list: LauncherList }
    | { readonly status: "failed"; readonly error: Failure };
  /** Undefined until first read. */
  readonly session: SessionView | undefined;
  readonly feed: AgentFeedState;
  /** Calls sent and not yet answered. */
  readonly pending: ReadonlySet<AgentAction>;
  /** The last call that failed, with the runtime's reason. */
  readonly error: (Failure & { readonly action: AgentAction }) | undefined;
  readonly lastCleanup: CleanupReport | undefined;
}

export interface AgentDeps {
  readonly api: AgentApi;
  /** The held activity after a position (`undefined`: all of it): the catch-up after a load or a gap. */
  readonly activity: (after: FeedPosition | undefined) => Promise<ActivityPage>;
}

/** Feed event types after which the session view is read again. */
const SESSION_CHANGING: ReadonlySet<string> = new Set([
  "ready",
  "login_required",
  "config_options",
  "mode_changed",
  "permission_requested",
  "permission_resolved",
  "turn_ended",
  "ended",
  "user_message",
]);

/** Whether an agent process is attached to the session (Stop and Disconnect apply). */
export function isConnected(session: SessionView | undefined): boolean {
  return session !== undefined && session.state !== "disconnected";
}

export class AgentStore {
  private state: AgentState = {
    launchers: { status: "loading" },
    session: undefined,
    feed: EMPTY_AGENT_FEED,
    pending: new Set(),
    error: undefined,
    lastCleanup: undefined,
  };
  private readonly listeners = new Set<() => void>();
  /** Live events that arrived while catching up, applied after it. */
  private held: FeedEvent[] | undefined;
  /** The epoch of the feed `state.feed` was folded from (none before the first catch-up). */
  private epoch: string | undefined;
  private sessionWanted = false;
  private sessionRunning = false;
  private stopped = false;

  constructor(private readonly deps: AgentDeps) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getState = (): AgentState => this.state;

  readonly feedTap: FeedTap = {
    event: (event) => {
      // Every kind advances the cursor, so a repeat of any event is known as one.
      this.apply([event]);
      if (event.kind === "agent") {
        const type = (event.data as { type?: unknown } | null)?.type;
        if (typeof type === "string" && SESSION_CHANGING.has(type)) this.refreshSession();
      }
    },
    resynced: () => {
      void this.catchUp();
      this.refreshSession();
    },
  };

  /** Loads the launchers and the session, and the feed's history so far. */
  async start(): Promise<void> {
    this.refreshSession();
    await Promise.all([this.loadLaunchers(), this.catchUp()]);
  }

  stop(): void {
    this.stopped = true;
  }

  async loadLaunchers(): Promise<void> {
    this.set({ launchers: { status: "loading" } });
    try {
      this.set({ launchers: { status: "loaded", list: await this.deps.api.launchers() } });
    } catch (error) {
      this.set({ launchers: { status: "failed", error: toFailure(error) } });
    }
  }

  refreshSession(): void {
    this.sessionWanted = true;
    if (!this.sessionRunning) void this.readSession();
  }

  connect(request: ConnectRequest): Promise<boolean> {
    return this.call("connect", async () => {
      this.set({ session: await this.deps.api.connect(request), lastCleanup: undefined });
    });
  }

  /** Sends a prompt; false (with the reason in `error`) when it was refused. */
  prompt(text: string): Promise<boolean> {
    if (text.trim() === "") return Promise.resolve(false);
    const bytes = new TextEncoder().encode(text).byteLength;
    if (bytes > MAX_PROMPT_BYTES) {
      this.set({
        error: {
          action: "prompt",
          code: "payload_too_large",
          title: `The message has ${String(bytes)} bytes; at most ${String(MAX_PROMPT_BYTES)} are accepted`,
          detail: "Shorten it; attach large material as files in the project.",
        },
      });
      return Promise.resolve(false);
    }
    return this.call("prompt", async () => {
      const { turn } = await this.deps.api.prompt(text);
      const session = this.state.session;
      if (session && session.state === "ready") this.set({ session: { ...session, state: "prompting", turn } });
      this.refreshSession();
    });
  }

  cancel(): Promise<boolean> {
    return this.call("cancel", () => this.deps.api.cancel());
  }

  disconnect(): Promise<boolean> {
    return this.call("disconnect", async () => {
      const cleanup = await this.deps.api.disconnect();
      this.set({ lastCleanup: cleanup });
      this.refreshSession();
    });
  }

  answerPermission(permissionId: string, answer: { option_id: string } | { cancel: true }): Promise<boolean> {
    return this.call("permission", async () => {
      await this.deps.api.answerPermission(permissionId, answer);
      this.refreshSession();
    });
  }

  setConfig(configId: string, value: ConfigValue): Promise<boolean> {
    return this.call("config", async () => {
      const options = await this.deps.api.setConfig(configId, value);
      const session = this.state.session;
      if (options && session) this.set({ session: { ...session, config_options: options } });
      else this.refreshSession();
    });
  }

  dismissError(): void {
    this.set({ error: undefined });
  }

  // ---- internals --------------------------------------------------------------

  private async call(action: AgentAction, work: () => Promise<void>): Promise<boolean> {
    if (this.state.pending.has(action)) return false;
    this.set({ pending: new Set(this.state.pending).add(action), error: undefined });
    try {
      await work();
      return true;
    } catch (error) {
      this.set({ error: { action, ...toFailure(error) } });
      this.refreshSession();
      return false;
    } finally {
      const pending = new Set(this.state.pending);
      pending.delete(action);
      this.set({ pending });
    }
  }

  private async readSession(): Promise<void> {
    this.sessionRunning = true;
    try {
      while (this.sessionWanted && !this.stopped) {
        this.sessionWanted = false;
        try {
          this.set({ session: await this.deps.api.session() });
        } catch {
          // The next event or action reads it again; the panel keeps the last view.
        }
      }
    } finally {
      this.sessionRunning = false;
    }
  }

  /** Reads the held feed after the newest cursor taken, holding live events meanwhile. */
  private async catchUp(): Promise<void> {
    if (this.held) return;
    this.held = [];
    try {
      const known = this.epoch;
      let page = await this.deps.activity(known === undefined ? undefined : { epoch: known, cursor: this.state.feed.lastCursor });
      let feed = this.state.feed;
      if (page.reset) {
        // Somite restarted: its cursors start again, and the session shown
        // ended with the old process. The panel starts over from the new feed.
        feed = EMPTY_AGENT_FEED;
        page = await this.deps.activity(undefined);
      }
      this.epoch = page.epoch;
      this.set({ feed: reduceAgentFeedAll(feed, page.events) });
    } catch {
      // Without the history the panel still follows the live feed.
    } finally {
      const held = this.held;
      this.held = undefined;
      this.apply(held);
    }
  }

  private apply(events: readonly FeedEvent[]): void {
    if (events.length === 0) return;
    if (this.held) {
      this.held.push(...events);
      return;
    }
    const feed = events.length === 1 && events[0] ? reduceAgentFeed(this.state.feed, events[0]) : reduceAgentFeedAll(this.state.feed, events);
    if (feed !== this.state.feed) this.set({ feed });
  }

  private set(patch: Partial<AgentState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }
}
