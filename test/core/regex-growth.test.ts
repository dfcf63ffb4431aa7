/**
 * The audit of issue 24: every regular expression in src/ that reads text from callers (answers,
 * documents, messages, routes, attribute keys, remote replies) is timed at N and 8N on input crafted
 * against its quantifiers: whitespace runs, repeated openers with no closer, long runs of the
 * characters two adjacent quantifiers share. Linear work grows ~8×; quadratic ~64×.
 * (Citations: citations-growth.test.ts; route patterns: test/sdk/sampling-growth.test.ts;
 * promptContext: test/config/linear-pattern.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { escapeHtml, escapeXml, mdText, plainText } from "../../src/cli/shared/escape.ts";
import { sanitizeForTerminal } from "../../src/cli/shared/io.ts";
import { parsePromText } from "../../src/cli/shared/prom-text.ts";
import type { TraceParts } from "../../src/collector/trace-parts.ts";
import { absorbSpan } from "../../src/collector/extract.ts";
import { splitClaims } from "../../src/core/claims/index.ts";
import { estimateTokens } from "../../src/core/context.ts";
import { isRefusalAnswer } from "../../src/core/refusal.ts";
import { normaliseAnswer } from "../../src/core/entropy/semantic-entropy.ts";
import { limitText, restSpan } from "../../src/core/limits.ts";
import { extractQuantities } from "../../src/core/quantities.ts";
import { createTextAnalyzer } from "../../src/core/text.ts";
import { parseJudgeReply } from "../../src/nli/judge/backend.ts";
import { traceFraction } from "../../src/sdk/sampling.ts";
import { sanitizeLabel } from "../../src/telemetry/labels.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

/** Fixed sizes: the larger, 8 × n, is what the audit of issue 24 timed as 4N (test/helpers/growth.ts). */
const at = (n: number) => ({ n, maxN: n });
const repeatTo = (unit: string, n: number): string => unit.repeat(Math.max(1, Math.floor(n / unit.length)));
const ESC = "\u001b";

type Case = readonly [string, (n: number) => string];
const linearOn = (what: string, make: (n: number) => string, run: (s: string) => unknown, n: number): void => {
  expectLinear(what, measureGrowth(make, run, at(n)));
};

describe("core/claims/ and core/refusal.ts: list markers, sentence ends, skip patterns and refusals, through splitClaims", () => {
  // No analysis cache: each timed run analyses its text.
  const analyzer = createTextAnalyzer({ cacheBytes: 0 });
  it.each<Case>([
    ["an indent of spaces and tabs with no list marker (LIST_MARKER)", (n) => `${repeatTo(" \t", n)}x is 5.`],
    ["a sentence end, then a whitespace run and more text (TERMINAL)", (n) => `Fine.${" ".repeat(n)}x is 5.`],
    ["a bare yes, then a run of spaces, commas and stops (BARE_YES_NO, FILLER)", (n) => `Yes${repeatTo(" ,.!", n)}x`],
    ["'I searched' and no 'but … found no' ([\\s\\S]* in REFUSAL)", (n) => `I searched${repeatTo(" the docs", n)}.`],
    ["an opener, then a whitespace run (LEAD)", (n) => `Unfortunately${" ".repeat(n)}x is 5.`],
    ["hmm with a long run of m (LEAD hmm+)", (n) => `Hmm${"m".repeat(n)} x is 5.`],
    ["a source lead, then a whitespace run (SOURCE_LEAD)", (n) => `Based on the provided context${" ".repeat(n)}, x is 5.`],
    ["an apology, then a whitespace run (BARE_REFUSAL)", (n) => `I'm sorry${" ".repeat(n)}x`],
  ])("%s", (what, make) => {
    linearOn(what, make, (s) => splitClaims(s, analyzer), 2000);
  });

  it("many short sentences", () => {
    linearOn("many short sentences", (n) => repeatTo("The fee is 5 euros. ", n), (s) => splitClaims(s, analyzer), 2000);
  });
});

describe("core/quantities.ts and core/text.ts: token patterns (each token at most maxTokenChars)", () => {
  const analyzer = createTextAnalyzer({ cacheBytes: 0 });
  it.each<Case>([
    ["times, money and ordinals", (n) => repeatTo("At 12:30 pm on May 3rd it cost $1,000.50 (25%). ", n)],
    ["long runs of digits and commas, cut to tokens", (n) => repeatTo("1,", n)],
  ])("%s", (what, make) => {
    linearOn(what, make, (s) => extractQuantities(analyzer.analyze(s)), 2000);
  });
});

describe("core: entropy refusals, answer normalising, limits, token estimates", () => {
  it.each<Case>([
    ["isRefusalAnswer: 'might' and a whitespace run (ANSWER_MARKERS)", (n) => `might${" ".repeat(n)}x`],
    ["isRefusalAnswer: 'i' and a whitespace run (REFUSALS)", (n) => `i${" ".repeat(n)}x`],
    ["isRefusalAnswer: 'i do' and a whitespace run", (n) => `i do${" ".repeat(n)}x`],
  ])("%s", (what, make) => {
    linearOn(what, make, isRefusalAnswer, 12_500);
  });

  it("normaliseAnswer: alternating letters and punctuation", () => {
    linearOn("normaliseAnswer", (n) => repeatTo("a!?", n), normaliseAnswer, 12_500);
  });
  it("estimateTokens: letters, digits and symbols", () => {
    linearOn("estimateTokens", (n) => repeatTo("ab12!", n), estimateTokens, 12_500);
  });
  it("restSpan and limitText: a whitespace run", () => {
    linearOn("restSpan", (n) => `${" ".repeat(n)}x${" ".repeat(n)}`, (s) => restSpan(s, 0), 12_500);
    linearOn("limitText", (n) => `${"word ".repeat(n / 5)}${" ".repeat(n)}`, (s) => limitText(s, 100, 100), 12_500);
  });
});

describe("telemetry/labels.ts, cli/shared/io.ts, cli/shared/escape.ts: escapes and control characters", () => {
  const texts: Case[] = [
    ["CSI with no final byte", (n) => `${ESC}[${"0".repeat(n)}`],
    ["CSI parameters then intermediates with no final byte", (n) => `${ESC}[${"0;".repeat(n / 4)}${" ".repeat(n / 2)}`],
    ["repeated CSI openers", (n) => repeatTo(`${ESC}[`, n)],
    ["OSC with no terminator", (n) => `${ESC}]8;;${"a".repeat(n)}`],
    ["repeated OSC openers", (n) => repeatTo(`${ESC}]`, n)],
    ["a whitespace run with no line break", (n) => `a${" ".repeat(n)}b`],
    ["whitespace runs around line breaks", (n) => repeatTo(`  \n \t  \r\n `, n)],
    ["high surrogates", (n) => `a${"\ud800".repeat(n)}`],
  ];
  // 1,250 characters against 10,000: from about 16,000 up, what these functions build is over V8's
  // 128 KiB large-object size, fresh from the kernel on every run (test/helpers/growth.ts).
  const TEXT = 1250;
  it.each(texts)("sanitizeLabel: %s", (what, make) => linearOn(what, make, (s) => sanitizeLabel(s, "unknown", 1_000_000), TEXT));
  it.each(texts)("sanitizeForTerminal: %s", (what, make) => linearOn(what, make, sanitizeForTerminal, TEXT));
  it.each(texts)("plainText, mdText, escapeHtml, escapeXml: %s", (what, make) =>
    linearOn(
      what,
      make,
      (s) => {
        plainText(s);
        mdText(s);
        escapeHtml(s);
        escapeXml(s, true);
      },
      TEXT,
    ),
  );

  it("plainText collapses each whitespace run holding a line break or tab to one space, as the pattern it replaces did", () => {
    expect(plainText("a  \n\t b   c\r\nd\u2028e\u000b\tf")).toBe("a b   c d e f");
    expect(plainText("  lead\n")).toBe("  lead ");
    // eslint-disable-next-line no-control-regex
    const invisible = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
    const old = (v: string): string => v.replace(invisible, "").replace(/\s*(?:\r\n|[\t\n\r\u2028\u2029])\s*/g, " ");
    const pieces = [" ", "  ", "\t", "\n", "\r", "\r\n", "\u2028", "\u00a0", "\u000b", "a", "bc"];
    let seed = 11;
    for (let k = 0; k < 20_000; k++) {
      let v = "";
      for (let p = 0; p < 8; p++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        v += pieces[seed % pieces.length];
      }
      expect(plainText(v), JSON.stringify(v)).toBe(old(v));
    }
  });
});

describe("collector/extract.ts: indexed attribute keys", () => {
  const span = (attributes: Record<string, unknown>) => ({ traceId: "1".repeat(32), spanId: "1".repeat(16), parentSpanId: "", name: "llm", attributes, resource: {} });
  it.each<Case>([
    ["an input-message key with a long tail and a line break", (n) => `llm.input_messages.1.${"a".repeat(n)}\nb`],
    ["a document key with a long index and no suffix", (n) => `retrieval.documents.${"1".repeat(n)}x`],
    ["a GenAI prompt key with a long tail", (n) => `gen_ai.prompt.1.${"a".repeat(n)}`],
  ])("%s", (what, make) => {
    linearOn(what, make, (key) => absorbSpan({ documents: [], rootSeen: false } satisfies TraceParts, span({ "openinference.span.kind": "LLM", [key]: "x" })), 12_500);
  });
});

describe("remote replies and trace ids", () => {
  it("parseJudgeReply: a run of full stops", () => {
    linearOn(
      "parseJudgeReply",
      (n) => `${".".repeat(n)}x`,
      (s) => {
        try {
          parseJudgeReply(s);
        } catch {
          // not one label: refused, which is the point
        }
      },
      12_500,
    );
  });

  it.each<Case>([
    ["a label block of word characters with no '='", (n) => `m{${"x".repeat(n)}} 1`],
    ["an unterminated label value", (n) => `m{a="${"x".repeat(n)}} 1`],
    ["repeated label names with no value", (n) => `m{${repeatTo("a=,", n)}} 1`],
    ["a name and a whitespace run with no value", (n) => `m${" ".repeat(n)}`],
  ])("parsePromText: %s", (what, make) => {
    linearOn(what, make, parsePromText, 12_500);
  });

  it("parsePromText reads labels as before", () => {
    expect(parsePromText('m{a="1",b_2="x\\"y",le="0.5"} 3\n# c\nn 4')).toEqual([
      { name: "m", labels: { a: "1", b_2: 'x"y', le: "0.5" }, value: 3 },
      { name: "n", labels: {}, value: 4 },
    ]);
  });

  it("traceFraction: a long run of zeros", () => {
    linearOn("traceFraction", (n) => `${"0".repeat(n)}x`, traceFraction, 12_500);
  });
});
