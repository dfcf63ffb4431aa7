/**
 * Server-sent events as guardSse reads them (docs/guard.md, "Server-sent events"): an incremental
 * frame splitter over the bytes an app writes (each frame's original bytes kept, so it can be
 * forwarded byte for byte), the fields of one frame, and what the OpenAI stream shapes carry. Every
 * pass is linear in the bytes written and a frame's size is bounded: the text is the app's upstream
 * model's, so an attacker's.
 */
import { isPlainObject } from "../core/plain-object.ts";

/** One event of the stream: its original bytes (its terminating blank line included) and its fields. */
export interface SseFrame {
  readonly raw: Buffer;
  /** The `event:` field; undefined when absent (a plain `message`). */
  readonly event: string | undefined;
  /** The `data:` lines joined with "\n"; undefined when the frame has none (a comment, a blank line). */
  readonly data: string | undefined;
}

/** What one write gave: the frames it completed, and, once a frame outgrew the limit, every byte not yet framed. */
export interface SseSplit {
  readonly frames: readonly SseFrame[];
  /** The bytes of the frame that went over maxFrameBytes and all after it in this write; the splitter takes no more. */
  readonly overflow?: Buffer;
}

/** The incremental splitter of one response. */
export interface SseSplitter {
  /** Splits the next bytes written; frames end at a blank line (CRLF, LF or CR line ends, as the SSE standard reads them). */
  push(chunk: Buffer): SseSplit;
  /** The bytes of an unfinished last frame (a browser drops such a frame), handed over at the end. */
  rest(): Buffer;
  /** Bytes held for the unfinished frame. */
  readonly pending: number;
}

const LF = 0x0a;
const CR = 0x0d;
/** The line ends a frame's text is split at: each alternative a fixed string, so the split is linear. */
const LINE_END = /\r\n|\r|\n/;

/** The fields of one complete frame's bytes (the SSE standard's parsing: `field: value`, `:` comments ignored). */
export function parseFrame(raw: Buffer, first: boolean): SseFrame {
  let text = raw.toString("utf8");
  if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let event: string | undefined;
  let data: string[] | undefined;
  for (const line of text.split(LINE_END)) {
    if (line === "" || line.charCodeAt(0) === 0x3a) continue;
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    if (name === "data") (data ??= []).push(value);
    else if (name === "event") event = value;
  }
  return { raw, event, data: data?.join("\n") };
}

/**
 * A splitter of one response's bytes into frames. A frame over `maxFrameBytes` ends the splitting:
 * its bytes and the rest of that write come back as `overflow`, and later pushes give nothing.
 */
export function createSseSplitter(maxFrameBytes: number): SseSplitter {
  let parts: Buffer[] = [];
  let held = 0;
  let atLineStart = true;
  let afterCR = false;
  let spent = false;
  let seen = 0;
  const frame = (last: Buffer): SseFrame => {
    parts.push(last);
    const raw = parts.length === 1 ? Buffer.from(last) : Buffer.concat(parts);
    parts = [];
    held = 0;
    return parseFrame(raw, seen++ === 0);
  };
  const overflow = (chunk: Buffer, from: number): Buffer => {
    spent = true;
    const out = Buffer.concat([...parts, chunk.subarray(from)]);
    parts = [];
    held = 0;
    return out;
  };
  return {
    push(chunk) {
      if (spent) return { frames: [] };
      const frames: SseFrame[] = [];
      let start = 0;
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i];
        if (b === LF && afterCR) {
          // the LF of a CRLF whose CR already ended the line (or the frame)
          afterCR = false;
          continue;
        }
        afterCR = b === CR;
        if (b !== LF && b !== CR) {
          atLineStart = false;
          continue;
        }
        if (!atLineStart) {
          atLineStart = true;
          continue;
        }
        if (held + (i + 1 - start) > maxFrameBytes) return { frames, overflow: overflow(chunk, start) };
        frames.push(frame(chunk.subarray(start, i + 1)));
        start = i + 1;
      }
      if (start < chunk.length) {
        if (held + chunk.length - start > maxFrameBytes) return { frames, overflow: overflow(chunk, start) };
        parts.push(chunk.subarray(start));
        held += chunk.length - start;
      }
      return { frames };
    },
    rest() {
      const out = Buffer.concat(parts);
      parts = [];
      held = 0;
      return out;
    },
    get pending() {
      return held;
    },
  };
}

/** What a frame's data carries for the guard: its text delta, and whether it repeats the whole answer (it must not reach the user when the answer was changed). */
export interface FrameText {
  readonly delta: string | undefined;
  readonly echo: boolean;
}

/** Responses events that repeat the answer's text in full after its deltas. */
const ECHO_EVENTS = new Set(["response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed", "response.incomplete"]);

/** The JSON object of a frame's data, or undefined (`[DONE]`, text, broken JSON). */
export function frameJson(data: string | undefined): Record<string, unknown> | undefined {
  if (data === undefined || data.charCodeAt(0) !== 0x7b) return undefined;
  try {
    const v: unknown = JSON.parse(data);
    return isPlainObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The first choice's `delta.content` of a chat-completion chunk. */
function chatDelta(json: Record<string, unknown>): string | undefined {
  const choices = json.choices;
  if (!Array.isArray(choices)) return undefined;
  const choice: unknown = choices.find((c: unknown) => isPlainObject(c) && (c.index === 0 || c.index === undefined));
  const delta = isPlainObject(choice) ? choice.delta : undefined;
  return isPlainObject(delta) && typeof delta.content === "string" ? delta.content : undefined;
}

/**
 * The default reading of a frame: an OpenAI chat-completion chunk's `choices[0].delta.content`, or
 * a Responses `response.output_text.delta` event's `delta`; Responses events that repeat the whole
 * answer (`response.output_text.done`, `…content_part.done`, `…output_item.done`, `response.completed`,
 * `response.incomplete`) are echoes. Anything else (`[DONE]`, a role chunk, other events) carries no text.
 */
export function openAiFrameText(json: Record<string, unknown> | undefined): FrameText {
  if (json === undefined) return { delta: undefined, echo: false };
  const type = json.type;
  if (typeof type === "string") {
    if (type === "response.output_text.delta") return { delta: typeof json.delta === "string" ? json.delta : undefined, echo: false };
    return { delta: undefined, echo: ECHO_EVENTS.has(type) };
  }
  return { delta: chatDelta(json), echo: false };
}

/** What a synthesized text frame is: released original text re-sent alone (its frame straddled a check), a correction, or the replacement. */
export type SseTextKind = "text" | "correction" | "replacement";

/** The shape the stream's own text frames have, copied into synthesized ones so that an OpenAI client reads them. */
export type FrameTemplate =
  | { readonly shape: "chat"; readonly fields: Readonly<Record<string, unknown>> }
  | { readonly shape: "responses"; readonly fields: Readonly<Record<string, unknown>> };

/** The template of a text frame's JSON: a chat chunk's id, object, created, model; a Responses delta's item_id, output_index, content_index. */
export function templateOf(json: Record<string, unknown>): FrameTemplate {
  const pick = (keys: readonly string[]): Record<string, unknown> => Object.fromEntries(keys.filter((k) => json[k] !== undefined).map((k) => [k, json[k]]));
  if (json.type === "response.output_text.delta") return { shape: "responses", fields: pick(["item_id", "output_index", "content_index"]) };
  return { shape: "chat", fields: pick(["id", "object", "created", "model"]) };
}

/**
 * The default synthesized text frame: a chat-completion chunk `data: {…"choices":[{"index":0,"delta":{"content":TEXT},"finish_reason":null}]}`
 * (with the stream's id, object, created and model when it had chat chunks), or, when the stream's
 * text came in Responses events, `event: response.output_text.delta` with `{"type":"response.output_text.delta",…,"delta":TEXT}`.
 */
export function defaultTextFrame(text: string, template: FrameTemplate | undefined): string {
  if (template?.shape === "responses") {
    return `event: response.output_text.delta\ndata: ${JSON.stringify({ type: "response.output_text.delta", ...template.fields, delta: text })}\n\n`;
  }
  const fields = template?.fields ?? { object: "chat.completion.chunk" };
  return `data: ${JSON.stringify({ ...fields, choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
}

/** An `event: guard` frame carrying `payload` as JSON. */
export function guardEventFrame(payload: Readonly<Record<string, unknown>>): string {
  return `event: guard\ndata: ${JSON.stringify(payload)}\n\n`;
}
