import { describe, expect, test } from "vitest";
import {
  DOCK_DEFAULT_WIDTH,
  DOCK_KEY_STEP,
  DOCK_MAX_WIDTH,
  DOCK_MIN_WIDTH,
  clampDockWidth,
  keyedDockWidth,
  rememberDockWidth,
  storedDockWidth,
} from "./dockWidth";

function memoryStorage(initial: Record<string, string> = {}) {
  const items = new Map(Object.entries(initial));
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
  };
}

describe("the Agent dock's width", () => {
  test("stays within 300–720 px", () => {
    expect(clampDockWidth(120)).toBe(DOCK_MIN_WIDTH);
    expect(clampDockWidth(5000)).toBe(DOCK_MAX_WIDTH);
    expect(clampDockWidth(433.6)).toBe(434);
  });

  test("follows the arrow keys from the handle on the panel's left edge", () => {
    expect(keyedDockWidth("ArrowLeft", false, 400)).toBe(400 + DOCK_KEY_STEP);
    expect(keyedDockWidth("ArrowRight", false, 400)).toBe(400 - DOCK_KEY_STEP);
    expect(keyedDockWidth("ArrowLeft", true, 400)).toBe(400 + 4 * DOCK_KEY_STEP);
    expect(keyedDockWidth("ArrowLeft", false, DOCK_MAX_WIDTH)).toBe(DOCK_MAX_WIDTH);
    expect(keyedDockWidth("ArrowRight", true, DOCK_MIN_WIDTH + 10)).toBe(DOCK_MIN_WIDTH);
    expect(keyedDockWidth("Home", false, 500)).toBe(DOCK_MIN_WIDTH);
    expect(keyedDockWidth("End", false, 500)).toBe(DOCK_MAX_WIDTH);
    expect(keyedDockWidth("ArrowUp", false, 500)).toBeUndefined();
  });

  test("is remembered, and a stored value is never trusted beyond the bounds", () => {
    const storage = memoryStorage();
    expect(storedDockWidth(storage)).toBe(DOCK_DEFAULT_WIDTH);
    rememberDockWidth(storage, 512);
    expect(storedDockWidth(storage)).toBe(512);
    expect(storedDockWidth(memoryStorage({ "somite.agentDock.width": "9000" }))).toBe(DOCK_MAX_WIDTH);
    expect(storedDockWidth(memoryStorage({ "somite.agentDock.width": "wide" }))).toBe(DOCK_DEFAULT_WIDTH);
  });

  test("survives storage that refuses to work", () => {
    const broken = {
      getItem: (): string | null => {
        throw new Error("SecurityError");
      },
      setItem: () => {
        throw new Error("QuotaExceededError");
      },
    };
    expect(storedDockWidth(broken)).toBe(DOCK_DEFAULT_WIDTH);
    expect(() => { rememberDockWidth(broken, 500); }).not.toThrow();
  });
});
