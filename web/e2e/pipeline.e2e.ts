/**
 * A real pipeline with a container-only step: nf-core/nanoseq 3.1.0 (from the
 * trimmed corpus, served by the loopback nf-co.re/GitHub stand-in) runs
 * DEEPVARIANT only when variant calling with DeepVariant is asked for, and
 * DEEPVARIANT declares a container and no Conda environment. The journey
 * resolves it, opens the requirements and sees the step explained — why it
 * has no Pixi environment, when the pipeline reaches it, that the current
 * parameters do not — under "For information", not blocking; then it turns
 * variant calling on and sees the step become required, and settles it with
 * the step's own container.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { node, readinessSettled, requiredCount } from "./canvas";
import type { Browser, Somite } from "./harness";
import { openBrowser, screenshot, startSomite } from "./harness";
import type { Providers } from "./providers";
import { CORPUS, startProviders } from "./providers";

let providers: Providers;
let somite: Somite;
let browser: Browser;
let cache: string;

interface Workflow {
  state_revision: string;
  document: { nodes: { id: string; params: Record<string, unknown> }[]; edges: { id: string }[]; notes: { id: string }[] };
}

async function edit(operations: unknown[], key: string): Promise<void> {
  const workflow = await somite.api<Workflow>("/api/workflow");
  await somite.api("/api/transactions", {
    base_state_revision: workflow.state_revision,
    idempotency_key: key,
    summary: key,
    operations,
  });
}

beforeAll(async () => {
  providers = await startProviders(CORPUS);
  cache = mkdtempSync(join(tmpdir(), "somite-e2e-cache-"));
  somite = await startSomite({ env: { ...providers.env, XDG_CACHE_HOME: cache, GITHUB_TOKEN: "" } });
  const workflow = await somite.api<Workflow>("/api/workflow");
  await edit(
    [
      ...workflow.document.edges.map((e) => ({ op: "disconnect", edge_id: e.id })),
      ...workflow.document.notes.map((n) => ({ op: "remove_note", note_id: n.id })),
      ...workflow.document.nodes.map((n) => ({ op: "remove_operator", node_id: n.id })),
    ],
    "e2e-pipeline-clear-canvas",
  );
  const empty = await somite.api<Workflow>("/api/workflow");
  await somite.api("/api/source/nfcore/resolve", {
    pipeline: "nanoseq",
    release: "3.1.0",
    base_state_revision: empty.state_revision,
    idempotency_key: "e2e-pipeline-resolve",
  });
  writeFileSync(join(somite.projectDir, "samplesheet.csv"), "group,replicate,barcode,input_file,fasta,gtf\n");
  await edit(
    [
      { op: "set_param", node_id: "source", param: "input", value: "samplesheet.csv" },
      { op: "set_param", node_id: "source", param: "outdir", value: "results" },
      { op: "set_param", node_id: "source", param: "protocol", value: "DNA" },
    ],
    "e2e-pipeline-inputs",
  );
  browser = await openBrowser();
});

afterAll(async () => {
  await browser.close();
  await somite.stop();
  await providers.stop();
  rmSync(cache, { recursive: true, force: true });
});

test("a container-only step is explained with its conditions, blocks only when reached, and takes its container", async () => {
  const { page } = browser;
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(somite.url);
  await node(page, "source").waitFor({ timeout: 30_000 });
  await readinessSettled(page);

  // Not reached with the defaults: listed for information, nothing required.
  await page.getByRole("button", { name: /^Requirements \(/ }).click();
  const panel = page.getByRole("region", { name: "Requirements" });
  const step = panel.locator('[data-item="process_environment:source:DEEPVARIANT"]');
  await step.waitFor();
  expect(await step.locator(".requirement__title").textContent()).toBe("DEEPVARIANT runs only in a container");
  expect(await step.locator(".requirement__detail").textContent()).toContain("google/deepvariant");
  expect(await step.locator('[data-testid="reach"] .reach__state').textContent()).toBe("Not reached with the current parameters");
  expect(await step.locator(".reach__conditions li").count()).toBeGreaterThan(0);
  const informational = panel.locator(".requirements__group", { hasText: "For information" });
  await informational.waitFor();
  expect(await requiredCount(page)).toBe(0);
  await expect.poll(() => page.locator('[data-testid="readiness-state"]').textContent(), { timeout: 15_000 }).toBe("Ready to run");
  await screenshot(page, "pipeline-01-not-reached");

  // Ask for DeepVariant: the step is reached now, and required.
  await edit(
    [
      { op: "set_param", node_id: "source", param: "call_variants", value: true },
      { op: "set_param", node_id: "source", param: "variant_caller", value: "deepvariant" },
    ],
    "e2e-pipeline-deepvariant",
  );
  await expect.poll(() => step.locator('[data-testid="reach"] .reach__state').textContent(), { timeout: 15_000 }).toBe(
    "Reached with the current parameters",
  );
  await expect.poll(() => requiredCount(page), { timeout: 15_000 }).toBeGreaterThan(0);
  await screenshot(page, "pipeline-02-reached");

  // Run it in its declared container: the requirement is met.
  await step.getByRole("button", { name: "Use its container" }).click();
  await step.waitFor({ state: "detached", timeout: 15_000 });
  const source = (await somite.api<{ document: { nodes: { process_environments?: unknown[] }[] } }>("/api/workflow")).document.nodes[0];
  expect(source?.process_environments).toEqual([{ process: "DEEPVARIANT", choice: { use: "container" } }]);
  await screenshot(page, "pipeline-03-container");
  expect(errors).toEqual([]);
});
