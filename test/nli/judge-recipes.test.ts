/**
 * The judge's recipes for open detector LLMs (src/nli/recipes/judge.ts), against the fake
 * OpenAI-compatible server answering as vLLM and as Ollama do (test/helpers/judge-server.ts
 * `answerAs`): the request each recipe sends, checked against its reference code's line, and every
 * reply mode read strictly — a reply it cannot read fails the batch with a named reason and leaves
 * the answer unscorable, never a guess.
 */
import { describe, expect, it } from "vitest";
import type { NliPair } from "../../src/core/backend.ts";
import { summarize } from "../../src/evaluation/summary.ts";
import { createJudgeBackend } from "../../src/nli/judge/backend.ts";
import { parsePassFailJson, parseScoreTag } from "../../src/nli/judge/replies.ts";
import { JUDGE_RECIPES, resolveJudgeRecipe } from "../../src/nli/recipes/index.ts";
import { METRICS } from "../../src/telemetry/semconv.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";
import { recordSummary, scoreOnce } from "../helpers/record-summary.ts";
import type { JudgeRequest, Scripted, ScriptedToken, Serving } from "../helpers/judge-server.ts";
import { answerAs, startJudgeServer } from "../helpers/judge-server.ts";

const PAIR: NliPair = { premise: "The museum opens at nine.", hypothesis: "The museum opens at 9 am." };
const SERVERS = ["vllm", "ollama"] as const satisfies readonly Serving[];
const ln = Math.log;

/** A judge on `recipe` whose server answers every request as `serving` answers `scripted`; the server's requests are kept. */
async function judgeOn(recipe: string, serving: Serving, scripted: Scripted | ((req: JudgeRequest) => Scripted), extra: { budget?: number; backoffMs?: number } = {}) {
  const server = await startJudgeServer((req) => answerAs(serving, req, typeof scripted === "function" ? scripted(req) : scripted));
  const judge = createJudgeBackend({ baseUrl: server.url, model: "detector-1", apiKey: "k", recipe, attempts: 1, ...extra });
  return { server, judge };
}

/** The error a batch of one pair fails with. */
async function failure(recipe: string, serving: Serving, scripted: Scripted): Promise<unknown> {
  const { judge } = await judgeOn(recipe, serving, scripted);
  return judge.classify([PAIR]).then(
    () => new Error("the batch did not fail"),
    (e: unknown) => e,
  );
}

describe("the judge recipes", () => {
  it("lists nli first, as the default, then the detectors", () => {
    expect(JUDGE_RECIPES.map((r) => r.name)).toEqual(["nli", "bespoke-minicheck", "granite-guardian", "granite-guardian-think", "lynx"]);
    expect(resolveJudgeRecipe(undefined).name).toBe("nli");
  });

  it.each(JUDGE_RECIPES.map((r) => [r.name, r] as const))("%s: fills the hypothesis, and the premise in its message or its documents, and names its reference", (_name, recipe) => {
    expect(recipe.message.template).toContain("{hypothesis}");
    expect(recipe.message.template.includes("{premise}") || recipe.premiseAs === "documents").toBe(true);
    expect(recipe.reference.length).toBeGreaterThan(20);
    expect(recipe.maxTokens).toBeGreaterThan(0);
  });

  it("refuses an unknown judge recipe with a ConfigError on recipe that lists the names", () => {
    expect(() => createJudgeBackend({ baseUrl: "http://127.0.0.1:9/v1", model: "m", recipe: "factcg" })).toThrow(
      'invalid recipe: "factcg" (not a judge recipe; the judge\'s recipes are nli, bespoke-minicheck, granite-guardian, granite-guardian-think, lynx)',
    );
  });

  it("carries a recipe other than nli in the backend's version (the NLI cache and results), and nli's version is the model alone", () => {
    const base = { baseUrl: "http://127.0.0.1:9/v1", model: "m" };
    expect(createJudgeBackend(base).version).toBe("m");
    expect(createJudgeBackend({ ...base, recipe: "nli" }).version).toBe("m");
    expect(createJudgeBackend({ ...base, recipe: "lynx" }).version).toBe("m (recipe lynx)");
  });

  it("keeps relevance for groundwatch's own prompt only: a detector answers its own question, not a relevance score", () => {
    const base = { baseUrl: "http://127.0.0.1:9/v1", model: "m" };
    expect(createJudgeBackend(base).relevance).toBeTypeOf("function");
    for (const recipe of ["bespoke-minicheck", "granite-guardian", "lynx"]) {
      const judge = createJudgeBackend({ ...base, recipe });
      expect(judge.relevance).toBeUndefined();
      expect(judge.relevanceScorer).toBeUndefined();
    }
  });
});

describe("the request each recipe sends", () => {
  it("nli: unchanged — a system prompt, the fenced pair, 5 tokens, no logprobs or template arguments", async () => {
    const { server, judge } = await judgeOn("nli", "vllm", { content: "ENTAILMENT" });
    await judge.classify([PAIR]);
    const req = server.requests[0];
    expect(Object.keys(req ?? {}).filter((k) => !["authorization", "path"].includes(k))).toEqual(["model", "temperature", "max_tokens", "messages"]);
    expect(req?.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(req?.messages[1]?.content).toBe("PREMISE\n<<<>>>\nThe museum opens at nine.\n<<<>>>\n\nHYPOTHESIS\n<<<>>>\nThe museum opens at 9 am.\n<<<>>>\n\nLabel:");
  });

  it("bespoke-minicheck: MiniCheck's system and user prompts, one token, logprobs with the top 5", async () => {
    const { server, judge } = await judgeOn("bespoke-minicheck", "vllm", { content: "Yes", tokens: [{ token: "Yes", logprob: ln(0.9), top: [["Yes", ln(0.9)]] }] });
    await judge.classify([PAIR]);
    const req = server.requests[0];
    // Liyan06/MiniCheck minicheck/utils.py line 1:
    // SYSTEM_PROMPT = """Determine whether the provided claim is consistent with the corresponding document. Consistency in this context implies that all information presented in the claim is substantiated by the document. If not, it should be considered inconsistent. Please assess the claim's consistency with the document by responding with either "Yes" or "No"."""
    expect(req?.messages[0]).toEqual({
      role: "system",
      content:
        'Determine whether the provided claim is consistent with the corresponding document. Consistency in this context implies that all information presented in the claim is substantiated by the document. If not, it should be considered inconsistent. Please assess the claim\'s consistency with the document by responding with either "Yes" or "No".',
    });
    // minicheck/utils.py line 4: USER_PROMPT = """Document: [DOCUMENT]\nClaim: [CLAIM]"""
    // minicheck/inference.py line 366: user_prompt = self.user_prompt.replace("[DOCUMENT]", doc).replace("[CLAIM]", claim)
    expect(req?.messages[1]).toEqual({ role: "user", content: "Document: The museum opens at nine.\nClaim: The museum opens at 9 am." });
    // minicheck/inference.py lines 344-348: SamplingParams(temperature=0, max_tokens=self.max_tokens (1 for Bespoke), ..., logprobs=5)
    expect(req).toMatchObject({ model: "detector-1", temperature: 0, max_tokens: 1, logprobs: true, top_logprobs: 5 });
    expect(req).not.toHaveProperty("chat_template_kwargs");
    expect(req).not.toHaveProperty("documents");
  });

  it("bespoke-minicheck: puts the texts in verbatim, as the model was trained, and fills each slot once", async () => {
    const { server, judge } = await judgeOn("bespoke-minicheck", "vllm", { content: "No", tokens: [{ token: "No", logprob: 0, top: [["No", 0]] }] });
    await judge.classify([{ premise: "A {hypothesis} and <<<>>> stay as they are.", hypothesis: "{premise}" }]);
    expect(server.requests[0]?.messages[1]?.content).toBe("Document: A {hypothesis} and <<<>>> stay as they are.\nClaim: {premise}");
  });

  it("granite-guardian: the claim as the assistant turn, the premise as documents, the groundedness criterion, thinking off", async () => {
    const { server, judge } = await judgeOn("granite-guardian", "vllm", { content: "<score> no </score>" });
    await judge.classify([PAIR]);
    const req = server.requests[0];
    // Liyan06/MiniCheck minicheck/inference.py lines 373-376 (gg_hybrid):
    //   documents = [{'doc_id':'0', 'text': doc}]
    //   messages = [{"role": "assistant", "content": claim}]
    //   guardian_config = {"criteria_id": "groundedness"}
    //   text = self.tokenizer.apply_chat_template(messages, guardian_config = guardian_config, documents=documents, think=True, ...)
    // vLLM's chat request takes `documents` as a top-level field and passes it, with chat_template_kwargs, to the template.
    expect(req?.messages).toEqual([{ role: "assistant", content: "The museum opens at 9 am." }]);
    expect(req?.documents).toEqual([{ doc_id: "0", text: "The museum opens at nine." }]);
    expect(req?.chat_template_kwargs).toEqual({ guardian_config: { criteria_id: "groundedness" }, think: false });
    expect(req).toMatchObject({ temperature: 0, max_tokens: 64, logprobs: true, top_logprobs: 5 });
  });

  it("granite-guardian-think: thinking on with MiniCheck's 2048 tokens (minicheck/minicheck.py line 98: max_tokens=2048)", async () => {
    const { server, judge } = await judgeOn("granite-guardian-think", "vllm", { content: "<think>The document gives nine.</think>\n<score> no </score>" });
    await judge.classify([PAIR]);
    expect(server.requests[0]?.chat_template_kwargs).toEqual({ guardian_config: { criteria_id: "groundedness" }, think: true });
    expect(server.requests[0]?.max_tokens).toBe(2048);
  });

  it("lynx: the model card's prompt as the one user message, QUESTION left empty, 600 tokens, no logprobs", async () => {
    const { server, judge } = await judgeOn("lynx", "vllm", { content: '{"REASONING": ["It says nine."], "SCORE": "PASS"}' });
    await judge.classify([PAIR]);
    const req = server.requests[0];
    // PatronusAI/Llama-3-Patronus-Lynx-8B-Instruct model card (haizelabs/sphynx hallu_detection_prompt.py lines 3-22):
    //   PROMPT = """\nGiven the following QUESTION, DOCUMENT and ANSWER you must analyze ... \n--\nQUESTION (THIS DOES NOT COUNT AS BACKGROUND INFORMATION):\n{question}\n\n--\nDOCUMENT:\n{context}\n\n--\nANSWER:\n{answer}\n\n--\n\nYour output should be in JSON FORMAT ...\n{{"REASONING": <your reasoning as bullet points>, "SCORE": <your final score>}}\n"""
    // groundwatch's pairs have no question: {question} is empty.
    expect(req?.messages).toEqual([
      {
        role: "user",
        content:
          '\nGiven the following QUESTION, DOCUMENT and ANSWER you must analyze the provided answer and determine whether it is faithful to the contents of the DOCUMENT. The ANSWER must not offer new information beyond the context provided in the DOCUMENT. The ANSWER also must not contradict information provided in the DOCUMENT. Output your final verdict by strictly following this format: "PASS" if the answer is faithful to the DOCUMENT and "FAIL" if the answer is not faithful to the DOCUMENT. Show your reasoning.\n\n--\nQUESTION (THIS DOES NOT COUNT AS BACKGROUND INFORMATION):\n\n\n--\nDOCUMENT:\nThe museum opens at nine.\n\n--\nANSWER:\nThe museum opens at 9 am.\n\n--\n\nYour output should be in JSON FORMAT with the keys "REASONING" and "SCORE":\n{"REASONING": <your reasoning as bullet points>, "SCORE": <your final score>}\n',
      },
    ]);
    expect(req).toMatchObject({ temperature: 0, max_tokens: 600 });
    expect(req).not.toHaveProperty("logprobs");
  });
});

/** Bespoke's first token: "Yes" most likely; " Yes" and "yes" count as yes once trimmed and lower-cased. */
const YES: ScriptedToken = { token: "Yes", logprob: ln(0.9), top: [["Yes", ln(0.9)], ["No", ln(0.06)], ["yes", ln(0.02)], [" Yes", ln(0.01)], ["no", ln(0.005)], ["YES", ln(0.001)]] };
const NO: ScriptedToken = { token: "No", logprob: ln(0.8), top: [["No", ln(0.8)], ["Yes", ln(0.15)], ["no", ln(0.03)], ["yes", ln(0.01)], ["Maybe", ln(0.005)]] };

describe("bespoke-minicheck: a Yes/No first token, P(supported) from its top logprobs", () => {
  it.each(SERVERS)("%s: sums the yes tokens of the top 5 (minicheck/inference.py line 387: if decoded_token.lower() == 'yes')", async (serving) => {
    const { server, judge } = await judgeOn("bespoke-minicheck", serving, { content: "Yes", tokens: [YES] });
    const [result] = await judge.classify([PAIR]);
    // The sixth alternative ("YES") is past top_logprobs 5: the server never sent it.
    expect(result?.entailment).toBeCloseTo(0.9 + 0.02 + 0.01, 12);
    expect(result?.neutral).toBeCloseTo(1 - 0.93, 12);
    expect(result?.contradiction).toBe(0);
    expect(server.requests).toHaveLength(1);
  });

  it.each(SERVERS)("%s: a No keeps its small yes mass, and a one-token reply cut at max_tokens (finish_reason length) is not an error", async (serving) => {
    const { server, judge } = await judgeOn("bespoke-minicheck", serving, { content: "No", tokens: [NO] });
    const [result] = await judge.classify([PAIR]);
    expect(result?.entailment).toBeCloseTo(0.15 + 0.01, 12);
    expect(result?.contradiction).toBe(0);
    const reply = answerAs(serving, server.requests[0] as JudgeRequest, { content: "No", tokens: [NO] }).body as { choices: Array<{ finish_reason: string }> };
    expect(reply.choices[0]?.finish_reason).toBe("length");
  });

  it("an Ollama before 0.12.11 drops the logprobs request: no logprobs, so the reply is unparseable, not a 0 or a 1", async () => {
    expect(await failure("bespoke-minicheck", "ollama-0.12.10", { content: "Yes", tokens: [YES] })).toMatchObject({
      name: "JudgeReplyError",
      code: "judge_reply",
      reason: "unparseable",
      message: expect.stringMatching(/^judge reply unparseable \(bespoke-minicheck\): no logprobs/) as unknown,
    });
  });

  it.each([
    ["Maybe", { content: "Maybe", tokens: [{ token: "Maybe", logprob: ln(0.7), top: [["Maybe", ln(0.7)], ["Yes", ln(0.2)]] }] }, /not "Yes" or "No"/],
    ["a refusal in words (its first token)", { content: "I'm sorry, I can't help with that." }, /not "Yes" or "No"/],
    ["no top logprobs", { content: "Yes", tokens: [{ token: "Yes", logprob: ln(0.9), top: [] }] }, /no top logprobs/],
    ['a "Yes" whose alternatives hold no yes', { content: "Yes", tokens: [{ token: "Yes", logprob: ln(0.4), top: [["No", ln(0.3)], ["Maybe", ln(0.2)]] }] }, /no "yes"/],
  ] as const)("%s: unparseable", async (_name, scripted, message) => {
    for (const serving of SERVERS) {
      const error = await failure("bespoke-minicheck", serving, scripted);
      expect(error).toMatchObject({ name: "JudgeReplyError", reason: "unparseable" });
      expect((error as Error).message).toMatch(message);
    }
  });

  it("logprobs that are not OpenAI's shape (a logprob that is not a number) are unparseable", async () => {
    const server = await startJudgeServer(() => ({
      body: { choices: [{ index: 0, message: { role: "assistant", content: "Yes" }, finish_reason: "length", logprobs: { content: [{ token: "Yes", logprob: "high", top_logprobs: [] }] } }] },
    }));
    const judge = createJudgeBackend({ baseUrl: server.url, model: "m", recipe: "bespoke-minicheck", attempts: 1 });
    await expect(judge.classify([PAIR])).rejects.toThrow(/^judge reply unparseable \(bespoke-minicheck\): its logprobs are malformed/);
  });

  it.each(SERVERS)("%s: the refusal field and a filtered reply keep their own reasons", async (serving) => {
    expect(await failure("bespoke-minicheck", serving, { content: "", refusal: "I can't help with that" })).toMatchObject({ reason: "refused", message: "judge refused: I can't help with that" });
    expect(await failure("bespoke-minicheck", serving, { content: "Yes", tokens: [YES], finish_reason: "content_filter" })).toMatchObject({ reason: "filtered" });
  });
});

/** Granite's score tag as its tokens: "<", "score", ">", " no"/" yes", " </", "score", ">". */
function scoreTokens(word: "yes" | "no", top: ReadonlyArray<readonly [string, number]>): ScriptedToken[] {
  const plain = (token: string): ScriptedToken => ({ token, logprob: 0 });
  return [plain("<"), plain("score"), plain(">"), { token: ` ${word}`, logprob: ln(0.8), top }, plain(" </"), plain("score"), plain(">")];
}

describe("granite-guardian: <score> yes </score> is a risk, <score> no </score> grounded", () => {
  it("P(grounded) from the score token's top logprobs, P(no) / (P(no) + P(yes))", async () => {
    const { judge } = await judgeOn("granite-guardian", "vllm", { content: "<score> no </score>", tokens: scoreTokens("no", [[" no", ln(0.8)], [" yes", ln(0.15)], ["No", ln(0.02)], [" maybe", ln(0.01)]]) });
    const [result] = await judge.classify([PAIR]);
    expect(result?.entailment).toBeCloseTo(0.82 / 0.97, 12);
    expect(result?.contradiction).toBe(0);
  });

  it("a risk's score token gives its small no mass", async () => {
    const { judge } = await judgeOn("granite-guardian", "vllm", { content: "<score> yes </score>", tokens: scoreTokens("yes", [[" yes", ln(0.9)], [" no", ln(0.1)]]) });
    const [result] = await judge.classify([PAIR]);
    expect(result?.entailment).toBeCloseTo(0.1, 12);
  });

  it('without logprobs, reads 1 or 0 from the text, as MiniCheck does (inference.py line 396: support_prob=1.0 if "<score> no </score>" in response_text)', async () => {
    // A server that applies the chat-template arguments but sends no logprobs.
    const replying = (content: string) => startJudgeServer(() => ({ body: { choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] } }));
    const grounded = await replying("<score> no </score>");
    const judge = (url: string) => createJudgeBackend({ baseUrl: url, model: "m", recipe: "granite-guardian" });
    expect(await judge(grounded.url).classify([PAIR])).toEqual([{ entailment: 1, neutral: 0, contradiction: 0, notes: ["granite-guardian: <score> no </score> (no logprobs for the score token)"] }]);
    const risk = await replying("<score> YES </score>\n");
    expect((await judge(risk.url).classify([PAIR]))[0]).toMatchObject({ entailment: 0, neutral: 1, contradiction: 0 });
  });

  it("reads the score after a <think> block (thinking mode)", async () => {
    const { judge } = await judgeOn("granite-guardian-think", "vllm", { content: "<think>\nThe claim says 9 am; the document says nine. <score> yes </score> would be wrong.\n</think>\n<score> no </score>" });
    expect((await judge.classify([PAIR]))[0]?.entailment).toBe(1);
  });

  it.each(["ollama", "ollama-0.12.10"] as const)("%s: refused as unsupported, whatever it answers: Ollama ignores chat_template_kwargs and documents, so its model never saw the criterion or the document", async (serving) => {
    const error = await failure("granite-guardian", serving, { content: "<score> no </score>" });
    expect(error).toMatchObject({ name: "JudgeReplyError", reason: "unsupported" });
    expect((error as Error).message).toBe(
      "judge reply came from Ollama (system_fingerprint fp_ollama), which ignores chat_template_kwargs and documents: the granite-guardian recipe needs a server that applies them to the chat template (vLLM)",
    );
  });

  it.each([
    ["<score> perhaps </score>", { content: "<score> perhaps </score>" }, /not "<score> yes <\/score>" or "<score> no <\/score>"/],
    ["a bare yes", { content: "yes" }, /not "<score> yes/],
    ["text after the score", { content: "<score> no </score> The answer is grounded." }, /not "<score> yes/],
    ["a <think> without its end", { content: "<think>The document gives nine. <score> no </score>" }, /a <think> block without <\/think>/],
    ["a refusal in words", { content: "I'm sorry, but I can't assist with that." }, /not "<score> yes/],
    ["a score token whose logprobs say the opposite", { content: "<score> no </score>", tokens: scoreTokens("yes", [[" yes", ln(0.9)]]) }, /score token's logprobs are not its text's/],
  ] as const)("%s: unparseable", async (_name, scripted, message) => {
    const error = await failure("granite-guardian", "vllm", scripted);
    expect(error).toMatchObject({ name: "JudgeReplyError", reason: "unparseable" });
    expect((error as Error).message).toMatch(message);
  });

  it("a reply cut at max_tokens (a think block past 64 tokens) is truncated, not read", async () => {
    const long = `<think>${"The document says the museum opens at nine. ".repeat(20)}</think>\n<score> no </score>`;
    expect(await failure("granite-guardian", "vllm", { content: long })).toMatchObject({ reason: "truncated", message: "judge reply was truncated (finish_reason length at max_tokens 64)" });
  });
});

describe("lynx: JSON whose SCORE is PASS or FAIL", () => {
  const pass = '{"REASONING": ["The document says the museum opens at nine.", "9 am is nine."], "SCORE": "PASS"}';

  it.each(SERVERS)("%s: PASS is supported, FAIL is not (its not-supported mass is neutral, never a contradiction)", async (serving) => {
    const ok = await judgeOn("lynx", serving, { content: pass });
    expect(await ok.judge.classify([PAIR])).toEqual([{ entailment: 1, neutral: 0, contradiction: 0, notes: ["lynx: SCORE PASS"] }]);
    const fail = await judgeOn("lynx", serving, { content: '{"REASONING": ["The document does not say 9 am."], "SCORE": "FAIL"}' });
    expect((await fail.judge.classify([PAIR]))[0]).toMatchObject({ entailment: 0, neutral: 1, contradiction: 0 });
  });

  it.each([
    ["a ```json fence", "```json\n" + pass + "\n```"],
    ["a bare ``` fence", "```\n" + pass + "\n```"],
    ["surrounding white space", "\n  " + pass + "\n"],
  ])("reads the JSON inside %s", async (_name, content) => {
    const { judge } = await judgeOn("lynx", "vllm", { content });
    expect((await judge.classify([PAIR]))[0]?.entailment).toBe(1);
  });

  it.each([
    ["JSON without SCORE", '{"REASONING": ["It says nine."]}', /JSON without SCORE/],
    ["a SCORE that is neither PASS nor FAIL", '{"REASONING": [], "SCORE": "MAYBE"}', /SCORE is not "PASS" or "FAIL"/],
    ["a lower-case pass", '{"REASONING": [], "SCORE": "pass"}', /SCORE is not "PASS" or "FAIL"/],
    ["prose around the JSON", `Here is my verdict: ${pass}`, /not a JSON object/],
    ["a JSON list", `[${pass}]`, /not a JSON object/],
    ["a fence of another language", "```python\n" + pass + "\n```", /fence that does not hold one JSON object/],
    ["a refusal in words", "I'm sorry, I can't help with that.", /not a JSON object/],
  ])("%s: unparseable", async (_name, content, message) => {
    for (const serving of SERVERS) {
      const error = await failure("lynx", serving, { content });
      expect(error).toMatchObject({ name: "JudgeReplyError", reason: "unparseable" });
      expect((error as Error).message).toMatch(message);
    }
  });

  it.each(SERVERS)("%s: JSON cut at 600 tokens (finish_reason length) is truncated, not read", async (serving) => {
    const long = `{"REASONING": [${Array.from({ length: 700 }, (_, i) => `"point ${i}"`).join(", ")}], "SCORE": "PASS"}`;
    expect(await failure("lynx", serving, { content: long })).toMatchObject({ name: "JudgeReplyError", reason: "truncated", message: "judge reply was truncated (finish_reason length at max_tokens 600)" });
  });

  it("keeps an API key the reply echoes out of the error", async () => {
    const key = "judge-key-0123456789abcdef";
    const server = await startJudgeServer((req) => answerAs("vllm", req, { content: `Your key ${key} and Bearer ${key} are invalid.` }));
    const judge = createJudgeBackend({ baseUrl: server.url, model: "m", apiKey: key, recipe: "lynx", attempts: 1 });
    const error = (await judge.classify([PAIR]).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^judge reply unparseable \(lynx\): not a JSON object: /);
    expect(error.message).not.toContain(key);
  });
});

describe("a recipe keeps the judge's budget and retries", () => {
  it("refuses a batch past the call budget before making any call", async () => {
    const { server, judge } = await judgeOn("bespoke-minicheck", "vllm", { content: "Yes", tokens: [YES] }, { budget: 3 });
    await judge.classify([PAIR, PAIR]);
    await expect(judge.classify([PAIR, PAIR])).rejects.toThrow(/budget exhausted: 2 calls made, 2 more needed, budget 3/);
    expect(server.requests).toHaveLength(2);
  });

  it("retries a 503 and then reads the reply", async () => {
    const server = await startJudgeServer((req, n) => (n === 1 ? { status: 503 } : answerAs("ollama", req, { content: '{"REASONING": [], "SCORE": "PASS"}' })));
    const judge = createJudgeBackend({ baseUrl: server.url, model: "m", recipe: "lynx", backoffMs: 1 });
    expect((await judge.classify([PAIR]))[0]?.entailment).toBe(1);
    expect(server.requests).toHaveLength(2);
  });

  it("does not retry an unparseable reply: one call, one failure", async () => {
    const { server, judge } = await judgeOn("granite-guardian", "vllm", { content: "<score> perhaps </score>" }, { backoffMs: 1 });
    await expect(judge.classify([PAIR])).rejects.toThrow(/unparseable/);
    expect(server.requests).toHaveLength(1);
  });
});

describe("an unreadable reply leaves the answer unscorable, counted with its reason", () => {
  const observation = { context: "The museum opens at nine. Tickets cost ten euros.", answer: "The museum opens at 9 am." };

  it("scored through createScorer: unscorable, reason backend_error, the judge's reply unparseable in the detail; the evaluations counter counts it by that reason", async () => {
    const { judge } = await judgeOn("bespoke-minicheck", "vllm", { content: "Maybe", tokens: [{ token: "Maybe", logprob: 0, top: [["Maybe", 0]] }] });
    const evaluation = await scoreOnce(judge, observation);
    expect(evaluation).toMatchObject({ verdict: "unscorable", score: null, reason: "backend_error", backend: { name: "judge", version: "detector-1 (recipe bespoke-minicheck)" } });
    expect(evaluation.verdict === "unscorable" && evaluation.detail).toMatch(/^judge backend failed: judge reply unparseable \(bespoke-minicheck\): not "Yes" or "No"/);
    const { metrics } = await recordSummary(summarize(evaluation, false), { openInference: false, captureContent: false });
    const counted = (metrics.get(METRICS.evaluations.name) ?? []).map((p) => [p.attributes["groundwatch.verdict"], p.attributes["groundwatch.reason"], p.value]);
    expect(counted).toEqual([["unscorable", "backend_error", 1]]);
  });

  it("the same answer with a readable reply is scored", async () => {
    const { judge } = await judgeOn("bespoke-minicheck", "ollama", { content: "Yes", tokens: [YES] });
    const evaluation = await scoreOnce(judge, observation);
    expect(evaluation.verdict).toBe("grounded");
    expect(evaluation.score).toBeCloseTo(0.93, 6);
  });
});

describe("the reply readers are linear in the reply", () => {
  const recipe = "r";
  const swallow = (read: () => unknown): void => {
    try {
      read();
    } catch {
      // refused, as it must be
    }
  };

  it("a score tag after N </think> and N spaces", () => {
    const growth = measureGrowth((n) => `<think>${"x </think> ".repeat(n)}</think><score>${" ".repeat(n)}maybe </score>`, (reply) => swallow(() => parseScoreTag(recipe, {}, reply)), { n: 512, maxN: 1 << 16 });
    expectLinear("a score-tag reply of N closing tags and spaces", growth);
  });

  it("the score token among N tokens", () => {
    const growth = measureGrowth(
      (n) => ({ logprobs: { content: Array.from({ length: n }, (_, i) => ({ token: i % 2 ? " <score>" : " yes", logprob: -0.1, top_logprobs: [{ token: " yes", logprob: -0.1 }] })) } }),
      (choice) => swallow(() => parseScoreTag(recipe, choice, "<score> yes </score>")),
      // At most 1,024 against 8,192 tokens: a list of 32,768 (the old bound's larger size) takes pages
      // fresh from the kernel that the smaller reuses, and failed ×21.7 beside another suite.
      { n: 512, maxN: 1 << 10 },
    );
    expectLinear("a score token among N tokens", growth);
  });

  it("PASS/FAIL JSON of N reasons, fenced", () => {
    const growth = measureGrowth((n) => "```json\n" + `{"REASONING": [${'"a reason", '.repeat(n)}"last"], "SCORE": "PASS"}` + "\n```", (reply) => swallow(() => parsePassFailJson(recipe, reply)), { n: 512, maxN: 1 << 15 });
    expectLinear("a JSON reply of N reasons", growth);
  });
});
