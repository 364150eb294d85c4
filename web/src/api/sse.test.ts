import { describe, expect, it } from "vitest";
import { SseParser, SseSizeError } from "./sse";

describe("SseParser", () => {
  it("parses named events with ids, skipping comments", () => {
    const parser = new SseParser(1000);
    const messages = parser.push(": keep-alive\n\nevent: transaction\nid: 7\ndata: {\"a\":1}\n\n");
    expect(messages).toEqual([{ event: "transaction", id: "7", data: '{"a":1}' }]);
  });

  it("joins multi-line data and reassembles events split across chunks and CRLFs", () => {
    const parser = new SseParser(1000);
    expect(parser.push("event: gap\r")).toEqual([]);
    expect(parser.push("\ndata: line one\r\ndata: line")).toEqual([]);
    expect(parser.push(" two\r\n\r\n")).toEqual([{ event: "gap", id: undefined, data: "line one\nline two" }]);
  });

  it("keeps the last id for later events, as the format says", () => {
    const parser = new SseParser(1000);
    const [first, second] = parser.push("id: 3\ndata: a\n\ndata: b\n\n");
    expect(first?.id).toBe("3");
    expect(second?.id).toBe("3");
  });

  it("refuses an event that grows past its bound, even without a line end", () => {
    const parser = new SseParser(64);
    expect(() => parser.push(`data: ${"x".repeat(100)}`)).toThrow(SseSizeError);
  });
});
