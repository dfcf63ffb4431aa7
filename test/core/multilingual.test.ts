import { afterAll, describe, expect, it } from "vitest";
import { splitClaims } from "../../src/core/claims/index.ts";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import { createTextAnalyzer } from "../../src/core/text.ts";
import { createOfflineBackend } from "../../src/nli/offline/backend.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";
import { LANGUAGE_CASES } from "./multilingual-cases.ts";

const backend = createOfflineBackend({ analyzer: testAnalyzer() });
afterAll(() => backend.close());
const scorer = createGroundednessScorer(backend, testAnalyzer(), { threshold: backend.recommendedThreshold ?? 0.5, topK: 3, tokenBudget: 120 });

const words = (text: string): string[] => testAnalyzer().analyze(text).tokens.map((t) => t.text);
const sentences = (text: string): string[] => testAnalyzer().analyze(text).sentences.map((s) => text.slice(s.start, s.end));
const claims = (answer: string): string[] => splitClaims(answer, testAnalyzer()).flatMap((s) => (s.kind === "claim" ? [s.text] : []));

describe("a verbatim copy in a spaceless script (the reported behaviour)", () => {
  it("scores a verbatim Chinese copy grounded on the offline backend, not ungrounded at ~0.01", async () => {
    const r = await scorer.score({ answer: "未开封的商品可在交货后30天内退货，并获得全额退款。", context: "退货政策：未开封的商品可在交货后30天内退货，并获得全额退款。我们的商店每天上午九点开门。" });
    expect(r.verdict).toBe("grounded");
  });

  it("scores a verbatim Japanese copy grounded on the offline backend", async () => {
    const r = await scorer.score({ answer: "未開封の商品は配達から30日以内であれば全額返金されます。", context: "返品について：未開封の商品は配達から30日以内であれば全額返金されます。店舗は毎朝九時に開店します。" });
    expect(r.verdict).toBe("grounded");
  });
});

describe.each(LANGUAGE_CASES)("answers in $language on the offline backend", (c) => {
  it("scores a verbatim copy of a sentence grounded", async () => {
    const r = await scorer.score({ answer: c.copy, context: c.context });
    expect(r.verdict).toBe("grounded");
  });

  it("does not score the sentence with its number changed grounded", async () => {
    const r = await scorer.score({ answer: c.numberChanged, context: c.context });
    expect(r.verdict).toBe("ungrounded");
    expect(r.claims.map((x) => x.verdict)).not.toContain("supported");
  });

  it("does not score an invented sentence grounded", async () => {
    const r = await scorer.score({ answer: c.invented, context: c.context });
    expect(r.verdict).toBe("ungrounded");
    expect(r.claims.map((x) => x.verdict)).not.toContain("supported");
  });
});

describe("evidence in a long Chinese document", () => {
  it("finds the window holding a copied sentence among many, with offsets into the document", async () => {
    const filler = ["我们的商店每天上午九点开门，晚上八点关门。", "会员每次购物可以获得积分。", "停车场位于商店的东侧，可以免费停车两个小时。", "周末我们提供儿童游乐区。", "所有电子产品享有一年保修。", "礼品卡不能兑换现金。", "大件家具可以预约送货上门。", "我们接受信用卡和移动支付。"];
    const copied = "未开封的商品可在交货后30天内退货，并获得全额退款。";
    const doc = [...filler, ...filler.map((s) => s.replace("我们", "本店")), copied, ...filler.slice(0, 4)].join("");
    const r = await scorer.score({ answer: copied, context: [doc] });
    expect(r.verdict).toBe("grounded");
    const evidence = r.claims[0]?.evidence;
    expect(evidence?.text).toContain(copied);
    expect(evidence && doc.slice(evidence.start, evidence.end)).toBe(evidence?.text);
    expect(evidence?.text.length).toBeLessThan(doc.length);
  });
});

describe("words of scripts written without spaces", () => {
  it("cuts Chinese, Japanese and Thai into words with offsets into the original text", () => {
    expect(words("未开封的商品可在交货后30天内退货。")).toEqual(["未", "开封", "的", "商品", "可在", "交货", "后", "30", "天内", "退", "货", "。"]);
    expect(words("全額返金されます。")).toEqual(["全額", "返金", "さ", "れ", "ます", "。"]);
    expect(words("ร้านเปิดทุกวัน")).toEqual(["ร้าน", "เปิด", "ทุก", "วัน"]);
    const text = "Paris 是法国的首都, and Tokyo は日本の首都です。";
    for (const t of testAnalyzer().analyze(text).tokens) expect(text.slice(t.start, t.end)).toBe(t.text);
  });

  it("marks the function words of Chinese, Japanese and Thai as stop words, and keeps negations as words", () => {
    const stops = (text: string): string[] => testAnalyzer().analyze(text).tokens.filter((t) => t.stop).map((t) => t.text);
    expect(stops("商品的价格是十元。")).toEqual(["的", "是"]);
    expect(stops("店舗は九時に開店しません。")).toEqual(["は", "に"]);
    expect(stops("ร้านเปิดในวันนี้")).toEqual(["ใน", "นี้"]);
    expect(testAnalyzer().analyze("商店不开门。").tokens.find((t) => t.text === "不")?.stop).toBe(false);
  });

  it("reads a number inside Chinese text as a number", () => {
    const thirty = testAnalyzer().analyze("交货后30天内退货").tokens.find((t) => t.text === "30");
    expect(thirty).toMatchObject({ type: "number", pos: "NUM" });
  });

  it("reads full-width digits as the number they write: a changed one is not grounded, the same one in ASCII is", async () => {
    const context = "商品的价格是１２３元。商店九点开门。";
    expect((await scorer.score({ answer: "价格是４５６元。", context })).verdict).toBe("ungrounded");
    expect((await scorer.score({ answer: "价格是123元。", context })).verdict).toBe("grounded");
    const price = testAnalyzer().analyze(context).tokens.find((t) => t.lemma === "123");
    expect(price && context.slice(price.start, price.end)).toBe("１２３");
  });

  it("leaves text without spaceless scripts exactly as wink-nlp reads it", () => {
    const plain = createTextAnalyzer({ cacheBytes: 0 }).analyze("The museum opens at nine. Entry costs ten euros!");
    expect(plain.tokens.map((t) => t.text)).toEqual(["The", "museum", "opens", "at", "nine", ".", "Entry", "costs", "ten", "euros", "!"]);
    expect(plain.sentences.map((s) => [s.tokenStart, s.tokenEnd])).toEqual([[0, 6], [6, 11]]);
  });

  it("keeps a word whole across the space the token limit puts into a long run", () => {
    // 150 characters with no space: capTokens splits the run for wink-nlp every 99 characters.
    const text = "我们的商店每天上午九点开门。".repeat(11);
    const doc = createTextAnalyzer({ cacheBytes: 0 }).analyze(text);
    for (const t of doc.tokens) expect(text.slice(t.start, t.end)).toBe(t.text);
    expect(doc.tokens.filter((t) => t.text === "商店")).toHaveLength(11);
    expect(doc.sentences).toHaveLength(11);
  });
});

describe("sentences of scripts written without spaces", () => {
  it("ends sentences at 。！？ and their full-width and ASCII forms", () => {
    expect(sentences("商店九点开门。退款需要三天！你知道吗？")).toEqual(["商店九点开门。", "退款需要三天！", "你知道吗？"]);
    expect(sentences("商店九点开门．退款需要三天!你知道吗?")).toEqual(["商店九点开门．", "退款需要三天!", "你知道吗?"]);
  });

  it("keeps a closing quotation mark with the sentence it closes", () => {
    expect(sentences("他说：「商店九点开门。」退款需要三天。")).toEqual(["他说：「商店九点开门。」", "退款需要三天。"]);
  });

  it("splits a Chinese answer into one claim per sentence and skips its question", () => {
    const segments = splitClaims("商店九点开门。退款需要三天。你还有其他问题吗？", testAnalyzer());
    expect(segments.map((s) => (s.kind === "claim" ? s.text : `${s.reason}: ${s.text}`))).toEqual(["商店九点开门。", "退款需要三天。", "question: 你还有其他问题吗？"]);
  });

  it("starts a new claim at a line that ends with 。", () => {
    expect(claims("商店九点开门。\n退款需要三天。")).toEqual(["商店九点开门。", "退款需要三天。"]);
  });

  it("finds a changed number in the second sentence of a Chinese answer", async () => {
    const context = "退货政策：未开封的商品可在交货后30天内退货，并获得全额退款。我们的商店每天上午九点开门。";
    const r = await scorer.score({ answer: "我们的商店每天上午九点开门。未开封的商品可在交货后90天内退货，并获得全额退款。", context });
    expect(r.claims.map((c) => c.verdict)).toEqual(["supported", expect.not.stringMatching(/^supported$/)]);
    expect(r.verdict).toBe("ungrounded");
  });
});

describe("growth on long runs of spaceless script", () => {
  const OPTIONS = { n: 5_000, maxN: 5_000, repeats: 3 };
  const chinese = (n: number): string => "退货政策：未开封的商品可在交货后三十天内退货，并获得全额退款我们的商店每天上午九点开门".repeat(Math.ceil(n / 45)).slice(0, n);

  it("segments one long run of Chinese in time linear in its length", () => {
    const analyzer = createTextAnalyzer({ cacheBytes: 0 });
    expectLinear("analysing a run of Chinese with no sentence end", measureGrowth(chinese, (text) => analyzer.analyze(text), OPTIONS));
  });

  it("splits Chinese sentences into claims in time linear in the text", () => {
    const analyzer = createTextAnalyzer({ cacheBytes: 0 });
    const sentencesOf = (n: number): string => "我们的商店每天上午九点开门。".repeat(Math.ceil(n / 14)).slice(0, n);
    expectLinear("splitting Chinese sentences into claims", measureGrowth(sentencesOf, (text) => splitClaims(text, analyzer), OPTIONS));
  });
});
