/**
 * promptContext patterns run over prompts that callers send: they are compiled for V8's linear-time
 * engine, so the documented example stays linear on a prompt crafted against it, and a pattern that
 * engine cannot run is refused at startup with a ConfigError that says why.
 */
import { describe, expect, it } from "vitest";
import type { TraceParts } from "../../src/collector/trace-parts.ts";
import { resolveParts } from "../../src/collector/trace-parts.ts";
import { parsePromptContext, resolveCollectorOptions } from "../../src/collector/options.ts";
import { ConfigError } from "../../src/config/errors.ts";
import { compileLinearPattern } from "../../src/config/linear-pattern.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const DOCUMENTED = "Documents:\\n(?<context>[\\s\\S]*?)\\n\\nQuestion:";

const parts = (content: string): TraceParts => ({ documents: [], answer: "The fee is $5.", rootSeen: true, prompt: [{ role: "user", content }] });

describe("promptContext patterns", () => {
  it("read the documents as before", () => {
    const resolved = resolveParts(parts("Documents:\nThe fee is $5.\n\nQuestion: what is the fee?"), parsePromptContext("promptContext", DOCUMENTED));
    expect(resolved).toMatchObject({ ok: true, documents: ["The fee is $5."], convention: "prompt" });
  });

  it('grow linearly on a prompt of many "Documents:" lines and no "Question:" (the documented example)', () => {
    const promptContext = parsePromptContext("promptContext", DOCUMENTED);
    // 250 lines against 2,000 (22 KB): the linear engine takes scratch memory for every character
    // (about 1.8 KB a line here), and past a few MB glibc gives it back to the kernel after each match,
    // so a larger prompt would take it fresh on every run where the smaller does not
    // (docs/development.md, "Growth tests"). Backtracking is already ×8 a line at these sizes.
    const growth = measureGrowth(
      (n) => parts("Documents:\n".repeat(n)),
      (p) => resolveParts(p, promptContext),
      { n: 250, maxN: 250 },
    );
    expectLinear("documented promptContext on repeated Documents:", growth);
  });

  it.each([
    ["a backreference", "(?<context>a+)\\1"],
    ["a lookahead", "(?<context>.*)(?=Question)"],
    ["a lookbehind", "(?<=Docs:)(?<context>.*)"],
    ["a counted repetition of more than 16", "(?<context>[\\s\\S]{0,100})"],
  ])("refuse %s with a ConfigError that says the pattern must run in linear time", (_, pattern) => {
    expect(() => resolveCollectorOptions({ env: {}, promptContext: pattern })).toThrow(ConfigError);
    expect(() => resolveCollectorOptions({ env: {}, promptContext: pattern })).toThrow(/invalid promptContext: .*must run in linear time.*backreferences/);
  });

  it("accept counted repetitions up to 16 and unbounded ones", () => {
    expect(parsePromptContext("promptContext", "Docs:(?<context>[\\s\\S]{2,}?)\\n{1,16}Question:")).toMatchObject({ mode: "regex" });
  });

  it("name the field and the engine's message for an invalid pattern", () => {
    expect(() => compileLinearPattern("collector.pattern", "(")).toThrow(/invalid collector.pattern: "\(" \(not a valid regular expression \(.+\)\)/);
  });
});
