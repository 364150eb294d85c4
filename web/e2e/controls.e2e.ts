/**
 * The workflow controls against the real runtime: Compile and Export stay
 * disabled, with the reason, while readiness is blocked; once the inputs
 * are chosen, Compile shows the closure digest, the package path and the
 * Pixi lock status, and Export downloads the zip. Without Pixi on the
 * machine, Run and Validate show the runtime's `toolchain_missing` with its
 * recovery, and the graph is never labelled validated.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Browser, Somite } from "./harness";
import { openBrowser, screenshot, startSomite } from "./harness";
import { node, readinessSettled, requiredCount } from "./canvas";

interface Readiness {
  items: { id: string; kind: string }[];
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

const control = (browser: Browser, name: string) => browser.page.locator(`[data-control="${name}"]`);

test("compile shows the closure digest, export downloads the zip, run without Pixi says so", async () => {
  const { page } = browser;
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));

  await page.goto(somite.url);
  await node(page, "reads").waitFor();
  await readinessSettled(page);

  // 1. Blocked: every control is disabled and says why.
  expect(await requiredCount(page)).toBeGreaterThan(0);
  for (const name of ["compile", "run", "validate", "export"]) {
    await expect.poll(() => control(browser, name).isDisabled()).toBe(true);
    expect(await control(browser, name).getAttribute("data-reason")).toMatch(/requirements? open; next: Choose R1 FASTQ path/);
  }
  const compileTooltip = await page.locator(".control", { has: control(browser, "compile") }).getAttribute("title");
  expect(compileTooltip).toContain("Cannot compile");
  expect(await page.getByTestId("evidence-verdict").textContent()).toBe("Not validated");
  await screenshot(page, "controls-01-blocked");

  // 2. Choose the two input files in the inspector: the graph becomes ready.
  writeFileSync(join(somite.projectDir, "sample_R1.fastq"), "@r1\nACGT\n+\nIIII\n");
  writeFileSync(join(somite.projectDir, "sample_R2.fastq"), "@r2\nTGCA\n+\nIIII\n");
  await node(page, "reads").click();
  for (const [label, file] of [["R1 FASTQ path", "sample_R1.fastq"], ["R2 FASTQ path", "sample_R2.fastq"]] as const) {
    const field = page.getByLabel(label);
    await field.fill(file);
    await field.press("Enter");
  }
  await expect.poll(() => requiredCount(page)).toBe(0);
  await readinessSettled(page);
  await expect.poll(() => control(browser, "compile").isEnabled()).toBe(true);
  await expect.poll(() => control(browser, "export").isEnabled()).toBe(true);

  // 3. Compile: the closure digest, the package path and the Pixi lock status.
  await control(browser, "compile").click();
  const digest = page.getByTestId("closure-digest");
  await digest.waitFor();
  const digestText = (await digest.textContent()) ?? "";
  expect(digestText).toMatch(/^blake3:[0-9a-f]{64}$/);
  expect(await page.getByTestId("package-path").textContent()).toBe(`.somite/compiled/${digestText.slice("blake3:".length)}`);
  const readiness = await somite.api<Readiness>("/api/readiness");
  const pixiMissing = readiness.items.some((i) => i.id === "toolchain:pixi");
  expect(await page.getByTestId("pixi-status").getAttribute("data-pixi")).toBe(pixiMissing ? "unavailable" : "locked");
  // A compiled graph is not a validated one.
  expect(await page.getByTestId("evidence-verdict").getAttribute("data-validated")).toBe("false");
  expect(await page.getByTestId("evidence-verdict").textContent()).toBe("Not validated");
  await screenshot(page, "controls-02-compiled");

  // 4. Export: a zip download, non-empty, named after the workflow.
  const [download] = await Promise.all([page.waitForEvent("download"), control(browser, "export").click()]);
  expect(download.suggestedFilename()).toMatch(/^[a-z0-9-]+-[0-9a-f]{12}\.zip$/);
  const path = await download.path();
  const bytes = readFileSync(path);
  expect(bytes.byteLength).toBeGreaterThan(100);
  expect([...bytes.subarray(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]);
  await page.getByTestId("export-result").getByText(download.suggestedFilename()).waitFor();
  await screenshot(page, "controls-03-exported");

  // 5. Run and Validate: without Pixi the runtime refuses with toolchain_missing and its recovery.
  if (pixiMissing) {
    const runTooltip = await page.locator(".control", { has: control(browser, "run") }).getAttribute("title");
    expect(runTooltip).toContain("toolchain_missing");
    await control(browser, "run").click();
    const failure = page.getByTestId("run-result").locator('.failure[data-code="toolchain_missing"]');
    await failure.waitFor();
    expect(await failure.textContent()).toMatch(/pixi.*not installed/i);
    expect(await failure.locator(".failure__recovery").textContent()).toMatch(/install Pixi/i);
    await screenshot(page, "controls-04-run-toolchain-missing");

    await control(browser, "validate").click();
    await page.getByTestId("run-result").locator('.failure[data-code="toolchain_missing"]').waitFor();
    await expect.poll(() => page.getByTestId("run-result").getAttribute("aria-label")).toBe("Validation");
    expect(await page.getByTestId("evidence-verdict").getAttribute("data-validated")).toBe("false");
    expect(await page.getByTestId("evidence-detail").textContent()).toContain("No evidence receipt for this graph revision");
    await screenshot(page, "controls-05-validate-toolchain-missing");
  } else {
    console.log("controls journey: Pixi is installed here, so the toolchain_missing step was not exercised");
  }

  expect(errors).toEqual([]);
});
