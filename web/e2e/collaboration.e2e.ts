/**
 * Edits from elsewhere and presentation: a transaction made by another
 * client reaches the canvas live through the activity feed, enters the
 * history once, and is undone like any other edit; the title, a sticky
 * note and the dark theme round out the workspace.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Browser, Somite } from "./harness";
import { openBrowser, screenshot, startSomite } from "./harness";
import { node } from "./canvas";

interface WorkflowView {
  state_revision: string;
  document: { title: string; nodes: { id: string; x: number; y: number }[]; notes: { id: string; text: string }[] };
}

let somite: Somite;
let browser: Browser;

beforeAll(async () => {
  somite = await startSomite();
  browser = await openBrowser({ colorScheme: "dark" });
});

afterAll(async () => {
  await browser.close();
  await somite.stop();
});

const historyEntries = (browser: Browser) => browser.page.locator(".history__entry");

test("another client's edit arrives live, once, and undoes like any other", async () => {
  const { page } = browser;
  await page.goto(somite.url);
  await node(page, "reads").waitFor();
  expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");

  const before = await somite.api<WorkflowView>("/api/workflow");
  await somite.api("/api/transactions", {
    base_state_revision: before.state_revision,
    idempotency_key: "other-client-0001",
    summary: "Add MultiQC from another window",
    operations: [{ op: "add_operator", node_id: "multiqc", operator_id: "qc.multiqc", x: 720, y: 320 }],
  });
  await node(page, "multiqc").waitFor();
  await page.getByRole("button", { name: "History" }).click();
  await expect.poll(() => historyEntries(browser).count()).toBe(1);
  await screenshot(page, "collaboration-01-live-edit-dark");
  await page.keyboard.press("Escape");

  await page.getByRole("button", { name: "Undo" }).click();
  await expect.poll(() => node(page, "multiqc").count()).toBe(0);
  const after = await somite.api<WorkflowView>("/api/workflow");
  expect(after.document.nodes.map((n) => n.id).sort()).toEqual(before.document.nodes.map((n) => n.id).sort());
});

test("rename the workflow and leave a sticky note", async () => {
  const { page } = browser;
  await page.getByRole("button", { name: /^Rename workflow/ }).click();
  const title = page.getByLabel("Workflow title");
  await title.fill("Metagenomics screen");
  await title.press("Enter");
  await expect.poll(async () => (await somite.api<WorkflowView>("/api/workflow")).document.title).toBe("Metagenomics screen");

  await page.getByRole("button", { name: "Note" }).click();
  const note = page.locator(".react-flow__node-note.selected");
  await note.waitFor();
  await note.dblclick();
  await page.getByLabel("Note text").fill("Screen against Standard-8 first.");
  await page.locator(".react-flow__pane").click({ position: { x: 30, y: 30 } });
  await expect
    .poll(async () => (await somite.api<WorkflowView>("/api/workflow")).document.notes.map((n) => n.text))
    .toContain("Screen against Standard-8 first.");

  await node(page, "trim").click();
  await screenshot(page, "collaboration-02-note-title-inspector-dark");
});

test("arrow keys nudge the selected node, sent as one move", async () => {
  const { page } = browser;
  const x = async () => (await somite.api<WorkflowView>("/api/workflow")).document.nodes.find((n) => n.id === "trim")?.x;
  const start = await x();
  await node(page, "trim").focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
  await expect.poll(x).toBeGreaterThan(start ?? 0);
  await page.getByRole("button", { name: "History" }).click();
  await expect.poll(() => historyEntries(browser).first().textContent()).toContain("Move trim");
  await page.keyboard.press("Escape");
});

test("a readiness resolution adds the providing operator and connects it; downloads are offered only as reviewed installs", async () => {
  const { page } = browser;
  const view = await somite.api<WorkflowView>("/api/workflow");
  await somite.api("/api/transactions", {
    base_state_revision: view.state_revision,
    idempotency_key: "other-client-0002",
    summary: "Add Kraken2",
    operations: [
      { op: "add_operator", node_id: "kraken2", operator_id: "class.kraken2", x: 720, y: 80 },
      { op: "connect", edge_id: "trim-kraken2", from_node: "trim", from_port: "trimmed_r1", to_node: "kraken2", to_port: "r1" },
    ],
  });
  await node(page, "kraken2").waitFor();
  await page.getByRole("button", { name: /^Requirements/ }).click();
  const item = page.locator(".requirement", { hasText: "Provide Kraken2 database for kraken2" });
  // The runtime's reviewed installs replace the contract's download descriptions; none starts a transfer.
  await item.locator(".resource-options", { hasText: "Standard-8" }).waitFor();
  await screenshot(page, "collaboration-03-resource-options-dark");

  await item.getByRole("button", { name: "Add files.import_kraken2_database" }).click();
  await expect
    .poll(async () => {
      const after = await somite.api<WorkflowView & { document: { edges: { to_node: string; to_port: string }[] } }>("/api/workflow");
      return after.document.edges.some((e) => e.to_node === "kraken2" && e.to_port === "db");
    })
    .toBe(true);
  await page.getByRole("button", { name: "Close requirements" }).click();
  await screenshot(page, "collaboration-04-provider-connected-dark");
});

test("deleting a node takes its edges; undo brings both back", async () => {
  const { page } = browser;
  type Graph = WorkflowView & { document: { edges: { id: string; to_node: string; from_node: string }[] } };
  const before = await somite.api<Graph>("/api/workflow");
  const touching = before.document.edges.filter((e) => e.from_node === "kraken2" || e.to_node === "kraken2").map((e) => e.id);
  expect(touching.length).toBeGreaterThan(0);

  await node(page, "kraken2").click();
  await page.keyboard.press("Delete");
  await expect.poll(() => node(page, "kraken2").count()).toBe(0);

  await page.keyboard.press("Control+z");
  await node(page, "kraken2").waitFor();
  const after = await somite.api<Graph>("/api/workflow");
  expect(after.document.edges.map((e) => e.id).sort()).toEqual(before.document.edges.map((e) => e.id).sort());
});
