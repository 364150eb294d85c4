/**
 * The core editing journey: open the example workflow, add two operators
 * from the palette, connect them, see an incompatible connection refused
 * with its reason, set parameters (a refused value and a good one), watch
 * readiness change, then undo and redo.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Browser, Somite } from "./harness";
import { openBrowser, screenshot, startSomite } from "./harness";
import { dragConnection, handle, node, readinessSettled, requiredCount, searchPalette } from "./canvas";

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

test("edit a workflow on the canvas, with typed ports, readiness and undo", async () => {
  const { page } = browser;
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));

  await page.goto(somite.url);
  await node(page, "reads").waitFor();
  await readinessSettled(page);
  await expect.poll(() => page.locator(".op-node__name", { hasText: "fastp" }).count()).toBe(1);
  await screenshot(page, "editing-01-opened");

  // 1. Add Kraken2 by dragging it from the palette onto the canvas.
  await searchPalette(page, "kraken");
  await screenshot(page, "editing-02-palette-search");
  const canvas = page.locator(".react-flow__pane");
  const paneBox = await canvas.boundingBox();
  if (!paneBox) throw new Error("no canvas");
  await page
    .locator(".palette-item", { hasText: "classify reads taxonomically" })
    .dragTo(canvas, { targetPosition: { x: paneBox.width * 0.8, y: paneBox.height * 0.14 } });
  await node(page, "kraken2").waitFor();

  // 2. Add the database import with a click (placed in view).
  await searchPalette(page, "kraken2 database");
  await page.locator(".palette-item", { hasText: "Use a local Kraken2 database" }).click();
  await node(page, "import_kraken2_database").waitFor();
  await page.getByRole("button", { name: "Fit View" }).click();
  await page.waitForTimeout(300);
  await readinessSettled(page);
  const withNewNodes = await requiredCount(page);

  // 3. Connect reads.r1 → kraken2.r1.
  await dragConnection(page, handle(page, "reads", "out:r1"), handle(page, "kraken2", "in:r1"));
  await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(4);

  // 4. An incompatible connection is refused at the handle, with the reason.
  const release = await dragConnection(page, handle(page, "reads", "out:r2"), handle(page, "kraken2", "in:db"), { hold: true });
  const label = page.locator(".connection-line__label");
  await expect.poll(() => label.textContent()).toBe("port `db` accepts Directory, not Fastq");
  await screenshot(page, "editing-03-refused-while-dragging");
  await release();
  await page.locator(".notice", { hasText: "Connection refused" }).waitFor();
  expect(await page.locator(".react-flow__edge").count()).toBe(4);
  await screenshot(page, "editing-04-refused-notice");

  // 5. The right provider connects.
  await dragConnection(page, handle(page, "import_kraken2_database", "out:db"), handle(page, "kraken2", "in:db"));
  await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(5);
  await readinessSettled(page);
  expect(await requiredCount(page)).toBe(withNewNodes - 2);

  // 6. Parameters: a value out of range is refused in place; a good one is saved.
  await node(page, "kraken2").click();
  const confidence = page.getByLabel("Confidence threshold");
  await confidence.fill("5");
  await confidence.press("Enter");
  await page.locator(".field__error", { hasText: "must be between 0 and 1" }).waitFor();
  await screenshot(page, "editing-05-parameter-refused");
  await confidence.fill("0.1");
  await confidence.press("Enter");
  await expect.poll(() => page.locator(".field__error").count()).toBe(0);
  await expect.poll(() => page.getByLabel("Confidence threshold").inputValue()).toBe("0.1");

  // 7. Choosing an input file that exists resolves a readiness requirement.
  writeFileSync(join(somite.projectDir, "sample_R1.fastq"), "@r1\nACGT\n+\nIIII\n");
  const before = await requiredCount(page);
  await page.getByRole("button", { name: /^Requirements/ }).click();
  const requirement = page.locator(".requirement", { hasText: "Choose R1 FASTQ path for reads" });
  await screenshot(page, "editing-06-requirements");
  await requirement.getByRole("button", { name: "Choose file" }).click();
  const r1 = page.getByLabel("R1 FASTQ path");
  await expect.poll(() => r1.evaluate((el) => el === document.activeElement)).toBe(true);
  await r1.fill("sample_R1.fastq");
  await r1.press("Enter");
  await expect.poll(() => requiredCount(page)).toBe(before - 1);
  await readinessSettled(page);
  await screenshot(page, "editing-07-readiness-changed");

  // 8. Undo reverses that one edit; redo applies it again.
  await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
  await page.getByRole("button", { name: "Undo" }).click();
  await expect.poll(() => requiredCount(page)).toBe(before);
  const workflow = await somite.api<{ document: { nodes: { id: string; params: Record<string, unknown> }[] } }>("/api/workflow");
  expect(workflow.document.nodes.find((n) => n.id === "reads")?.params).toEqual({});
  await screenshot(page, "editing-08-undone");
  await page.keyboard.press("Control+Shift+Z");
  await expect.poll(() => requiredCount(page)).toBe(before - 1);
  await page.getByRole("button", { name: "History" }).click();
  await screenshot(page, "editing-09-redone-history");

  expect(errors).toEqual([]);
});
