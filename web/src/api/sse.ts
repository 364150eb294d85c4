/**
 * A server-sent-events parser (the WHATWG "event stream" format), fed text
 * chunks as they arrive. Kept separate from the connection so it can be
 * tested on exact byte sequences, and bounded so one endless event cannot
 * grow without limit.
 */

export interface SseMessage {
  readonly event: string;
  readonly data: string;
  readonly id: string | undefined;
}

export class SseSizeError extends Error {
  override readonly name = "SseSizeError";
}

export class SseParser {
  /** The unterminated line so far, in pieces: joining once avoids quadratic copying. */
  private partial: string[] = [];
  private partialLength = 0;
  /** The previous chunk ended in CR; a leading LF in the next one belongs to it. */
  private afterCarriageReturn = false;
  private event = "";
  private data: string[] = [];
  private dataLength = 0;
  private id: string | undefined;

  constructor(private readonly maxEventChars: number) {}

  /** Parses `chunk` and returns the events it completed. */
  push(chunk: string): SseMessage[] {
    const messages: SseMessage[] = [];
    let start = this.afterCarriageReturn && chunk.startsWith("\n") ? 1 : 0;
    this.afterCarriageReturn = false;
    for (let i = start; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c !== LF && c !== CR) continue;
      this.partial.push(chunk.slice(start, i));
      const line = this.partial.join("");
      this.partial = [];
      this.partialLength = 0;
      const message = this.line(line);
      if (message) messages.push(message);
      if (c === CR) {
        if (i + 1 === chunk.length) this.afterCarriageReturn = true;
        else if (chunk.charCodeAt(i + 1) === LF) i++;
      }
      start = i + 1;
    }
    if (start < chunk.length) {
      this.partial.push(chunk.slice(start));
      this.partialLength += chunk.length - start;
    }
    if (this.partialLength + this.dataLength > this.maxEventChars) {
      throw new SseSizeError(`an activity event exceeded ${this.maxEventChars} characters`);
    }
    return messages;
  }

  private line(line: string): SseMessage | undefined {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "event":
        this.event = value;
        break;
      case "data":
        this.data.push(value);
        this.dataLength += value.length + 1;
        break;
      case "id":
        if (!value.includes("\0")) this.id = value;
        break;
      default:
        // `retry` and unknown fields: reconnection timing is the client's own.
        break;
    }
    return undefined;
  }

  private dispatch(): SseMessage | undefined {
    const hasData = this.data.length > 0;
    const message: SseMessage = { event: this.event || "message", data: this.data.join("\n"), id: this.id };
    this.event = "";
    this.data = [];
    this.dataLength = 0;
    return hasData ? message : undefined;
  }
}

const LF = 0x0a;
const CR = 0x0d;
