// Incremental parser for a text/event-stream body (the HTML Living Standard's
// "server-sent events" wire format). Pure: no DOM, no network.
//
// The Conversation Service streams an answer as `event: token` frames, then one
// `event: result` (or `event: error`) frame; each frame's data is JSON.

/**
 * A parser fed with decoded text chunks in arrival order.
 *
 * feed(text) -> [{event: string, data: string}] returns every frame completed by
 * this chunk (a frame ends at a blank line). A frame without an `event:` field is
 * named "message"; multiple `data:` lines join with "\n"; comment lines (":")
 * and unknown fields are ignored; CRLF, CR and LF line endings are all accepted.
 * A frame with no data line is dropped, as the standard says.
 */
export class SseParser {
  constructor() {
    this.buffer = "";
    this.eventName = "";
    this.dataLines = [];
  }

  feed(text) {
    this.buffer += text;
    const frames = [];
    let match;
    const lineEnd = /\r\n|\r|\n/;
    while ((match = lineEnd.exec(this.buffer)) !== null) {
      // A lone CR at the very end may be the first half of CRLF: wait for more.
      if (match[0] === "\r" && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const frame = this.takeLine(line);
      if (frame) frames.push(frame);
    }
    return frames;
  }

  takeLine(line) {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.eventName = value;
    else if (field === "data") this.dataLines.push(value);
    return null;
  }

  dispatch() {
    const frame = this.dataLines.length
      ? { event: this.eventName || "message", data: this.dataLines.join("\n") }
      : null;
    this.eventName = "";
    this.dataLines = [];
    return frame;
  }
}
