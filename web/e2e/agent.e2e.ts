/**
 * The agent journey, end to end with the real runtime and the scripted ACP
 * test agent (`somite-test-agent`, a real protocol peer): connect it through
 * a custom command (its exact argv shown first), change its advertised
 * options, send a prompt whose plan calls the Somite workflow, Pixi runtime,
 * Nextflow runtime and Somite readiness tools, applies a transaction and
 * asks permission for a non-allowlisted Nextflow tool. The tool calls appear
 * in order, the agent's edit lands on the canvas and in the feed, the
 * blocked graph's validation is refused (and never shown as evidence), the
 * permission prompt is answered, and Disconnect cleans up.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Browser, Somite } from "./harness";
import { openBrowser, screenshot, startSomite, testAgentPath } from "./harness";
import { node, readinessSettled } from "./canvas";

interface WorkflowView {
  state_revision: string;
  document: { nodes: { id: string }[] };
}

let somite: Somite;
let browser: Browser;

beforeAll(async () => {
  somite = await startSomite();
  browser = await openBrowser();
});

afterAll(async () => {
  await browser.close();
  await somite.stop();
});

test("connect the test agent, watch it work, answer its permission prompt, disconnect", async () => {
  const { page } = browser;
  const agentBin = testAgentPath();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));

  await page.goto(somite.url);
  await node(page, "reads").waitFor();
  await readinessSettled(page);

  // 1. The launcher list: the registry's agents, then a custom command.
  await page.getByRole("button", { name: "Agent", exact: true }).click();
  const panel = page.getByRole("complementary", { name: "Agent" });
  await panel.locator(".launcher").first().waitFor();
  expect(await panel.locator('[data-launcher="custom"]').count()).toBe(1);
  expect(await panel.getByTestId("agent-state").getAttribute("data-state")).toBe("disconnected");
  await screenshot(page, "agent-01-launchers");

  // 2. The custom command, one argument per line: the exact argv is shown before Connect.
  await panel.locator('[data-launcher="custom"]').click();
  await panel.getByLabel(/Command — one argument per line/).fill(agentBin);
  const preview = panel.getByTestId("command-preview");
  await expect.poll(() => preview.locator(".argv code").allTextContents()).toEqual([agentBin]);
  await screenshot(page, "agent-02-custom-command");
  await panel.getByRole("button", { name: "Connect" }).click();
  await expect.poll(() => panel.getByTestId("agent-state").getAttribute("data-state"), { timeout: 30_000 }).toBe("ready");
  expect(await panel.getByTestId("agent-name").textContent()).toContain("somite-test-agent");

  // 3. The agent's advertised options, changed through ACP.
  const model = panel.getByLabel("Model");
  await model.selectOption("deep");
  await expect.poll(() => model.inputValue()).toBe("deep");
  const verbose = panel.getByLabel("Verbose");
  // A controlled checkbox: it turns on when the agent confirms the option, so
  // click and wait rather than `check()`, which demands an immediate change.
  await verbose.click();
  await expect.poll(() => verbose.isChecked()).toBe(true);
  await screenshot(page, "agent-03-connected");

  // 4. The prompt: a plan for the scripted agent after `PLAN:`.
  const before = await somite.api<WorkflowView>("/api/workflow");
  const plan = [
    { say: "Looking at the canvas." },
    { plan: ["Read the workflow", "Check the toolchains", "Add a QC step", "Check readiness"] },
    { call: { server: "somite", tool: "somite.workflow.get" } },
    { call: { server: "pixi", tool: "pixi_runtime_info" } },
    { call: { server: "nextflow", tool: "nextflow_runtime_info" } },
    {
      call: {
        server: "somite",
        tool: "somite.graph.apply_transaction",
        arguments: {
          base_state_revision: before.state_revision,
          idempotency_key: "agent-journey-0001",
          summary: "Add a second FastQC step",
          operations: [{ op: "add_operator", node_id: "agent_qc", operator_id: "qc.fastqc", x: 1000, y: 420 }],
        },
      },
    },
    { call: { server: "somite", tool: "somite.readiness.get" } },
    { call: { server: "somite", tool: "somite.validation.start", arguments: { idempotency_key: "agent-journey-val-01" } } },
    { call: { server: "nextflow", tool: "nextflow_run", permission: true, id: "run-1", arguments: { mode: "full" } } },
    { say: "Done." },
  ];
  const prompt = panel.getByLabel("Message to the agent");
  await prompt.fill(`Add a QC step, then check readiness.\nPLAN: ${JSON.stringify(plan)}`);
  await panel.getByRole("button", { name: "Send" }).click();

  // 5. The permission prompt for the non-allowlisted tool: exact id, the agent's options, a countdown.
  const permission = panel.locator(".permission--open");
  await permission.waitFor({ timeout: 30_000 });
  expect(await permission.getByTestId("permission-tool-call-id").textContent()).toBe("run-1");
  expect(await permission.locator("[data-option-id]").allTextContents()).toEqual(["Allow", "Always allow", "Reject"]);
  expect(await permission.getByTestId("permission-countdown").textContent()).toMatch(/^[45]:\d\d left$/);
  expect(await permission.textContent()).toContain("nextflow/nextflow_run is not on an automatic allowlist");

  // 6. The tool calls, in the order the agent made them, each through the real server.
  const calls = panel.locator(".tool-call");
  const titles = await calls.locator(".tool-call__title").allTextContents();
  const order = [
    "somite.workflow.get",
    "pixi_runtime_info",
    "nextflow_runtime_info",
    "somite.graph.apply_transaction",
    "somite.readiness.get",
    "somite.validation.start",
    "nextflow_run",
  ];
  const positions = order.map((tool) => titles.findIndex((t) => t.endsWith(`/${tool}`)));
  expect(positions.every((p) => p >= 0), titles.join(", ")).toBe(true);
  expect(positions).toEqual([...positions].sort((a, b) => a - b));
  expect(await calls.nth(positions[0] ?? 0).getAttribute("data-status")).toBe("completed");
  expect(await calls.nth(positions[4] ?? 0).getAttribute("data-status")).toBe("completed");

  // 7. The agent's transaction: on the canvas and in the feed, one history entry attributed to it.
  await node(page, "agent_qc").waitFor();
  await panel.getByTestId("agent-transaction").getByText("Add a second FastQC step").waitFor();
  await page.getByRole("button", { name: "History" }).click();
  await page.locator(".history__entry", { hasText: "Add a second FastQC step" }).locator(".source--agent").waitFor();
  await page.keyboard.press("Escape");

  // 8. Incomplete readiness blocks validation, and it is not relabelled as evidence.
  const validation = calls.nth(positions[5] ?? 0);
  expect(await validation.getAttribute("data-status")).toBe("failed");
  expect(await validation.locator(".tool-call__error code").textContent()).toBe("workflow_not_ready");
  await readinessSettled(page);
  await expect.poll(() => page.locator('[data-control="validate"]').isDisabled()).toBe(true);
  expect(await page.locator('[data-control="validate"]').getAttribute("data-reason")).toMatch(/^Cannot validate: \d+ requirements? open/);
  expect(await page.getByTestId("evidence-verdict").getAttribute("data-validated")).toBe("false");
  const evidence = await somite.api<{ validated: boolean; receipts: unknown[] }>("/api/evidence");
  expect(evidence).toMatchObject({ validated: false, receipts: [] });
  await screenshot(page, "agent-04-permission-and-blocked-validation");

  // 9. Answer the prompt: the rejected tool does not run and the turn ends.
  await permission.getByRole("button", { name: "Reject" }).click();
  await panel.getByTestId("permission-resolution").getByText("You answered: Reject.").waitFor();
  await panel.locator(".feed-divider", { hasText: "Turn 1 ended: finished" }).waitFor({ timeout: 30_000 });
  expect(await calls.nth(positions[6] ?? 0).getAttribute("data-status")).toBe("failed");
  await expect.poll(() => panel.getByTestId("agent-state").getAttribute("data-state")).toBe("ready");
  await panel.locator(".bubble--user").getByText("Add a QC step, then check readiness.", { exact: false }).waitFor();
  await screenshot(page, "agent-05-turn-ended");

  // 10. The canvas stays usable while connected: the agent's edit undoes like any other.
  await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
  await page.getByRole("button", { name: "Undo" }).click();
  await expect.poll(() => node(page, "agent_qc").count()).toBe(0);

  // 11. Disconnect: the session ends and its workspace is removed.
  await panel.getByRole("button", { name: "Disconnect" }).click();
  await expect.poll(() => panel.getByTestId("agent-state").getAttribute("data-state"), { timeout: 30_000 }).toBe("disconnected");
  await panel.getByTestId("last-cleanup").getByText("its workspace was removed", { exact: false }).waitFor();
  await panel.getByTestId("session-ended").waitFor();
  const session = await somite.api<{ state: string }>("/api/agent/session");
  expect(session.state).toBe("disconnected");
  await screenshot(page, "agent-06-disconnected");

  expect(errors).toEqual([]);
});
