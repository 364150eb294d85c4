import { describe, expect, it } from "vitest";
import { createApi } from "./endpoints";
import { ApiError, ClientError } from "./errors";
import { HttpClient } from "./http";

const REV = `blake3:${"a".repeat(64)}`;

const workflow = {
  state_revision: REV,
  graph_revision: REV,
  semantic_revision: REV,
  input_location: ".somite/web.somite.json",
  recovery_required: null,
  catalog_revision: REV,
  feed_cursor: 3,
  feed_epoch: "0123456789abcdef",
  document: {
    schema_version: 1,
    title: "QC",
    nodes: [
      {
        id: "reads",
        operator_id: "files.import_paired",
        operator_revision: REV,
        ports: { in: [], out: [{ name: "r1", type: "Fastq", import_param: "r1" }] },
        params: {},
        x: 80,
        y: 160,
      },
    ],
    edges: [],
    notes: [],
    stages: [],
  },
};

/** An API whose every request answers `body` with `status`. */
function apiAnswering(body: string, status = 200, headers: Record<string, string> = {}) {
  const seen: string[] = [];
  const http = new HttpClient((input) => {
    seen.push(input);
    return Promise.resolve(new Response(body, { status, headers: { "content-type": "application/json", ...headers } }));
  });
  return { api: createApi(http), seen };
}

const json = (value: unknown) => JSON.stringify(value);

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

describe("HttpClient reply validation", () => {
  it("accepts a well-formed workflow and fills documented defaults", async () => {
    const { api, seen } = apiAnswering(json(workflow));
    const view = await api.workflow();
    expect(view.document.nodes[0]?.ports.out[0]).toMatchObject({ union: [], optional: false });
    expect(seen).toEqual(["/api/workflow"]);
  });

  it.each([
    ["a missing field", { ...workflow, state_revision: undefined }, "state_revision"],
    ["a revision that is not blake3", { ...workflow, graph_revision: "sha1:abc" }, "graph_revision"],
    [
      "a coordinate of the wrong type",
      { ...workflow, document: { ...workflow.document, nodes: [{ ...workflow.document.nodes[0], x: "80" }] } },
      "document.nodes.0.x",
    ],
    [
      "an id outside the id alphabet",
      { ...workflow, document: { ...workflow.document, nodes: [{ ...workflow.document.nodes[0], id: "<script>" }] } },
      "document.nodes.0.id",
    ],
    [
      "a port type that is not a type name",
      {
        ...workflow,
        document: {
          ...workflow.document,
          nodes: [{ ...workflow.document.nodes[0], ports: { in: [], out: [{ name: "r1", type: "fastq; rm" }] } }],
        },
      },
      "document.nodes.0.ports.out.0.type",
    ],
    ["an array instead of an object", [workflow], ""],
  ])("rejects %s with a message naming the field", async (_case, body, field) => {
    const { api } = apiAnswering(json(body));
    const error = await failure(api.workflow());
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).failure).toBe("malformed");
    expect((error as ClientError).message).toContain("GET /api/workflow");
    if (field) expect((error as ClientError).message).toContain(`\`${field}\``);
  });

  it("rejects a reply that is not JSON", async () => {
    const { api } = apiAnswering("<html>proxy error</html>");
    const error = await failure(api.readiness());
    expect(error).toMatchObject({ failure: "malformed", message: "GET /api/readiness sent a reply that is not JSON" });
  });

  it("refuses a reply whose declared size is over the bound before reading it", async () => {
    const { api } = apiAnswering(json({}), 200, { "content-length": String(17 * 1024 * 1024) });
    const error = await failure(api.searchCatalog("fastq", 12));
    expect(error).toMatchObject({ failure: "too_large" });
  });

  it("refuses a streamed reply as soon as it passes the bound", async () => {
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 1;
        controller.enqueue(chunk);
      },
    });
    const http = new HttpClient(() => Promise.resolve(new Response(body, { status: 200 })));
    const error = await failure(createApi(http).searchCatalog("fastq", 12));
    expect(error).toMatchObject({ failure: "too_large" });
    expect(sent).toBeLessThan(20);
  });

  it("turns the runtime's error envelope into an ApiError with its recovery and details", async () => {
    const envelope = {
      code: "incompatible_ports",
      message: "port `db` accepts Directory, not Fastq",
      recovery: "connect a matching output",
      details: { operation_index: 0 },
    };
    const { api } = apiAnswering(json(envelope), 422);
    const error = await failure(
      api.applyTransaction({ base_state_revision: REV, idempotency_key: "web-12345678", summary: "x", operations: [] }),
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 422, code: "incompatible_ports", recovery: "connect a matching output" });
    expect((error as ApiError).operationIndex).toBe(0);
  });

  it("rejects an error reply that is not the envelope", async () => {
    const { api } = apiAnswering(json({ error: "boom" }), 500);
    const error = await failure(api.workflow());
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).message).toMatch(/an error \(HTTP 500\) that does not match/);
  });

  it("never addresses anything but this runtime's /api/ routes", async () => {
    const http = new HttpClient(() => Promise.reject(new Error("must not be called")));
    const { z } = await import("zod/mini");
    const error = await failure(http.request({ path: "https://example.com/api/x", schema: z.unknown(), maxBytes: 10 }));
    expect(error).toMatchObject({ failure: "network" });
    const protocolRelative = await failure(http.request({ path: "//evil/api/x", schema: z.unknown(), maxBytes: 10 }));
    expect(protocolRelative).toBeInstanceOf(ClientError);
  });

  it("encodes catalog queries and operator ids into the path", async () => {
    const { api, seen } = apiAnswering(json({ error: "ignored" }), 500);
    await failure(api.searchCatalog("align reads & more", 5));
    await failure(api.operator("qc.fastqc/../x"));
    expect(seen).toEqual(["/api/catalog/search?q=align+reads+%26+more&limit=5", "/api/catalog/operators/qc.fastqc%2F..%2Fx"]);
  });
});
