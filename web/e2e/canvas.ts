/** Page helpers for the journeys: find nodes and handles, drag connections. */
import type { Locator, Page } from "playwright-core";

export const node = (page: Page, id: string): Locator => page.locator(`.react-flow__node[data-id="${id}"]`);

export const handle = (page: Page, nodeId: string, handleId: string): Locator =>
  page.locator(`.react-flow__handle[data-nodeid="${nodeId}"][data-handleid="${handleId}"]`);

async function centre(locator: Locator): Promise<{ x: number; y: number }> {
  const box = await locator.boundingBox();
  if (!box) throw new Error("element is not visible");
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/**
 * Drags from one handle to another like a person would. With `hold`, the
 * mouse stays pressed over the target so the refusal can be seen, and the
 * returned function releases it.
 */
export async function dragConnection(page: Page, from: Locator, to: Locator, options: { hold?: boolean } = {}): Promise<() => Promise<void>> {
  const start = await centre(from);
  const end = await centre(to);
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move((start.x + end.x) / 2, (start.y + end.y) / 2, { steps: 8 });
  await page.mouse.move(end.x, end.y, { steps: 8 });
  const release = () => page.mouse.up();
  if (!options.hold) await release();
  return release;
}

/** The "N required" count in the status bar (0 when none is shown). */
export async function requiredCount(page: Page): Promise<number> {
  const text = (await page.locator('[data-testid="required-count"]').textContent({ timeout: 500 }).catch(() => null)) ?? "0";
  return Number.parseInt(text, 10);
}

/** Waits until the status bar's assessment is for the graph on screen. */
export async function readinessSettled(page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelector('[data-testid="readiness-state"]')?.textContent !== "Checking…");
}

export async function searchPalette(page: Page, query: string): Promise<void> {
  await page.getByLabel("Operators").fill(query);
  await page.locator(".palette__status", { hasText: /match/ }).waitFor();
}
