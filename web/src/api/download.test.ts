/**
 * The export download and the controls' routes through the one HTTP client:
 * bounded, typed, same-origin, and with the runtime's refusal as an ApiError.
 */
import { describe, expect, it } from "vitest";
import { createAgentApi, createControlsApi } from "./endpoints";
import { ApiError, ClientError } from "./errors";
import type { FetchLike } from "./http";
import { HttpClient, attachmentName } from "./http";
import { TOOLCHAIN_MISSING, runStatus } from "../testing/wire";

const ZIP = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4]);

function client(answer: (input: string, init: RequestInit) => Response) {
  const seen: { input: string; init: RequestInit }[] = [];
  const fetchImpl: FetchLike = (input, init) => {
    seen.push({ input, init });
    return Promise.resolve(answer(input, init));
  };
  return { http: new HttpClient(fetchImpl), seen };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

describe("export download", () => {
  it("returns the zip bytes under the runtime's file name", async () => {
    const { http, seen } = client(
      () =>
        new Response(ZIP, {
          headers: { "content-type": "application/zip", "content-disposition": 'attachment; filename="qc-run-0123456789ab.zip"' },
        }),
    );
    const download = await createControlsApi(http).exportZip();
    expect(download.filename).toBe("qc-run-0123456789ab.zip");
    expect(new Uint8Array(await download.blob.arrayBuffer())).toEqual(ZIP);
    expect(seen[0]?.input).toBe("/api/export");
    expect(seen[0]?.init.method).toBe("POST");
    expect(seen[0]?.init.body).toBe("{}");
  });

  it("turns the runtime's refusal into an ApiError with its recovery", async () => {
    const { http } = client(
      () =>
        new Response(JSON.stringify({ code: "workflow_not_ready", message: "cannot export: 2 requirement(s) open", recovery: "resolve them" }), {
          status: 409,
          headers: { "content-type": "application/json" },
        }),
    );
    const error = await failure(createControlsApi(http).exportZip());
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "workflow_not_ready", status: 409, recovery: "resolve them" });
  });

  it("refuses a success that is not a zip, and one larger than its bound", async () => {
    const notZip = client(() => new Response("<html>", { headers: { "content-type": "text/html" } }));
    const wrongType = await failure(createControlsApi(notZip.http).exportZip());
    expect(wrongType).toBeInstanceOf(ClientError);
    expect((wrongType as ClientError).failure).toBe("malformed");

    const huge = client(() => new Response(ZIP, { headers: { "content-type": "application/zip", "content-length": String(2 ** 40) } }));
    const tooLarge = await failure(createControlsApi(huge.http).exportZip());
    expect((tooLarge as ClientError).failure).toBe("too_large");
  });

  it.each([
    ['attachment; filename="qc.zip"', "qc.zip"],
    ['attachment; filename="../../etc/passwd"', "passwd"],
    ['attachment; filename="..\\\\evil.zip"', "evil.zip"],
    ['attachment; filename="a b;c.zip"', "a_b_c.zip"],
    ["attachment", undefined],
    ['attachment; filename=""', undefined],
  ])("reduces %s to a safe base name", (header, name) => {
    expect(attachmentName(header)).toBe(name);
  });
});

describe("run routes", () => {
  it("sends a run start with the idempotency key and shows toolchain_missing as the runtime said it", async () => {
    const { http, seen } = client(() => new Response(JSON.stringify(TOOLCHAIN_MISSING), { status: 503, headers: { "content-type": "application/json" } }));
    const error = await failure(createControlsApi(http).startRun("web-0123456789"));
    expect(seen[0]?.init.body).toBe(JSON.stringify({ idempotency_key: "web-0123456789" }));
    expect(error).toMatchObject({ code: "toolchain_missing", status: 503, recovery: TOOLCHAIN_MISSING.recovery });
  });

  it("long-polls the status with wait_ms and since_revision, and refuses a malformed status", async () => {
    const { http, seen } = client(() => new Response(JSON.stringify(runStatus({ phase: "exploding" })), { headers: { "content-type": "application/json" } }));
    const error = await failure(createControlsApi(http).runStatus("run-1-x", 20_000, 3));
    expect(seen[0]?.input).toBe("/api/runs/run-1-x?wait_ms=20000&since_revision=3");
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).message).toContain("at `phase`");
  });
});

describe("agent routes", () => {
  it("send a custom command as an argv array, never a string", async () => {
    const { http, seen } = client(
      () =>
        new Response(
          JSON.stringify({ state: "connecting", generation: 1, command: ["/bin/agent", "--acp"], session: null, config_options: [], login_methods: [], pending_permissions: [], turn: null, ended: null }),
          { headers: { "content-type": "application/json" } },
        ),
    );
    const view = await createAgentApi(http).connect({ command: ["/bin/agent", "--acp"] });
    expect(view.command).toEqual(["/bin/agent", "--acp"]);
    expect(JSON.parse(seen[0]?.init.body as string)).toEqual({ command: ["/bin/agent", "--acp"] });
  });

  it("answer a permission by its exact id, escaped into the path", async () => {
    const { http, seen } = client(() => new Response("{}", { headers: { "content-type": "application/json" } }));
    await createAgentApi(http).answerPermission("g1-p2", { option_id: "reject-once" });
    expect(seen[0]?.input).toBe("/api/agent/permissions/g1-p2");
    expect(JSON.parse(seen[0]?.init.body as string)).toEqual({ option_id: "reject-once" });
  });
});
