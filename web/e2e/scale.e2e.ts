/**
 * Time to first render of a 500-node graph: the graph is seeded through
 * ordinary transactions (64 operations at most each), then the workspace is
 * opened and timed from navigation until every node is measured (the
 * minimap draws a node once it is); fitted, 500 nodes are too small to read
 * and render compact (see src/canvas/detail.ts).
 *
 * The figure is taken in a browser that is already running, as a person's
 * is: the first navigation of a just-started headless Chromium spends up to
 * ~300 ms setting up its own network stack and cache before it even asks for
 * the page (its navigation timing shows the gap before the connection),
 * which no page can change. The browser has been to the runtime's health
 * endpoint first, so nothing of the workspace is in its cache. The figure in
 * a just-started browser (started, like the first, before the graph is
 * seeded, and not used until it is timed) is printed too, as earlier runs
 * took it. Then the graph grows to 2,000 nodes,
 * where the canvas renders only what is on screen, and zooming in and
 * selecting a node are timed. The figures are printed; the tests fail only
 * far above them, or when a large graph keeps off-screen nodes in the page.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Page } from "playwright-core";
import type { Browser, Somite } from "./harness";
import { openBrowser, screenshot, startSomite } from "./harness";

const NODES = 500;
const LARGE = 2_000;
const COLUMNS = 25;
/** A generous ceiling for a 2-core CI machine; the printed figure is the measure. */
const CEILING_MS = 15_000;

let somite: Somite;
let browser: Browser;
let justStarted: Browser | undefined;

beforeAll(async () => {
  somite = await startSomite();
  browser = await openBrowser();
  // Started, and once used (see the module docs).
  await browser.page.goto(`${somite.url}/api/health`);
  justStarted = await openBrowser();
});

afterAll(async () => {
  await justStarted?.close();
  await browser.close();
  await somite.stop();
});

test(`first render of a ${String(NODES)}-node graph`, async () => {
  const seeded = await seed(somite, NODES);
  expect(seeded).toBeGreaterThanOrEqual(NODES);

  if (!justStarted) throw new Error("no second browser");
  const justStartedMs = await firstRender(justStarted.page, seeded);
  await justStarted.close();
  justStarted = undefined;
  const firstRenderMs = await firstRender(browser.page, seeded);
  await screenshot(browser.page, "scale-500-nodes");
  console.log(`first render of a ${String(seeded)}-node graph: ${String(firstRenderMs)} ms (navigation start to all nodes measured)`);
  console.log(`first render of a ${String(seeded)}-node graph in a just-started browser: ${String(justStartedMs)} ms (navigation start to all nodes measured)`);
  expect(firstRenderMs).toBeLessThan(CEILING_MS);
  expect(justStartedMs).toBeLessThan(CEILING_MS);
});

test(`a ${String(LARGE)}-node graph renders only what is on screen`, async () => {
  const seeded = await seed(somite, LARGE);
  const { page } = browser;
  const firstRenderMs = await firstRender(page, seeded);
  console.log(`first render of a ${String(seeded)}-node graph: ${String(firstRenderMs)} ms (navigation start to all nodes measured)`);

  // Zoom in from the fitted view around the canvas's centre: ten wheel
  // steps, each re-rendering what comes on screen.
  const pane = await page.locator(".react-flow__pane").boundingBox();
  if (!pane) throw new Error("no canvas pane");
  await page.mouse.move(pane.x + pane.width / 2, pane.y + pane.height / 2);
  const zoomStart = await now();
  for (let step = 0; step < 10; step += 1) await page.mouse.wheel(0, -300);
  const zoomMs = Math.round((await settled()) - zoomStart);
  const inPage = await page.locator(".react-flow__node").count();
  console.log(`interaction on a ${String(seeded)}-node graph: 10 wheel zoom steps in ${String(zoomMs)} ms; ${String(inPage)} of ${String(seeded)} nodes in the page`);
  expect(inPage).toBeLessThan(seeded / 2);

  // Selecting a node whose centre (where the click lands) is on screen;
  // zoomed in this far a node may be larger than the pane.
  const id = await page.evaluate(() => {
    const paneRect = document.querySelector(".react-flow__pane")?.getBoundingClientRect();
    if (!paneRect) return null;
    for (const element of document.querySelectorAll<HTMLElement>(".react-flow__node")) {
      const box = element.getBoundingClientRect();
      const x = (box.left + box.right) / 2;
      const y = (box.top + box.bottom) / 2;
      const inside = x > paneRect.left && x < paneRect.right && y > paneRect.top && y < paneRect.bottom;
      if (inside) return element.dataset.id ?? null;
    }
    return null;
  });
  if (!id) throw new Error("no node centred on screen after zooming in");
  const node = page.locator(`.react-flow__node[data-id="${id}"]`);
  const selectStart = await now();
  await node.click();
  await expect.poll(async () => node.getAttribute("class")).toContain("selected");
  const selectMs = Math.round((await settled()) - selectStart);
  console.log(`interaction on a ${String(seeded)}-node graph: selecting a node in ${String(selectMs)} ms`);
  await screenshot(page, "scale-2000-nodes-zoomed");
  expect(zoomMs + selectMs).toBeLessThan(CEILING_MS);
}, 180_000);

/**
 * Opens the workspace; milliseconds from navigation until `count` nodes are
 * measured. The moment is taken by the page itself, on the first animation
 * frame where it holds, so the figure does not include how long the test
 * driver takes to start looking after the page's load event.
 */
async function firstRender(page: Page, count: number): Promise<number> {
  await page.addInitScript((expected: number) => {
    const marks = ((window as unknown as { __firstRender?: Record<number, number> }).__firstRender ??= {});
    const look = () => {
      if (isRendered(expected)) marks[expected] = performance.now();
      else requestAnimationFrame(look);
    };
    // Every node measured (the minimap draws a node once it is) and none
    // still hidden for measuring.
    function isRendered(nodes: number): boolean {
      if (document.querySelectorAll(".react-flow__minimap-node").length < nodes) return false;
      for (const node of document.querySelectorAll(".react-flow__node")) {
        if ((node as HTMLElement).style.visibility === "hidden") return false;
      }
      return true;
    }
    requestAnimationFrame(look);
  }, count);
  await page.goto(somite.url);
  const renderedAt = await page.waitForFunction(
    (expected) => (window as unknown as { __firstRender?: Record<number, number> }).__firstRender?.[expected] ?? false,
    count,
    { timeout: CEILING_MS * 2 },
  );
  return Math.round((await renderedAt.jsonValue()) as number);
}

/** The page's clock. */
async function now(): Promise<number> {
  return browser.page.evaluate(() => performance.now());
}

/** The page's clock after two more frames, once what was asked has been drawn. */
async function settled(): Promise<number> {
  return browser.page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        requestAnimationFrame(() => requestAnimationFrame(() => { resolve(performance.now()); }));
      }),
  );
}

async function seed(runtime: Somite, count: number): Promise<number> {
  let view = await runtime.api<{ state_revision: string; document: { nodes: unknown[] } }>("/api/workflow");
  const existing = view.document.nodes.length;
  for (let start = 0; start < count - existing; start += 64) {
    const operations = Array.from({ length: Math.min(64, count - existing - start) }, (_, i) => {
      const index = existing + start + i;
      return {
        op: "add_operator",
        node_id: `qc-${String(index)}`,
        operator_id: "qc.fastqc",
        x: 1200 + (index % COLUMNS) * 320,
        y: (Math.floor(index / COLUMNS)) * 200,
      };
    });
    const reply = await runtime.api<{ state_revision: string }>("/api/transactions", {
      base_state_revision: view.state_revision,
      idempotency_key: `seed-${String(existing + start)}-nodes`,
      summary: `Seed nodes ${String(start)}…`,
      operations,
    });
    view = { ...view, state_revision: reply.state_revision };
  }
  return count;
}
