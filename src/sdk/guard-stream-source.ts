/**
 * What a guarded stream reads its text from (StreamGuardSource): one reader over an AsyncIterable of
 * text or bytes, a web ReadableStream of text or UTF-8 bytes (decoded by a streaming TextDecoder, so
 * a character split between chunks comes out whole), an OpenAI SDK chat-completions stream (chunks
 * with `choices[0].delta.content`) or an OpenAI Responses stream (`response.output_text.delta`
 * events; `response.completed` ends it; `error` and `response.failed` are source errors). Items that
 * carry no text (a role chunk, a usage chunk, other Responses events) are skipped. Cancelling aborts
 * an OpenAI SDK stream's request through its `controller` (at once, even with a read pending), returns
 * the source's iterator, or cancels the web stream.
 */
import { TextDecoder } from "node:util";

/** One read: text (possibly ""), the end, or the source's failure in words. */
export type SourceRead = { readonly kind: "text"; readonly text: string } | { readonly kind: "done" } | { readonly kind: "error"; readonly detail: string };

/** Reads a source item by item. */
export interface SourceReader {
  /** The next item's text, the end, or a failure; never rejects. */
  read(): Promise<SourceRead>;
  /** Stops the source (its iterator returned, its stream cancelled); never throws, never waits. */
  cancel(): void;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error) ?? String(error));

/** Reads a property without letting a getter's exception out. */
function field(value: unknown, key: string): unknown {
  try {
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

/** The text an item carries, the end it announces, a failure it reports, or "" when it carries none. */
function itemText(item: unknown, decoder: TextDecoder): SourceRead {
  if (typeof item === "string") return { kind: "text", text: item };
  if (item instanceof Uint8Array) return { kind: "text", text: decoder.decode(item, { stream: true }) };
  if (item === null || typeof item !== "object") return { kind: "error", detail: `the stream sent ${item === null ? "null" : typeof item}, not text` };
  const choices = field(item, "choices");
  if (Array.isArray(choices)) {
    const content = field(field(choices[0], "delta"), "content");
    return { kind: "text", text: typeof content === "string" ? content : "" };
  }
  const type = field(item, "type");
  if (type === "response.output_text.delta") {
    const delta = field(item, "delta");
    return { kind: "text", text: typeof delta === "string" ? delta : "" };
  }
  if (type === "response.completed") return { kind: "done" };
  if (type === "error" || type === "response.failed") {
    const message = field(item, "message") ?? field(field(field(item, "response"), "error"), "message");
    return { kind: "error", detail: `the stream sent ${type}${typeof message === "string" ? `: ${message}` : ""}` };
  }
  return { kind: "text", text: "" };
}

/** A reader over `source`, or a failure saying why it is not one. */
export function openSource(source: unknown): SourceReader {
  const decoder = new TextDecoder("utf-8");
  const failed = (detail: string): SourceReader => ({ read: () => Promise.resolve({ kind: "error", detail }), cancel: () => undefined });
  /** One read of either kind of source: its next item's text; at its end, what the decoder still holds (once), then done. */
  let flushed = false;
  const readNext = async (next: () => Promise<IteratorResult<unknown>>): Promise<SourceRead> => {
    try {
      const r = await next();
      if (r.done) {
        if (flushed) return { kind: "done" };
        flushed = true;
        const rest = decoder.decode();
        return rest === "" ? { kind: "done" } : { kind: "text", text: rest };
      }
      return itemText(r.value, decoder);
    } catch (error) {
      return { kind: "error", detail: `the stream failed: ${messageOf(error)}` };
    }
  };
  try {
    if (typeof ReadableStream !== "undefined" && source instanceof ReadableStream) {
      const reader = (source as ReadableStream<unknown>).getReader();
      return {
        read: () => readNext(() => reader.read() as Promise<IteratorResult<unknown>>),
        cancel() {
          reader.cancel().catch(() => undefined);
        },
      };
    }
    const make = source !== null && (typeof source === "object" || typeof source === "function") ? (source as Record<symbol, unknown>)[Symbol.asyncIterator] : undefined;
    if (typeof make !== "function") return failed("the source is not a stream (an AsyncIterable or a ReadableStream)");
    const iterator = (make as () => AsyncIterator<unknown>).call(source);
    // The OpenAI SDK's Stream holds the AbortController of its HTTP request: an async generator's
    // return() waits for a pending read, an abort ends the request (and the read) at once.
    const controller = field(source, "controller");
    const abort = field(controller, "abort");
    return {
      read: () => readNext(() => iterator.next()),
      cancel() {
        try {
          if (typeof abort === "function") (abort as () => void).call(controller);
        } catch {
          // An abort that throws: return() below still stops the source.
        }
        try {
          Promise.resolve(iterator.return?.()).catch(() => undefined);
        } catch {
          // A return() that throws: the source is left as it is.
        }
      },
    };
  } catch (error) {
    return failed(`the source could not be read: ${messageOf(error)}`);
  }
}
