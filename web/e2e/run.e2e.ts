/**
 * Run, Cancel and Validate against the real runtime and run supervisor.
 *
 * Pixi and Nextflow cannot be installed on the test machines, so the
 * runtime is pointed (`SOMITE_PIXI`) at the runner's STAND-IN for them,
 * which follows their process contract (trace rows, outputs, exit codes,
 * SIGTERM) without running tools; everything from the browser through the
 * supervisor, trace parsing and evidence receipts is production code. Slow
 * steps (`SOMITE_STANDIN_STEP_MS`) make the running state observable: the
 * progress bar, the per-node states on the canvas, and Cancel.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Browser, Somite } from "./harness";
import { openBrowser, pixiStandin, screenshot, startSomite } from "./harness";
import { node, readinessSettled, requiredCount } from "./canvas";

let somite: Somite;
let browser: Browser;
let toolDir: string;

beforeAll(async () => {
  toolDir = mkdtempSync(join(tmpdir(), "somite-e2e-pixi-"));
  somite = await startSomite({ pixi: pixiStandin(toolDir, { SOMITE_STANDIN_STEP_MS: "700" }) });
  browser = await openBrowser();
});

afterAll(async () => {
  await browser.close();
  await somite.stop();
  rmSync(toolDir, { recursive: true, force: true });
});

const control = (name: string) => browser.page.locator(`[data-control="${name}"]`);
const phase = () => browser.page.getByTestId("run-phase").textContent();
const verdict = () => browser.page.getByTestId("evidence-verdict");

test("a run shows progress and node states and can be cancelled; a passed validation is the only evidence", async () => {
  const { page } = browser;
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));

  await page.goto(somite.url);
  await node(page, "reads").waitFor();
  writeFileSync(join(somite.projectDir, "sample_R1.fastq"), "@r1\nACGT\n+\nIIII\n");
  writeFileSync(join(somite.projectDir, "sample_R2.fastq"), "@r2\nTGCA\n+\nIIII\n");
  await node(page, "reads").click();
  for (const [label, file] of [["R1 FASTQ path", "sample_R1.fastq"], ["R2 FASTQ path", "sample_R2.fastq"]] as const) {
    await page.getByLabel(label).fill(file);
    await page.getByLabel(label).press("Enter");
  }
  await expect.poll(() => requiredCount(page)).toBe(0);
  await readinessSettled(page);
  await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });

  // 1. Run: the progress bar and the per-node states on the canvas move while it runs.
  await expect.poll(() => control("run").isEnabled()).toBe(true);
  await control("run").click();
  await expect.poll(phase, { timeout: 30_000 }).toBe("Running");
  await page.locator('.react-flow__node [data-run-state="running"]').first().waitFor({ timeout: 30_000 });
  expect(await control("validate").getAttribute("data-reason")).toContain("A run is in progress");
  await screenshot(page, "run-01-running");

  // 2. Cancel it: the supervisor stops the process group; the run ends cancelled.
  await page.getByTestId("run-result").getByRole("button", { name: "Cancel" }).click();
  await expect.poll(phase, { timeout: 30_000 }).toBe("Cancelled");
  expect(await page.locator('.react-flow__node [data-run-state="running"]').count()).toBe(0);
  expect(await verdict().getAttribute("data-validated")).toBe("false");
  await screenshot(page, "run-02-cancelled");

  // 3. Run again to the end: every node done, the bar full — and still not validated.
  await control("run").click();
  await expect.poll(phase, { timeout: 45_000 }).toBe("Completed");
  const bar = page.getByRole("progressbar", { name: "Run progress" });
  expect(await bar.getAttribute("aria-valuenow")).toBe(await bar.getAttribute("aria-valuemax"));
  await expect.poll(() => page.locator('.react-flow__node [data-run-state="done"], .react-flow__node [data-run-state="cached"]').count()).toBeGreaterThan(0);
  expect(await verdict().textContent()).toBe("Not validated");
  await screenshot(page, "run-03-completed-not-validated");

  // 4. Validate: its receipt, verified by the runtime, is what makes the graph validated.
  await control("validate").click();
  await expect.poll(phase, { timeout: 45_000 }).toBe("Completed");
  await expect.poll(() => verdict().getAttribute("data-validated"), { timeout: 10_000 }).toBe("true");
  expect(await verdict().textContent()).toBe("Validated");
  const evidence = await somite.api<{ validated: boolean; receipts: { result: string }[] }>("/api/evidence");
  expect(evidence.validated).toBe(true);
  expect(evidence.receipts.map((r) => r.result)).toContain("passed");
  await screenshot(page, "run-04-validated");

  // 5. Any edit that changes the graph makes it a graph nobody validated.
  await page.getByRole("button", { name: "Close runs and packages" }).click();
  await node(page, "trim").click();
  const field = page.getByLabel("Threads");
  await field.fill("3");
  await field.press("Enter");
  await expect.poll(() => verdict().textContent(), { timeout: 10_000 }).toBe("Not validated");
  expect(await page.locator(".react-flow__node [data-run-state]").count()).toBe(0);
  await screenshot(page, "run-05-edited-not-validated");

  expect(errors).toEqual([]);
});
