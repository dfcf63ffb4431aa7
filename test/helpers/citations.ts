import type { ChatServer } from "./chat-server.ts";
import type { JudgeRequest } from "./judge-server.ts";
import { chat, startJudgeServer } from "./judge-server.ts";

/** Two retrieved documents with ids: document 1 says how refunds work, document 2 how shipping does. */
export const CITED_DOCS = [
  { id: "refunds", title: "Refund policy", text: "Refunds are paid within 30 days of delivery." },
  { id: "shipping", title: "Shipping", text: "Shipping is free on orders over 50 euros." },
] as const;

/** Answers about CITED_DOCS, by what their citations do. */
export const CITED_ANSWERS = {
  /** Cites a third document, which was not retrieved: flagged before any model call. */
  invented: "Gift cards never expire [3].",
  /** True of document 1, but cites document 2. */
  misattributed: "Refunds are paid within 30 days of delivery [2].",
  /** Each claim cites the document that states it. */
  cited: "Refunds are paid within 30 days of delivery [1]. Shipping is free on orders over 50 euros [2].",
} as const;

/** The facts the judge looks for: a premise entails a hypothesis that states one of them when it states it too. */
const FACTS = ["30 days", "50 euros", "never expire"];

/** The premise and hypothesis of one judge request (the user message fences both). */
export function judgedPair(req: JudgeRequest): { premise: string; hypothesis: string } {
  const user = req.messages.find((m) => m.role === "user")?.content ?? "";
  const at = user.indexOf("HYPOTHESIS");
  return { premise: user.slice(0, at), hypothesis: user.slice(at) };
}

/** Whether a judge request is a relevance prompt (the judge's relevance system prompt), not an entailment one. */
export function isRelevanceRequest(req: JudgeRequest): boolean {
  return req.messages.some((m) => m.role === "system" && m.content.includes("You rate how relevant a passage is to a question."));
}

/**
 * A local LLM judge that reads the facts: ENTAILMENT when the premise states a fact the hypothesis
 * states, else NEUTRAL. Every request it answers is in `requests`, so a test can count the model
 * calls an answer cost. Closed when the test ends.
 */
export function startCitingJudge(): Promise<ChatServer> {
  return startJudgeServer((req) => {
    // A relevance prompt (QUESTION and PASSAGE fences) gets a relevance: every passage here is about the policies asked of.
    if (isRelevanceRequest(req)) return { body: chat("0.9") };
    const { premise, hypothesis } = judgedPair(req);
    const entailed = FACTS.some((f) => hypothesis.includes(f) && premise.includes(f));
    return { body: chat(entailed ? "ENTAILMENT" : "NEUTRAL") };
  });
}

/** The environment and flags that score with the judge at `url` (no hub cache, so nothing else is found). */
export function judgeEnv(): Record<string, string> {
  return { GROUNDWATCH_JUDGE_API_KEY: "test-key", HF_HOME: "/nonexistent/groundwatch-test-hf-home" };
}

export function judgeFlags(url: string): string[] {
  return ["--backend", "judge", "--judge-url", url, "--judge-model", "judge-test"];
}
