import { describe, expect, it } from "vitest";
import { parseArgv } from "../agent/argv";
import type { AgentApi } from "../api/endpoints";
import { ApiError } from "../api/errors";
import { sessionView as sessionSchema } from "../api/schemas";
import type { ActivityPage, ConnectRequest, SessionView } from "../api/types";
import { agentEvent, cleanup, pendingPermission, sessionView } from "../testing/wire";
import { AgentStore, isConnected } from "./agent";

const view = (patch: Record<string, unknown> = {}): SessionView => sessionSchema.parse(sessionView(patch));

class FakeAgentApi implements AgentApi {
  current: SessionView = view({ state: "disconnected", generation: null, command: null, session: null, config_options: [] });
  readonly calls: string[] = [];
  sessionReads = 0;
  refuse: ApiError | undefined;

  launchers = () => Promise.resolve({ registry: { kind: "source", name: "bundled" }, launchers: [] });
  session = () => {
    this.sessionReads += 1;
    return Promise.resolve(this.current);
  };
  connect = (request: ConnectRequest) => {
    this.calls.push(`connect ${JSON.stringify(request)}`);
    if (this.refuse) return Promise.reject(this.refuse);
    this.current = view({ state: "connecting", session: null, config_options: [] });
    return Promise.resolve(this.current);
  };
  prompt = (text: string) => {
    this.calls.push(`prompt ${text}`);
    return Promise.resolve({ turn: 1 });
  };
  cancel = () => {
    this.calls.push("cancel");
    return Promise.resolve();
  };
  answerPermission = (id: string, answer: unknown) => {
    this.calls.push(`permission ${id} ${JSON.stringify(answer)}`);
    return Promise.resolve();
  };
  setConfig = (id: string, value: string | boolean) => {
    this.calls.push(`config ${id}=${String(value)}`);
    const options = view().config_options.map((o) =>
      o.id === id && o.control.type === "select" && typeof value === "string" ? { ...o, control: { ...o.control, current_value: value } } : o,
    );
    return Promise.resolve(options);
  };
  disconnect = () => {
    this.calls.push("disconnect");
    return Promise.resolve(cleanup as never);
  };
}

const settle = async (condition: () => boolean) => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 1));
  expect(condition()).toBe(true);
};

function setup(history: ActivityPage = { epoch: "a1", last_cursor: 0, reset: false, gap_until: null, events: [] }) {
  const api = new FakeAgentApi();
  let release: (() => void) | undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const store = new AgentStore({
    api,
    activity: async () => {
      await held;
      return history;
    },
  });
  return { api, store, releaseHistory: () => release?.() };
}

describe("AgentStore", () => {
  it("folds the history first, then live events that arrived meanwhile, each once", async () => {
    const history: ActivityPage = {
      epoch: "a1",
      last_cursor: 2,
      reset: false,
      gap_until: null,
      events: [agentEvent(1, { type: "user_message", turn: 1, text: "hi" }), agentEvent(2, { type: "agent_message", turn: 1, text: "a" })],
    };
    const { store, releaseHistory } = setup(history);
    const started = store.start();
    store.feedTap.event(agentEvent(2, { type: "agent_message", turn: 1, text: "a" }));
    store.feedTap.event(agentEvent(3, { type: "agent_message", turn: 1, text: "b" }));
    expect(store.getState().feed.entries).toEqual([]);
    releaseHistory();
    await started;
    const texts = store.getState().feed.entries.map((e) => ("text" in e ? e.text : e.kind));
    expect(texts).toEqual(["hi", "ab"]);
  });

  it("reads the session again after events that change it", async () => {
    const { api, store, releaseHistory } = setup();
    releaseHistory();
    await store.start();
    const reads = api.sessionReads;
    api.current = view({ pending_permissions: [pendingPermission()] });
    store.feedTap.event(agentEvent(1, { type: "permission_requested", permission: pendingPermission() }));
    await settle(() => store.getState().session?.pending_permissions.length === 1);
    expect(api.sessionReads).toBeGreaterThan(reads);
  });

  it("connects with the exact argv and shows a refusal with the runtime's recovery", async () => {
    const { api, store, releaseHistory } = setup();
    releaseHistory();
    await store.start();
    api.refuse = new ApiError("POST /api/agent/connect", 422, "agent_command_rejected", "`sh` is a shell", "give the agent's own executable", undefined);
    expect(await store.connect({ command: ["sh", "-c", "x"] })).toBe(false);
    expect(store.getState().error).toMatchObject({ action: "connect", code: "agent_command_rejected", detail: "give the agent's own executable" });
    api.refuse = undefined;
    expect(await store.connect({ command: ["/bin/agent", "--acp"] })).toBe(true);
    expect(api.calls.at(-1)).toBe('connect {"command":["/bin/agent","--acp"]}');
    expect(store.getState().session?.state).toBe("connecting");
    expect(isConnected(store.getState().session)).toBe(true);
    expect(store.getState().error).toBeUndefined();
  });

  it("changes options only through the config route, and takes its answer", async () => {
    const { api, store, releaseHistory } = setup();
    api.current = view();
    releaseHistory();
    await store.start();
    await settle(() => store.getState().session?.state === "ready");
    expect(await store.setConfig("model", "deep")).toBe(true);
    expect(api.calls).toEqual(["config model=deep"]);
    const model = store.getState().session?.config_options.find((o) => o.id === "model");
    expect(model?.control.current_value).toBe("deep");
  });

  it("refuses an empty or oversized prompt without sending it", async () => {
    const { api, store } = setup();
    expect(await store.prompt("   ")).toBe(false);
    expect(await store.prompt("x".repeat(256 * 1024 + 1))).toBe(false);
    expect(store.getState().error?.code).toBe("payload_too_large");
    expect(api.calls).toEqual([]);
  });

  it("answers a permission by id and keeps the cleanup report of a disconnect", async () => {
    const { api, store } = setup();
    await store.answerPermission("g1-p1", { option_id: "reject-once" });
    await store.disconnect();
    expect(api.calls).toEqual(['permission g1-p1 {"option_id":"reject-once"}', "disconnect"]);
    expect(store.getState().lastCleanup?.workspace.kind).toBe("removed");
  });
});

describe("parseArgv: a command is argv, never a shell string", () => {
  it("takes one argument per line, trimmed, skipping blank lines", () => {
    expect(parseArgv("/usr/bin/agent\n  --acp \n\n--model=x\n")).toEqual({ ok: true, argv: ["/usr/bin/agent", "--acp", "--model=x"], warnings: [] });
  });

  it("takes a JSON array of strings exactly", () => {
    expect(parseArgv('["/bin/my agent", " --flag"]')).toEqual({ ok: true, argv: ["/bin/my agent", " --flag"], warnings: [] });
    expect(parseArgv('["a", 1]')).toMatchObject({ ok: false });
    expect(parseArgv("[not json")).toMatchObject({ ok: false });
  });

  it("warns that a line with spaces is one argument, not split like a shell would", () => {
    const parsed = parseArgv("codex --acp");
    expect(parsed).toMatchObject({ ok: true, argv: ["codex --acp"] });
    expect(parsed.ok && parsed.warnings[0]).toContain("one argument");
  });

  it("refuses empty commands, too many arguments, NULs and oversized tokens", () => {
    expect(parseArgv("  \n ")).toMatchObject({ ok: false });
    expect(parseArgv(JSON.stringify(Array.from({ length: 65 }, () => "a")))).toMatchObject({ ok: false });
    expect(parseArgv('["a\\u0000b"]')).toMatchObject({ ok: false });
    expect(parseArgv(`agent\n${"x".repeat(4097)}`)).toMatchObject({ ok: false });
  });
});
