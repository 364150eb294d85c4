// An ACP v1 agent built on the official TypeScript SDK (@agentclientprotocol/sdk),
// an implementation Somite's team did not write: its framing, JSON-RPC and
// schema validation are the SDK's. It streams a message, reports two MCP-shaped
// tool calls, asks permission for both (Somite answers the exact Somite tool
// itself and leaves the Pixi mutation to the user), and reports the outcomes.
import { Readable, Writable } from "node:stream";
import { agent, ndJsonStream } from "@agentclientprotocol/sdk";

let verbose = false;
const configOptions = () => [
  { id: "verbose", name: "Verbose", type: "boolean", currentValue: verbose },
];

const update = (client, sessionId, update) =>
  client.notify("session/update", { sessionId, update });

agent()
  .onRequest("initialize", () => ({
    protocolVersion: 1,
    agentCapabilities: {},
    agentInfo: { name: "ts-sdk-agent", version: "2.4.0" },
  }))
  .onRequest("session/new", () => ({ sessionId: "ts-session-1", configOptions: configOptions() }))
  .onRequest("session/set_config_option", ({ params }) => {
    if (params.configId !== "verbose" || typeof params.value !== "boolean") {
      throw new Error("unknown option");
    }
    verbose = params.value;
    return { configOptions: configOptions() };
  })
  .onRequest("session/prompt", async ({ params, client }) => {
    const { sessionId } = params;
    const blocks = params.prompt.length;
    await update(client, sessionId, {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: `blocks=${blocks};` },
    });
    const outcomes = [];
    for (const [id, server, tool] of [
      ["ts-1", "somite", "somite.workflow.get"],
      ["ts-2", "pixi", "pixi_exec"],
    ]) {
      const rawInput = { server, tool, arguments: {} };
      await update(client, sessionId, {
        sessionUpdate: "tool_call",
        toolCallId: id,
        title: `Tool: ${server}/${tool}`,
        kind: "execute",
        status: "pending",
        rawInput,
      });
      const answer = await client.request("session/request_permission", {
        sessionId,
        toolCall: { toolCallId: id, title: `Tool: ${server}/${tool}`, rawInput },
        options: [
          { optionId: "yes", name: "Yes", kind: "allow_once" },
          { optionId: "no", name: "No", kind: "reject_once" },
        ],
      });
      const outcome = answer.outcome.outcome === "selected" ? answer.outcome.optionId : "cancelled";
      outcomes.push(`${id}:${outcome}`);
      await update(client, sessionId, {
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status: outcome === "yes" ? "completed" : "failed",
      });
    }
    await update(client, sessionId, {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: ` ${outcomes.join(" ")} verbose=${verbose}` },
    });
    return { stopReason: "end_turn" };
  })
  .onNotification("session/cancel", () => {})
  .connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
