/**
 * The source-workflow journey: on an empty canvas, start from nf-core/demo
 * (searched in the nf-core catalog, release 1.0.1 picked), see the pinned
 * node, open its read-only nested outline down to the processes, set the
 * required `input` and `outdir` in the form generated from the pipeline's
 * schema (a value the schema's pattern refuses first), and watch readiness
 * turn ready. nf-co.re and the GitHub API are a loopback stand-in serving
 * the committed fixtures; the runtime's user cache is a fresh folder.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { node, readinessSettled, requiredCount } from "./canvas";
import type { Browser, Somite } from "./harness";
import { openBrowser, screenshot, startSomite } from "./harness";
import type { Providers } from "./providers";
import { startProviders } from "./providers";

let providers: Providers;
let somite: Somite;
let browser: Browser;
let cache: string;

interface Workflow {
  state_revision: string;
  document: { nodes: { id: string }[]; edges: { id: string }[]; notes: { id: string }[] };
}

beforeAll(async () => {
  providers = await startProviders();
  cache = mkdtempSync(join(tmpdir(), "somite-e2e-cache-"));
  somite = await startSomite({ env: { ...providers.env, XDG_CACHE_HOME: cache, GITHUB_TOKEN: "" } });
  // A new project opens on the example workflow: clear it to an empty canvas, as a person would.
  const workflow = await somite.api<Workflow>("/api/workflow");
  await somite.api("/api/transactions", {
    base_state_revision: workflow.state_revision,
    idempotency_key: "e2e-source-clear-canvas",
    summary: "Clear the canvas",
    operations: [
      ...workflow.document.edges.map((e) => ({ op: "disconnect", edge_id: e.id })),
      ...workflow.document.notes.map((n) => ({ op: "remove_note", note_id: n.id })),
      ...workflow.document.nodes.map((n) => ({ op: "remove_operator", node_id: n.id })),
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

test("start from nf-core/demo, open its outline, set input and outdir, and readiness turns ready", async () => {
  const { page } = browser;
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(somite.url);

  // 1. The empty canvas offers a pipeline; search nf-core for it.
  const start = page.getByRole("region", { name: "Start from a pipeline" });
  await start.waitFor();
  await start.getByLabel("Search nf-core").fill("demo");
  const demo = start.locator('[data-repository="nf-core/demo"]');
  await demo.waitFor();
  await expect.poll(() => start.locator(".start-source__catalog").getAttribute("data-origin")).toBe("fetched");
  await screenshot(page, "source-01-search");

  // 2. Pick release 1.0.1 and resolve: one transaction places the pinned node.
  await demo.getByLabel("Release of nf-core/demo").selectOption("1.0.1");
  await demo.getByRole("button", { name: "Use 1.0.1" }).click();
  const placed = node(page, "source");
  await placed.waitFor({ timeout: 30_000 });
  expect(await placed.locator('[data-pin="release"]').textContent()).toBe("1.0.1");
  expect(await placed.locator('[data-pin="commit"]').textContent()).toBe("04060b4");
  expect(await placed.locator('[data-pin="tree"]').getAttribute("title")).toMatch(/^blake3:[0-9a-f]{64}$/);
  expect(await start.count()).toBe(0);
  expect(providers.requests).toContain("GET /repos/nf-core/demo/tarball/04060b4644d68649180db796e89a3db2a466a8d8");
  await readinessSettled(page);
  await screenshot(page, "source-02-placed");

  // 3. Open the read-only nested outline and go down to the processes.
  await placed.getByRole("button", { name: "Open outline" }).click();
  const outline = page.getByRole("dialog", { name: "Outline of nf-core/demo" });
  await outline.waitFor();
  const step = (label: string) => outline.locator(".outline-step", { has: page.locator(".outline-step__label", { hasText: new RegExp(`^${label}$`) }) });
  await step("NFCORE_DEMO").waitFor();
  expect(await outline.locator(".react-flow__edge").count()).toBeGreaterThan(0);
  await step("NFCORE_DEMO").getByRole("button", { name: "Open" }).click();
  await step("DEMO").getByRole("button", { name: "Open" }).click();
  await step("FASTQC").waitFor();
  expect(await step("MULTIQC").getAttribute("data-outline-kind")).toBe("process");
  await expect.poll(() => outline.locator('.react-flow__edge[aria-label*="MULTIQC"]').count()).toBeGreaterThan(0);
  await step("FASTQC").click();
  await outline.getByText("modules/nf-core/fastqc/environment.yml").waitFor();
  await screenshot(page, "source-03-outline");
  await outline.getByRole("button", { name: "Close the outline" }).click();
  await outline.waitFor({ state: "detached" });

  // 4. The parameters form comes from the schema: a refused value first, then good ones.
  await placed.locator(".op-node__header").click();
  const form = page.getByRole("region", { name: "Pipeline parameters" });
  await form.waitFor();
  expect(await page.locator(".need", { hasText: "input" }).count()).toBeGreaterThan(0);
  expect(await requiredCount(page)).toBe(2);
  const input = form.locator('input[name="input"]');
  await input.fill("samples.tsv");
  await input.press("Enter");
  await form.locator('[data-param="input"] .field__error', { hasText: "must match" }).waitFor();
  writeFileSync(join(somite.projectDir, "samplesheet.csv"), "sample,fastq_1,fastq_2\nS1,s1_R1.fastq.gz,s1_R2.fastq.gz\n");
  await input.fill("samplesheet.csv");
  await input.press("Enter");
  const outdir = form.locator('input[name="outdir"]');
  await outdir.fill("results");
  await outdir.press("Enter");
  await expect
    .poll(async () => (await somite.api<{ document: { nodes: { params: Record<string, unknown> }[] } }>("/api/workflow")).document.nodes[0]?.params)
    .toEqual({ input: "samplesheet.csv", outdir: "results" });

  // 5. Readiness turns ready.
  await expect.poll(() => requiredCount(page), { timeout: 15_000 }).toBe(0);
  await readinessSettled(page);
  await expect.poll(() => page.locator('[data-testid="readiness-state"]').textContent(), { timeout: 15_000 }).toBe("Ready to run");
  await placed.locator('[aria-label="ready"]').waitFor();
  await screenshot(page, "source-04-ready");
  expect(errors).toEqual([]);
});
