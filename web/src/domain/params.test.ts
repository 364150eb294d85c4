import { describe, expect, it } from "vitest";
import { parseParam } from "./params";

describe("parseParam", () => {
  const threads = { name: "threads", type: "int", min: 1, max: 16 } as const;

  it("reads whole numbers within range", () => {
    expect(parseParam(threads, " 4 ")).toEqual({ ok: true, value: 4 });
    expect(parseParam(threads, "4.5")).toEqual({ ok: false, reason: "enter a whole number" });
    expect(parseParam(threads, "64")).toEqual({ ok: false, reason: "must be between 1 and 16" });
    expect(parseParam(threads, "")).toEqual({ ok: false, reason: "enter a number" });
    expect(parseParam(threads, "1e400")).toEqual({ ok: false, reason: "enter a number" });
  });

  it("reads floats with one-sided bounds", () => {
    expect(parseParam({ name: "q", type: "float", min: 0 }, "0.25")).toEqual({ ok: true, value: 0.25 });
    expect(parseParam({ name: "q", type: "float", min: 0 }, "-1")).toEqual({ ok: false, reason: "must be at least 0" });
  });

  it("checks choices and string limits", () => {
    const mode = { name: "mode", type: "string", choices: ["fast", "sensitive"] } as const;
    expect(parseParam(mode, "fast")).toEqual({ ok: true, value: "fast" });
    expect(parseParam(mode, "slow")).toEqual({ ok: false, reason: "choose one of fast, sensitive" });
    expect(parseParam({ name: "path", type: "string" }, "x".repeat(5000))).toMatchObject({ ok: false });
  });

  it("takes booleans from a switch only", () => {
    expect(parseParam({ name: "nogroup", type: "bool" }, true)).toEqual({ ok: true, value: true });
    expect(parseParam({ name: "nogroup", type: "bool" }, "true")).toMatchObject({ ok: false });
  });
});
