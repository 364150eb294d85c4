/**
 * The Agent panel's layout at the two window sizes people use: docked beside
 * the inspector, nothing in it wider than the panel (the bundled registry's
 * reason names a long URL; a custom command holds a long token), resizable
 * by keyboard and by dragging its edge with the canvas taking what the panel
 * gives up, and the width remembered across a reload.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Page } from "playwright-core";
import type { Browser, Somite } from "./harness";
import { openBrowser, screenshot, startSomite } from "./harness";
import { node } from "./canvas";

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

interface Layout {
  readonly dock: number;
  readonly canvas: number;
  /** The handle's aria-valuenow. */
  readonly announced: number;
  /** Elements of the panel that reach past its right edge, and by how much. */
  readonly overflowing: readonly string[];
  /** How far the page itself is wider than the window. */
  readonly pageOverflow: number;
}

async function layout(page: Page): Promise<Layout> {
  return page.evaluate(() => {
    const dock = document.getElementById("agent-panel");
    const canvas = document.querySelector(".canvas");
    const handle = document.querySelector('[role="separator"][aria-controls="agent-panel"]');
    if (!dock || !canvas || !handle) throw new Error("no agent dock, canvas or resize handle");
    const edge = dock.getBoundingClientRect().right;
    const overflowing: string[] = [];
    if (edge > window.innerWidth + 0.5) overflowing.push(`the dock by ${String(edge - window.innerWidth)} px`);
    for (const element of dock.querySelectorAll("*")) {
      const box = element.getBoundingClientRect();
      if (box.width > 0 && box.right > edge + 0.5) overflowing.push(`${element.tagName.toLowerCase()}.${element.className} by ${String(box.right - edge)} px`);
      if (element.scrollWidth > element.clientWidth + 1 && getComputedStyle(element).overflowX === "visible") {
        overflowing.push(`${element.tagName.toLowerCase()}.${element.className} spills ${String(element.scrollWidth - element.clientWidth)} px`);
      }
    }
    return {
      dock: dock.getBoundingClientRect().width,
      canvas: canvas.getBoundingClientRect().width,
      announced: Number(handle.getAttribute("aria-valuenow")),
      overflowing,
      pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
    };
  });
}

/** The handle's aria-valuenow follows the width on screen (a resize observer reports it a frame later). */
async function announcesItsWidth(page: Page): Promise<void> {
  await expect.poll(async () => {
    const { announced, dock } = await layout(page);
    return announced - Math.round(dock);
  }).toBe(0);
}

const LONG_TOKEN = `--registry=https://registry.example.invalid/${"agents/v1/".repeat(12)}latest/registry.json`;

test("the Agent panel fits beside the inspector at 1600×900 and 1280×800, resizes, and remembers its width", async () => {
  const { page } = browser;
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));

  // 1600×900: the panel open with the launcher list, whose registry line names a long URL.
  await page.setViewportSize({ width: 1600, height: 900 });
  await page.goto(somite.url);
  await node(page, "reads").waitFor();
  await page.getByRole("button", { name: "Agent", exact: true }).click();
  const panel = page.getByRole("complementary", { name: "Agent" });
  await panel.locator(".launcher").first().waitFor();
  await panel.locator(".launchers__origin").waitFor();
  // A custom command with a token far wider than the panel.
  await panel.locator('[data-launcher="custom"]').click();
  await panel.getByLabel(/Command — one argument per line/).fill(`/usr/local/bin/agent\n${LONG_TOKEN}`);
  await panel.getByTestId("command-preview").getByText(LONG_TOKEN).waitFor();

  const wide = await layout(page);
  expect(wide.overflowing).toEqual([]);
  expect(wide.pageOverflow).toBe(0);
  expect(wide.dock).toBeGreaterThanOrEqual(300);
  expect(wide.dock).toBeLessThanOrEqual(720);
  await announcesItsWidth(page);
  await screenshot(page, "layout-01-agent-1600");

  // The keyboard: End gives the widest panel, taken from the canvas.
  const handle = page.getByRole("separator", { name: "Agent panel width" });
  await handle.focus();
  await page.keyboard.press("End");
  await expect.poll(async () => (await layout(page)).dock).toBe(720);
  const widest = await layout(page);
  expect(widest.canvas).toBeCloseTo(wide.canvas - (720 - wide.dock), 0);
  await announcesItsWidth(page);
  expect(widest.overflowing).toEqual([]);
  await page.keyboard.press("ArrowRight");
  await expect.poll(async () => (await layout(page)).dock).toBe(704);

  // The pointer: dragging the edge 200 px to the right gives the canvas 200 px.
  const box = await handle.boundingBox();
  if (!box) throw new Error("the resize handle is not visible");
  const before = await layout(page);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 100, box.y + box.height / 2, { steps: 5 });
  await page.mouse.move(box.x + box.width / 2 + 200, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  await expect.poll(async () => (await layout(page)).dock).toBe(before.dock - 200);
  const dragged = await layout(page);
  expect(dragged.canvas).toBeCloseTo(before.canvas + 200, 0);
  expect(dragged.overflowing).toEqual([]);
  await screenshot(page, "layout-02-agent-1600-resized");

  // Remembered: after a reload the panel opens at the width it was left at.
  await page.reload();
  await node(page, "reads").waitFor();
  await page.getByRole("button", { name: "Agent", exact: true }).click();
  await panel.locator(".launcher").first().waitFor();
  expect((await layout(page)).dock).toBe(dragged.dock);

  // 1280×800: the remembered 504 px does not fit beside a 320 px canvas, so
  // the panel stops short of it and the canvas keeps its minimum.
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect.poll(async () => (await layout(page)).canvas).toBe(320);
  const narrow = await layout(page);
  expect(narrow.overflowing).toEqual([]);
  expect(narrow.pageOverflow).toBe(0);
  expect(narrow.dock).toBeGreaterThanOrEqual(300);
  expect(narrow.dock).toBeLessThan(dragged.dock);
  await announcesItsWidth(page);
  // Home gives the narrowest panel, and the canvas grows by as much.
  await handle.focus();
  await page.keyboard.press("Home");
  await expect.poll(async () => (await layout(page)).dock).toBe(300);
  const narrowest = await layout(page);
  expect(narrowest.canvas).toBeCloseTo(narrow.canvas + (narrow.dock - 300), 0);
  expect(narrowest.overflowing).toEqual([]);
  await panel.locator('[data-launcher="custom"]').click();
  await panel.getByLabel(/Command — one argument per line/).fill(`/usr/local/bin/agent\n${LONG_TOKEN}`);
  await panel.getByTestId("command-preview").getByText(LONG_TOKEN).waitFor();
  expect((await layout(page)).overflowing).toEqual([]);
  await screenshot(page, "layout-03-agent-1280-narrowest");

  expect(errors).toEqual([]);
});
