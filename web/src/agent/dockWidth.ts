/**
 * The Agent dock's width: its bounds, the keyboard steps of its resize
 * handle, and the width this browser remembers. Pure, so the rules are
 * tested without a browser.
 */

/** Narrower, the panel's controls no longer fit on a line. */
export const DOCK_MIN_WIDTH = 300;
/** Wider, the canvas loses more than the panel gains. */
export const DOCK_MAX_WIDTH = 720;
export const DOCK_DEFAULT_WIDTH = 400;
/** One arrow key press; with Shift, four. */
export const DOCK_KEY_STEP = 16;

const STORAGE_KEY = "somite.agentDock.width";

export function clampDockWidth(width: number): number {
  return Math.round(Math.min(DOCK_MAX_WIDTH, Math.max(DOCK_MIN_WIDTH, width)));
}

/**
 * The width after a key press on the handle, from the width on screen, or
 * `undefined` for a key the handle ignores. The handle is the panel's left
 * edge, so ArrowLeft moves it left and widens the panel; Home and End give
 * the narrowest and widest panel.
 */
export function keyedDockWidth(key: string, shift: boolean, current: number): number | undefined {
  const step = shift ? DOCK_KEY_STEP * 4 : DOCK_KEY_STEP;
  switch (key) {
    case "ArrowLeft":
      return clampDockWidth(current + step);
    case "ArrowRight":
      return clampDockWidth(current - step);
    case "Home":
      return DOCK_MIN_WIDTH;
    case "End":
      return DOCK_MAX_WIDTH;
    default:
      return undefined;
  }
}

/** The remembered width, or the default when none (or nonsense) is stored. */
export function storedDockWidth(storage: Pick<Storage, "getItem">): number {
  const stored = Number.parseInt(readOrNull(() => storage.getItem(STORAGE_KEY)) ?? "", 10);
  return Number.isFinite(stored) ? clampDockWidth(stored) : DOCK_DEFAULT_WIDTH;
}

export function rememberDockWidth(storage: Pick<Storage, "setItem">, width: number): void {
  // Storage may be full or switched off; the width then lasts this page only.
  readOrNull(() => {
    storage.setItem(STORAGE_KEY, String(width));
    return null;
  });
}

function readOrNull<T>(read: () => T | null): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}
