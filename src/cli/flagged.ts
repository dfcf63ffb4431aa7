import { DEFAULT_COLLECTOR_PORT } from "../collector/options.ts";
import { COLLECTOR_ENV } from "../config/env.ts";
import { jsonForTerminal, stripControls } from "../core/safe-text.ts";
import type { HttpBounds } from "../net/bounded-fetch.ts";
import { fetchBounded } from "../net/bounded-fetch.ts";
import { redactSecrets } from "../net/redact.ts";
import { sleep } from "../net/retry.ts";
import type { FlaggedAnswer, FlaggedClaim, FlaggedSpan } from "../evaluation/types.ts";
import { FLAGGED_MAX_LIMIT, isFlaggedCursor } from "../evaluation/flagged-ring.ts";
import { UsageError, numberFlag, parseFlags, runCommand } from "./shared/command.ts";
import { EXIT } from "./shared/exit-codes.ts";
import type { CommandIo } from "./shared/io.ts";
import { sanitizeForTerminal, writeLine } from "./shared/io.ts";
import { isPlainObject } from "../core/plain-object.ts";
import type { MissingReplica } from "../review/store.ts";
import { describeMissing, missingOf } from "./review/remote-store.ts";
import { plainText, sourceText } from "./shared/escape.ts";
import { evidenceLabel } from "./report/evidence.ts";
import type { MarkStyle } from "./shared/spans.ts";
import { SPANS_SHOWN, claimMarkedLine, markStyleFor, markedText, spanLine } from "./shared/spans.ts";
import { fetchFailure } from "../net/fetch-error.ts";

export const FLAGGED_HELP = `groundwatch flagged — the answers behind the page: recent answers the collector flagged

Usage:
  groundwatch flagged --url URL [--route R] [--cause C] [--since ISO] [--limit N]
                      [--follow [--interval S]] [--format table|jsonl] [--token T]

Reads GET /v1/flagged from a running collector (groundwatch serve) and prints its most recent
answers that are not grounded, oldest first: time, route, verdict, score, cause, trace id, and each
flagged claim with its offsets in the answer, then, labelled, its evidence: the document by its
position ([1] is the first retrieved) and the sentence's offsets in it. The question, the answer,
claim and evidence text, and the documents' ids or titles ([1] ("refund-policy.md")) appear only
when the collector captures content (monitor.captureContent). With a span detector, each answer
lists the spans it marked (offsets, probability, claim; their words with content capture), the
answer shows them marked (bold red on a terminal, [[ … ]] in a pipe or with NO_COLOR), and each
claim its marked words ("marked: «…» p=0.91").

  --url URL         the collector, e.g. http://127.0.0.1:${DEFAULT_COLLECTOR_PORT} (serve's default)
  --route R         only this route label (as /metrics shows it)
  --cause C         only answers with this cause: retrieval, generation, citation, mixed, unknown
  --since ISO       only answers scored at or after this ISO 8601 time
  --limit N         at most N answers (default 100, at most ${FLAGGED_MAX_LIMIT}; says so when more are kept);
                    with --follow, answers per request
  --follow          keep polling and print each new answer once, reading every page the collector
                    has (never only the newest --limit); says how many the collector let go
                    before they could be read; Ctrl-C stops
  --interval S      seconds between polls with --follow (default 2)
  --format F        table (default) or jsonl (one answer per line, as the collector sends it, with
                    the code points a terminal acts on written as \\u escapes)
  --token T         the collector's bearer token (default: ${COLLECTOR_ENV.token})

Exit codes: 0 ok, 1 the collector could not be read, 2 bad flags.
`;

/**
 * One read of the collector: 10 s for its headers and for any silence in its body, 60 s for all of
 * it (a body that trickles is cut off too), at most 32 MiB (1000 answers of a few KiB each).
 */
const FLAGGED_BOUNDS: HttpBounds = { headersMs: 10_000, idleMs: 10_000, totalMs: 60_000, maxBytes: 32 * 2 ** 20 };

const clean = (v: unknown): string => stripControls(String(v ?? ""));
/** Longest question, answer, claim or evidence text shown in a table (the collector caps them at monitor.contentMaxLength). */
const TEXT_SHOWN = 500;
/** A text the collector sent, as one quoted line of plain text, capped. */
const quoted = (v: unknown): string => `"${plainText(v, TEXT_SHOWN)}"`;
const offsets = (start: unknown, end: unknown): string => `[${clean(start)}, ${clean(end)})`;

/** Spans of one answer checked against it for marking (each costs its length at most). */
const MARKED_MAX = 200;

/** The spans of a reply's answer that are spans (offsets that are numbers); a collector's reply is read, not trusted. */
function spansOf(value: unknown): FlaggedSpan[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((s): s is FlaggedSpan => typeof s === "object" && s !== null && Number.isFinite((s as FlaggedSpan).start) && Number.isFinite((s as FlaggedSpan).end));
}

/**
 * With a span detector: the answer with the spans whose words it still holds at their offsets marked
 * (redaction or the cap may have moved them: those are listed only), then each span (words with
 * content capture, offsets, probability, claim); none without one.
 */
function spanLines(a: FlaggedAnswer, spans: readonly FlaggedSpan[] | undefined, style: MarkStyle): string[] {
  if (spans === undefined) return [];
  const answer = typeof a.answer === "string" ? a.answer : undefined;
  // At most the first MARKED_MAX spans are checked against the answer (the reply is bounded, not trusted).
  const placed = answer === undefined ? [] : spans.slice(0, MARKED_MAX).filter((s) => typeof s.text === "string" && answer.slice(s.start, s.end) === s.text);
  return [
    ...(answer !== undefined && placed.length > 0 ? [`  marked:   ${markedText(answer, placed, style, TEXT_SHOWN)}`] : []),
    `  spans: ${spans.length === 0 ? "none marked" : `${spans.length} marked`}`,
    ...spans.slice(0, SPANS_SHOWN).map((s) => `    ${spanLine({ ...s, ...(typeof s.text === "string" ? { text: s.text } : {}) })}`),
    ...(spans.length > SPANS_SHOWN ? [`    (${spans.length - SPANS_SHOWN} more spans)`] : []),
  ];
}

/**
 * One answer as table lines: its row; with content capture, its question and answer; then per
 * claim a line with the claim (verdict, cause, offsets in the answer, text) and, under it, a line
 * with its evidence (labelled as what it is: contradicting, nearest, or where the claim is
 * supported instead), the document by its position and name, the sentence's offsets and text.
 * With a span detector, the answer with its marked words (`style`: colour, else `[[` … `]]`) and its
 * spans after the answer, and each claim's marked words under it.
 */
export function flaggedLines(a: FlaggedAnswer, style: MarkStyle = { color: false }): string[] {
  const score = typeof a.score === "number" ? a.score.toFixed(3) : "-";
  const row = [clean(a.time).padEnd(24), clean(a.route).padEnd(20), clean(a.verdict).padEnd(11), score.padStart(6), clean(a.cause ?? "-").padEnd(10), clean(a.traceId)].join("  ");
  const said = [...(a.question !== undefined ? [`  question: ${quoted(a.question)}`] : []), ...(a.answer !== undefined ? [`  answer:   ${quoted(a.answer)}`] : [])];
  const spans = spansOf(a.spans);
  const claims = (Array.isArray(a.claims) ? a.claims : []).flatMap((c: FlaggedClaim) => {
    const cause = c.cause !== undefined ? ` (${clean(c.cause)})` : "";
    const text = c.text !== undefined ? ` ${quoted(c.text)}` : "";
    const claim = `  - ${clean(c.verdict)}${cause} claim at ${offsets(c.start, c.end)} of the answer${text}`;
    const e = c.evidence;
    const evidenceText = c.evidenceText !== undefined ? ` ${quoted(c.evidenceText)}` : "";
    const evidence = e ? `      ${evidenceLabel(c.verdict)}: document ${sourceText(e.doc, e)} at ${offsets(e.start, e.end)}${evidenceText}` : "      no evidence";
    const marked = claimMarkedLine(c.spans, spans);
    return [claim, evidence, ...(marked !== undefined ? [`      ${marked}`] : [])];
  });
  return [row, ...said, ...spanLines(a, spans, style), ...claims];
}

const TABLE_HEADER = ["TIME".padEnd(24), "ROUTE".padEnd(20), "VERDICT".padEnd(11), "SCORE".padStart(6), "CAUSE".padEnd(10), "TRACE"].join("  ");

/** A reply of /v1/flagged: the answers, and (from a collector that pages) where to read on, whether more are kept, and how many were let go unread. */
interface FlaggedReply {
  readonly flagged: FlaggedAnswer[];
  readonly cursor?: string | undefined;
  readonly more: boolean;
  readonly missed: number;
  /** The replicas of a merged reply that did not answer (partial): the page lacks their answers. */
  readonly missing: readonly MissingReplica[];
}

/** The most failed replicas read from one reply (a merged cursor names at most 64 replicas). */
const MAX_MISSING = 64;

/** Reads /v1/flagged once through the bounded client; throws with why it could not. */
async function readFlagged(url: string, token: string | undefined, signal: AbortSignal): Promise<FlaggedReply> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  let res;
  try {
    res = await fetchBounded(url, { headers }, { ...FLAGGED_BOUNDS, signal });
  } catch (error) {
    throw new Error(`cannot reach the collector: ${redactSecrets(fetchFailure(error), [token])}`);
  }
  const text = await res.text();
  if (res.status === 401) throw new Error("the collector refused the token (401): pass --token or set " + COLLECTOR_ENV.token);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`the collector answered HTTP ${res.status} with a body that is not JSON`);
  }
  const b = body as { flagged?: unknown; error?: unknown; cursor?: unknown; more?: unknown; missed?: unknown; replicas?: unknown };
  if (res.status !== 200) throw new Error(`the collector answered HTTP ${res.status}: ${clean(b.error ?? "")}`);
  if (!Array.isArray(b.flagged)) throw new Error("the collector's reply has no flagged list");
  return {
    flagged: b.flagged.filter((a): a is FlaggedAnswer => typeof a === "object" && a !== null),
    cursor: typeof b.cursor === "string" && isFlaggedCursor(b.cursor) ? b.cursor : undefined,
    more: b.more === true,
    missed: typeof b.missed === "number" && Number.isSafeInteger(b.missed) && b.missed > 0 ? b.missed : 0,
    missing: failedReplicas(b.replicas),
  };
}

/** The `replicas.failed` of a merged reply (none from a collector without peers, or an older one). */
function failedReplicas(replicas: unknown): MissingReplica[] {
  const failed = isPlainObject(replicas) && Array.isArray(replicas.failed) ? replicas.failed.slice(0, MAX_MISSING) : [];
  return failed.flatMap((f) => missingOf(f) ?? []);
}

/** Runs `groundwatch flagged`; resolves to the exit code. */
export function runFlagged(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("flagged", FLAGGED_HELP, io, async () => {
    const { values: args } = parseFlags(argv, {
      url: { type: "string" },
      route: { type: "string" },
      cause: { type: "string" },
      since: { type: "string" },
      limit: { type: "string" },
      follow: { type: "boolean" },
      interval: { type: "string" },
      format: { type: "string" },
      token: { type: "string" },
    });
    if (!args.url) throw new UsageError(`--url is required (the collector, e.g. http://127.0.0.1:${DEFAULT_COLLECTOR_PORT})`, true);
    let base: URL;
    try {
      base = new URL("/v1/flagged", args.url.replace(/\/+$/, "") + "/");
    } catch {
      throw new UsageError(`--url must be an http(s) URL (got ${JSON.stringify(args.url)})`);
    }
    if (base.protocol !== "http:" && base.protocol !== "https:") throw new UsageError(`--url must be an http(s) URL (got ${JSON.stringify(args.url)})`);
    const format = args.format ?? "table";
    if (format !== "table" && format !== "jsonl") throw new UsageError(`--format must be table or jsonl (got ${JSON.stringify(format)})`);
    const limit = numberFlag("limit", args.limit, (n) => Number.isInteger(n) && n >= 1 && n <= FLAGGED_MAX_LIMIT, `an integer from 1 to ${FLAGGED_MAX_LIMIT}`);
    const intervalS = numberFlag("interval", args.interval, (n) => n >= 0.1 && n <= 3600, "a number of seconds from 0.1 to 3600") ?? 2;
    if (args.since !== undefined && Number.isNaN(Date.parse(args.since))) throw new UsageError(`--since must be an ISO 8601 time (got ${JSON.stringify(args.since)})`);
    const token = args.token ?? io.env[COLLECTOR_ENV.token];
    const query = (at: { readonly since?: string | undefined; readonly after?: string | undefined }): string => {
      const params = new URLSearchParams();
      if (args.route !== undefined) params.set("route", args.route);
      if (args.cause !== undefined) params.set("cause", args.cause);
      if (at.since !== undefined) params.set("since", at.since);
      if (limit !== undefined) params.set("limit", String(limit));
      if (at.after !== undefined) params.set("after", at.after);
      const q = params.toString();
      return q ? `${base.href}?${q}` : base.href;
    };

    const stop = new AbortController();
    const onSignal = (): void => stop.abort(new Error("interrupted"));
    process.once("SIGINT", onSignal);
    try {
      let headerShown = false;
      const style = markStyleFor(io.stdout, io.env);
      const print = async (answers: readonly FlaggedAnswer[]): Promise<void> => {
        for (const a of answers) {
          if (format === "jsonl") {
            await writeLine(io.stdout, jsonForTerminal(a));
            continue;
          }
          if (!headerShown) await writeLine(io.stdout, TABLE_HEADER);
          headerShown = true;
          for (const line of flaggedLines(a, style)) await writeLine(io.stdout, line);
        }
      };
      // Newest first from the collector; printed oldest first, so the newest is at the bottom.
      // A merged reply that lacks some replica's answers says so, once for each change in who is missing.
      let missingSaid = "";
      const sayMissing = (missing: readonly MissingReplica[]): void => {
        const text = describeMissing(missing, "the list lacks their flagged answers") ?? "";
        if (text !== "" && text !== missingSaid) io.stderr.write(`groundwatch flagged: partial: ${sanitizeForTerminal(text)}\n`);
        missingSaid = text;
      };
      const first = await readFlagged(query({ since: args.since }), token, stop.signal);
      await print([...first.flagged].reverse());
      sayMissing(first.missing);
      if (first.more) io.stderr.write(`groundwatch flagged: the collector keeps more answers than these ${first.flagged.length} (the newest); raise --limit (at most ${FLAGGED_MAX_LIMIT}) or narrow with --route, --cause or --since\n`);
      if (!args.follow) {
        if (first.flagged.length === 0 && format === "table") io.stderr.write("groundwatch flagged: no flagged answers\n");
        return EXIT.ok;
      }
      if (first.cursor === undefined) throw new Error("the collector does not page /v1/flagged (a groundwatch older than --follow's cursor): upgrade it, or run without --follow");
      // From the cursor on: every answer kept since, oldest first, page by page; none printed twice.
      let cursor = first.cursor;
      for (;;) {
        try {
          await sleep(intervalS * 1000, stop.signal);
          for (let more = true; more; ) {
            const page = await readFlagged(query({ after: cursor }), token, stop.signal);
            await print(page.flagged);
            sayMissing(page.missing);
            if (page.missed > 0) io.stderr.write(`groundwatch flagged: ${page.missed} flagged answer${page.missed === 1 ? " was" : "s were"} let go by the collector before they could be read (it keeps monitor.flaggedPerRoute per route within monitor.flaggedMaxBytes); poll more often with --interval\n`);
            if (page.cursor === undefined) throw new Error("the collector's reply has no cursor");
            cursor = page.cursor;
            more = page.more;
          }
        } catch (error) {
          if (stop.signal.aborted) return EXIT.ok;
          throw error;
        }
      }
    } finally {
      process.off("SIGINT", onSignal);
    }
  });
}
