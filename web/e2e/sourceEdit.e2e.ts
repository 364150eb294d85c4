/**
 * The source-edit journey (issue 22): on an empty canvas, start from
 * nf-core/demo 1.0.1, open its nested outline down to DEMO, select the
 * FASTQC call (its fully-qualified name and typed ports), replace it with
 * `qc.fastqc` through the operator picker, which offers it first as the
 * operator standing for the nf-core module (its contract's mapping), see it drawn as that native node, undo and redo the replacement,
 * then promote it: the canvas shows the native variant (ordinary nodes), a
 * banner naming its origin, and readiness with one requirement per
 * pipeline step no native node stands for. Undo goes back to the source,
 * redo promotes again. nf-co.re and the GitHub API are the loopback
 * stand-in serving the committed fixtures, as in source.e2e.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { node, readinessSettled } from "./canvas";
import type { Browser, Somite } from "./harness";
import { openBrowser, screenshot, startSomite } from "./harness";
import type { Providers } from "./providers";
import { startProviders } from "./providers";

const FASTQC = "NFCORE_DEMO:DEMO:FASTQC";

let providers: Providers;
let somite: Somite;
let browser: Browser;
let cache: string;

interface Replacement {
  invocation: string;
  operator_id: string;
  inputs: { invocation_port: string; operator_port: string }[];
  outputs: { invocation_port: string; operator_port: string }[];
}

interface Workflow {
  state_revision: string;
  document: {
    nodes: { id: string; operator_id: string; source?: unknown; replacements?: Replacement[] }[];
    edges: { id: string }[];
    notes: { id: string }[];
    variant_origin?: {
      repository: string;
      commit: string;
      promoted: { invocation: string; node_id: string; how: string }[];
      unrepresented: { invocation: string; process: string; reason: string }[];
    } | null;
  };
}

const workflow = () => somite.api<Workflow>("/api/workflow");
const replacements = async () => (await workflow()).document.nodes.find((n) => n.id === "source")?.replacements ?? [];

beforeAll(async () => {
  providers = await startProviders();
  cache = mkdtempSync(join(tmpdir(), "somite-e2e-cache-"));
  somite = await startSomite({ env: { ...providers.env, XDG_CACHE_HOME: cache, GITHUB_TOKEN: "" } });
  // A new project opens on the example workflow: clear it to an empty canvas, as a person would.
  const current = await workflow();
  await somite.api("/api/transactions", {
    base_state_revision: current.state_revision,
    idempotency_key: "e2e-source-edit-clear-canvas",
    summary: "Clear the canvas",
    operations: [
      ...current.document.edges.map((e) => ({ op: "disconnect", edge_id: e.id })),
      ...current.document.notes.map((n) => ({ op: "remove_note", note_id: n.id })),
      ...current.document.nodes.map((n) => ({ op: "remove_operator", node_id: n.id })),
    ],
  });
  browser = await openBrowser();
});

afterAll(async () => {
  await browser.close();
  await somite.stop();
  await providers.stop();
  rmSync(cache, { recursive: true, force: true });
});

test("replace FASTQC with qc.fastqc on the outline, undo and redo it, promote, and see the native variant with readiness", async () => {
  const { page } = browser;
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(somite.url);

  // 1. nf-core/demo 1.0.1 on the empty canvas (the journey of source.e2e.ts).
  const start = page.getByRole("region", { name: "Start from a pipeline" });
  await start.getByLabel("Search nf-core").fill("demo");
  const demo = start.locator('[data-repository="nf-core/demo"]');
  await demo.waitFor();
  await demo.getByLabel("Release of nf-core/demo").selectOption("1.0.1");
  await demo.getByRole("button", { name: "Use 1.0.1" }).click();
  const placed = node(page, "source");
  await placed.waitFor({ timeout: 30_000 });
  await readinessSettled(page);

  // 2. Down the nested outline to DEMO; select the FASTQC call.
  await placed.getByRole("button", { name: "Open outline" }).click();
  const outline = page.getByRole("dialog", { name: "Outline of nf-core/demo" });
  await outline.waitFor();
  const step = (label: string) => outline.locator(".outline-step", { has: page.locator(".outline-step__label", { hasText: new RegExp(`^${label}$`) }) });
  await step("NFCORE_DEMO").getByRole("button", { name: "Open" }).click();
  await step("DEMO").getByRole("button", { name: "Open" }).click();
  await step("FASTQC").click();
  const details = outline.locator(`[data-invocation="${FASTQC}"]`);
  await details.waitFor();
  expect(await details.locator(".outline-view__invocation-id").textContent()).toBe(FASTQC);
  // The call's typed ports: its reads input has a catalog port type.
  expect(await details.getByRole("list", { name: "Inputs of FASTQC" }).locator('[data-port="reads"] .tag').textContent()).toMatch(/^Fastq/);
  await screenshot(page, "source-edit-01-fastqc-selected");

  // 3. Replace with operator…: the picker offers qc.fastqc first, as the
  // operator standing for the nf-core module `fastqc`; its contract's
  // mapping is used, so no port table is shown.
  await details.getByRole("button", { name: "Replace with operator…" }).click();
  const picker = outline.getByRole("region", { name: "Replace FASTQC with an operator" });
  const offered = picker.locator('[data-operator="qc.fastqc"]');
  await expect.poll(async () => offered.textContent()).toContain("Stands for nf-core fastqc");
  await offered.click();
  const mapping = outline.getByRole("region", { name: "Map the ports of FASTQC to qc.fastqc" });
  expect(await mapping.textContent()).toContain("stands for the nf-core module fastqc");
  expect(await mapping.locator("table").count()).toBe(0);
  await screenshot(page, "source-edit-02-mapping");
  await mapping.getByRole("button", { name: "Replace FASTQC" }).click();
  await expect.poll(async () => (await replacements()).map((r) => [r.invocation, r.operator_id])).toEqual([[FASTQC, "qc.fastqc"]]);
  const replaced = outline.locator('.outline-step[data-outline-kind="replaced"][data-operator="qc.fastqc"]');
  await replaced.waitFor();
  expect(await replaced.locator(".outline-step__kind").textContent()).toBe("replaces FASTQC");
  await replaced.getByRole("button", { name: "Restore original" }).waitFor();
  await screenshot(page, "source-edit-03-replaced");

  // 4. Undo restores the call; redo replaces it again with the same mapping.
  await page.getByRole("button", { name: "Undo" }).click();
  await expect.poll(replacements).toEqual([]);
  await replaced.waitFor({ state: "detached" });
  expect(await step("FASTQC").getAttribute("data-outline-kind")).toBe("process");
  await page.getByRole("button", { name: "Redo" }).click();
  await expect
    .poll(async () => (await replacements()).map((r) => [r.operator_id, r.inputs.map((p) => `${p.invocation_port}>${p.operator_port}`)]))
    .toEqual([["qc.fastqc", ["reads>reads"]]]);
  await replaced.waitFor();

  // 5. Promote the replaced call: the source node gives way to the native variant.
  const promote = outline.getByRole("region", { name: "Replaced steps" });
  expect(await promote.getByRole("checkbox").isChecked()).toBe(true);
  await promote.getByRole("button", { name: "Promote to native variant" }).click();
  await outline.waitFor({ state: "detached", timeout: 30_000 });
  const variant = (await workflow()).document;
  const origin = variant.variant_origin;
  expect(origin?.repository).toBe("nf-core/demo");
  expect(origin?.commit).toBe("04060b4644d68649180db796e89a3db2a466a8d8");
  expect(origin?.promoted).toContainEqual({ invocation: FASTQC, node_id: "fastqc", how: "selected" });
  expect(variant.nodes.some((n) => n.source !== undefined && n.source !== null)).toBe(false);
  await node(page, "fastqc").waitFor();
  expect(await placed.count()).toBe(0);
  const banner = page.getByRole("region", { name: "Native variant" });
  await banner.waitFor();
  expect(await banner.textContent()).toContain("nf-core/demo@04060b4");
  expect(await banner.getByTestId("variant-promoted").textContent()).toContain("FASTQC → fastqc");

  // 6. Readiness as usual: one requirement per step no native node stands for.
  await readinessSettled(page);
  await page.getByRole("button", { name: /^Requirements/ }).click();
  const unrepresented = origin?.unrepresented ?? [];
  await expect.poll(() => page.locator(".requirement--unrepresented_source_step").count()).toBe(unrepresented.length);
  for (const step of unrepresented) {
    await page.locator(".requirement--unrepresented_source_step", { hasText: step.process }).waitFor();
    expect(await banner.textContent()).toContain(step.process);
  }
  if (unrepresented.length > 0) {
    expect(await page.locator('[data-testid="readiness-state"]').textContent()).toBe("Needs action");
  }
  await screenshot(page, "source-edit-04-variant");
  await page.getByRole("button", { name: "Close requirements" }).click();

  // 7. Undo goes back to the source with its replacement; redo promotes again.
  await page.getByRole("button", { name: "Undo" }).click();
  await placed.waitFor();
  await banner.waitFor({ state: "detached" });
  expect((await workflow()).document.variant_origin ?? null).toBeNull();
  expect((await replacements()).map((r) => r.operator_id)).toEqual(["qc.fastqc"]);
  await page.getByRole("button", { name: "Redo" }).click();
  await node(page, "fastqc").waitFor({ timeout: 30_000 });
  await banner.waitFor();
  expect(errors).toEqual([]);
});
