/**
 * Input messages and documents over attacker-sized arrays (issue 24, item 1): the prompt's duplicate
 * check is a keyed lookup, a trace keeps at most MAX_PROMPT_MESSAGES messages and counts the rest, and
 * every dedupe and per-record loop of extract and the joiner grows linearly with its input.
 */
import { describe, expect, it } from "vitest";
import { absorbLog, absorbSpan } from "../../src/collector/extract.ts";
import type { TraceParts } from "../../src/collector/trace-parts.ts";
import { MAX_PROMPT_MATCH_CHARS, MAX_PROMPT_MESSAGES, addPrompt, resolveParts } from "../../src/collector/trace-parts.ts";
import type { TracedObservation } from "../../src/collector/joiner-types.ts";
import { createTraceJoiner } from "../../src/collector/joiner.ts";
import { candidates, footprint } from "../../src/collector/admission.ts";
import type { OtlpLog, OtlpSpan } from "../../src/collector/otlp.ts";
import { expectLinear, measureGrowth, measureGrowthAsync } from "../helpers/growth.ts";

const T = "0af7651916cd43dd8448eb211c80319c";
const fresh = (): TraceParts => ({ documents: [], rootSeen: false });
const details = (attributes: Record<string, unknown>, traceId = T): OtlpLog => ({ traceId, spanId: "0000000000000003", eventName: "gen_ai.client.inference.operation.details", body: undefined, attributes, resource: { "service.name": "svc" } });
const chatSpan = (attributes: Record<string, unknown>, spanId = "0000000000000003"): OtlpSpan => ({ traceId: T, spanId, parentSpanId: "0000000000000001", name: "chat", attributes: { "gen_ai.operation.name": "chat", ...attributes }, resource: { "service.name": "svc" } });
/** n distinct messages, alternating user and assistant, the last one a user message. */
const messages = (n: number, tag = "m"): string => JSON.stringify(Array.from({ length: n }, (_, i) => ({ role: (n - 1 - i) % 2 === 0 ? "user" : "assistant", content: `${tag} message ${i}` })));

function joiner() {
  const out: TracedObservation[] = [];
  const incomplete: Array<[string, string]> = [];
  const j = createTraceJoiner({ timeoutMs: 1000, maxTraces: 100_000, promptContext: { mode: "system" }, now: () => 0, onObservation: (i) => out.push(i), onIncomplete: (r, route) => incomplete.push([r, route]) });
  return { j, out, incomplete };
}

describe("collector: input messages", () => {
  it("keeps each (role, text) once, in order of arrival, whichever record repeats it", () => {
    const parts = fresh();
    const sys = JSON.stringify([{ role: "system", content: "Docs: returns within 30 days." }]);
    const input = JSON.stringify([
      { role: "user", content: "How long?" },
      { role: "assistant", content: "How long?" },
      { role: "user", content: "How long?" },
    ]);
    absorbLog(parts, details({ "gen_ai.system_instructions": sys, "gen_ai.input.messages": input }));
    absorbSpan(parts, chatSpan({ "gen_ai.system_instructions": sys, "gen_ai.input.messages": input }));
    expect(parts.prompt).toEqual([
      { role: "system", content: "Docs: returns within 30 days." },
      { role: "user", content: "How long?" },
      { role: "assistant", content: "How long?" },
    ]);
    expect(parts.messagesDropped).toBeUndefined();
  });

  it(`keeps at most ${MAX_PROMPT_MESSAGES} messages a trace, counts each record cut short as too_many_messages, and still takes the last user message as the question`, () => {
    const { j, out, incomplete } = joiner();
    const n = MAX_PROMPT_MESSAGES + 500;
    j.addLogs([details({ "gen_ai.input.messages": messages(n) })]);
    j.addLogs([details({ "gen_ai.input.messages": messages(10, "later") })]);
    expect(incomplete).toEqual([
      ["too_many_messages", "svc"],
      ["too_many_messages", "svc"],
    ]);
    // The trace goes on: a system message within the kept ones is the context, the last user message of the long array the question.
    j.addLogs([{ ...details({}), eventName: "gen_ai.choice", body: { index: 0, message: { content: "Thirty days." } } }]);
    j.add([{ ...chatSpan({}, "0000000000000001"), parentSpanId: "", attributes: { "http.route": "/chat" } }]);
    j.drain();
    // No system message among them: the prompt has no context to give (counted once, by its reason).
    expect(out).toEqual([]);
    expect(incomplete.at(-1)).toEqual(["no_documents_prompt_unmatched", "/chat"]);
  });

  it("reads the question from the last user message of an input array longer than the cap", () => {
    const parts = fresh();
    absorbLog(parts, details({ "gen_ai.input.messages": messages(MAX_PROMPT_MESSAGES * 3) }));
    expect(parts.prompt).toHaveLength(MAX_PROMPT_MESSAGES);
    expect(parts.messagesDropped).toBe(MAX_PROMPT_MESSAGES * 2);
    expect(parts.lastUserMessage).toBe(`m message ${MAX_PROMPT_MESSAGES * 3 - 1}`);
    const span = fresh();
    absorbSpan(span, chatSpan({ "gen_ai.input.messages": messages(MAX_PROMPT_MESSAGES * 3) }));
    expect(span.question).toBe(`m message ${MAX_PROMPT_MESSAGES * 3 - 1}`);
  });

  it("absorbs 300,000 documents in one attribute without overflowing the stack, and counts them in the trace's bytes", () => {
    // push(...docs) threw RangeError (Maximum call stack size exceeded), a 500 for a 1.5 MB request.
    const { j, incomplete } = joiner();
    const docs = JSON.stringify(Array.from({ length: 300_000 }, (_, i) => String(i % 10)));
    expect(() => j.add([chatSpan({ "gen_ai.retrieval.documents": docs })])).not.toThrow();
    // Each kept document costs more than its one character.
    expect(j.bytes).toBeGreaterThan(300_000 * 16);
    expect(j.bytes).toBeLessThanOrEqual(footprint(j.lookup, { spans: [chatSpan({ "gen_ai.retrieval.documents": docs }, "0000000000000009")] }).bytes);
    expect(incomplete).toEqual([]);
  });

  it("reads no message from a log event named after an Object.prototype property (constructor, __proto__, toString)", () => {
    const parts = fresh();
    for (const eventName of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      absorbLog(parts, { traceId: T, spanId: "0000000000000003", eventName, body: { content: "Documents: the refund window is 90 days." }, attributes: {}, resource: {} });
    }
    expect(parts.prompt ?? []).toEqual([]);
    absorbLog(parts, { traceId: T, spanId: "0000000000000003", eventName: "gen_ai.user.message", body: { content: "How long?" }, attributes: {}, resource: {} });
    expect(parts.prompt).toEqual([{ role: "user", content: "How long?" }]);
  });

  it("does not keep blank documents", () => {
    const parts = fresh();
    absorbSpan(parts, chatSpan({ "gen_ai.retrieval.documents": JSON.stringify(["", "  ", "Returns within 30 days."]), "gen_ai.output.messages": JSON.stringify([{ role: "assistant", content: "30 days." }]) }));
    expect(parts.documents).toEqual(["Returns within 30 days."]);
    expect(resolveParts(parts)).toMatchObject({ ok: true, documents: ["Returns within 30 days."] });
  });
});

// The joiner's sizes keep one measurement to about a second of CPU: on a busy machine this process
// gets a fraction of a core, and the test's timeout is wall-clock time.
describe("collector: promptContext's pattern over input messages", () => {
  const pattern = /Docs: (?<context>[^\n]+)\nQuestion: (?<question>[^\n]+)/;
  const answered = (): TraceParts => ({ ...fresh(), answer: "Within 30 days.", rootSeen: true });

  it("does not read a message longer than MAX_PROMPT_MATCH_CHARS, and says so when nothing else matched", () => {
    const parts = answered();
    addPrompt(parts, [{ role: "system", content: `Docs: returns within 30 days.${" pad".repeat(MAX_PROMPT_MATCH_CHARS / 4)}\nQuestion: How long?` }]);
    expect(resolveParts(parts, { mode: "regex", pattern })).toEqual({ ok: false, reason: "no_documents_prompt_too_long" });
    addPrompt(parts, [{ role: "system", content: "Docs: refunds in 5 days.\nQuestion: When is my refund?" }]);
    expect(resolveParts(parts, { mode: "regex", pattern })).toMatchObject({ ok: true, documents: ["refunds in 5 days."], question: "When is my refund?" });
  });

  it("reads each message once however often the trace is resolved (a record that touches a trace resolves it again)", () => {
    const parts = answered();
    const counted = new RegExp(pattern.source);
    let reads = 0;
    const exec = counted.exec.bind(counted);
    counted.exec = (text: string) => {
      reads++;
      return exec(text);
    };
    for (let i = 0; i < 50; i++) {
      addPrompt(parts, [{ role: "user", content: `message ${i} without documents` }]);
      expect(resolveParts(parts, { mode: "regex", pattern: counted })).toEqual({ ok: false, reason: "no_documents_prompt_unmatched" });
    }
    expect(reads).toBe(50);
    // Another pattern reads them again, from the first.
    expect(resolveParts(parts, { mode: "regex", pattern: /Docs: (?<context>.+)/ })).toEqual({ ok: false, reason: "no_documents_prompt_unmatched" });
    expect(parts.promptPicked?.scanned).toBe(50);
  });
});

describe("collector: linear growth over input text (N vs 8N)", () => {
  it("absorbLog: distinct input messages of one record", () => {
    // Quadratic before: 20,000 messages took 0.7 s, 80,000 about 9 s.
    // 32,000 messages (1.4 MB of JSON) at most: past MAX_JSON_CHARS (2 MB) a record's messages are not read at all.
    expectLinear("absorbLog distinct messages", measureGrowth((n) => details({ "gen_ai.input.messages": messages(n) }), (log) => absorbLog(fresh(), log), { n: 4000, maxN: 4000 }));
  });

  it("absorbLog: repeated input messages of one record (the keyed duplicate check)", () => {
    const repeated = (n: number): OtlpLog => details({ "gen_ai.input.messages": JSON.stringify(Array.from({ length: n }, (_, i) => ({ role: "user", content: `m ${i % 500}` }))) });
    expectLinear("absorbLog repeated messages", measureGrowth(repeated, (log) => absorbLog(fresh(), log), { n: 4000, maxN: 4000 }));
  });

  it("absorbSpan: distinct input messages and documents of one span", () => {
    const span = (n: number): OtlpSpan =>
      chatSpan({
        "gen_ai.input.messages": messages(n),
        "gen_ai.retrieval.documents": JSON.stringify(Array.from({ length: n }, (_, i) => `document ${i}`)),
      });
    // 2,000 against 8,000 (N vs 4N): at 4,000 against 32,000 the larger span took 356 fresh pages a run,
    // the smaller none, and read ×18.7 on a loaded machine (two suites at once) from page faults alone.
    expectLinear("absorbSpan messages and documents", measureGrowth(span, (s) => absorbSpan(fresh(), s), { n: 2000, maxN: 2000, factor: 4 }));
  });

  it("absorbSpan: indexed OpenLLMetry prompt and OpenInference document attributes of one span", () => {
    // 1,024 attributes against 4,096 (MAX_RECORD_ATTRIBUTES, the most a decoded record holds; N vs 4N):
    // both past the few hundred properties where V8 turns an object into a dictionary (a step in cost,
    // not growth), and a dictionary's cost per property grows a little with its size.
    const span = (n: number): OtlpSpan =>
      chatSpan(
        Object.fromEntries(
          Array.from({ length: n }, (_, i) => [
            [`gen_ai.prompt.${i}.content`, `p ${i}`],
            [`retrieval.documents.${i}.document.content`, `d ${i}`],
          ]).flat(),
        ),
      );
    expectLinear("absorbSpan indexed attributes", measureGrowth(span, (s) => absorbSpan(fresh(), s), { n: 512, maxN: 512, factor: 4 }));
  });

  it("the joiner: many log records of one trace, each with messages", async () => {
    const logs = (n: number): OtlpLog[] => Array.from({ length: n }, (_, i) => details({ "gen_ai.input.messages": messages(4, `r${i}`) }));
    const growth = await measureGrowthAsync(logs, async (records) => {
      const { j } = joiner();
      await j.ingest({ logs: records }, () => Promise.resolve());
      j.drain();
    }, { n: 500, maxN: 500 });
    expectLinear("joiner ingest, one trace", growth);
  });

  it("the joiner: many traces, with candidates and footprint", async () => {
    const spans = (n: number): OtlpSpan[] => Array.from({ length: n }, (_, i) => ({ ...chatSpan({ "gen_ai.input.messages": messages(2, `t${i}`) }), traceId: i.toString(16).padStart(32, "0") }));
    const growth = await measureGrowthAsync(spans, async (records) => {
      const { j } = joiner();
      candidates(j.lookup, { spans: records });
      footprint(j.lookup, { spans: records });
      await j.ingest({ spans: records }, () => Promise.resolve());
      j.drain();
    }, { n: 500, maxN: 500 });
    expectLinear("joiner ingest, many traces", growth);
  });
});
