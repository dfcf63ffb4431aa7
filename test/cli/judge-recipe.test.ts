/**
 * `groundwatch score --backend judge --recipe …`: the recipe named on the command line reaches the
 * judge, and a reply the recipe cannot read leaves the answer unscorable with its reason.
 */
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.ts";
import { answerAs, startJudgeServer } from "../helpers/judge-server.ts";

const ROW = JSON.stringify({ id: 1, context: "The museum opens at nine. Tickets cost ten euros.", answer: "The museum opens at 9 am." }) + "\n";

describe("groundwatch score --backend judge --recipe", () => {
  it("sends the recipe's request and reads its reply (bespoke-minicheck, as vLLM answers)", async () => {
    const server = await startJudgeServer((req) => answerAs("vllm", req, { content: "Yes", tokens: [{ token: "Yes", logprob: Math.log(0.9), top: [["Yes", Math.log(0.9)], ["No", Math.log(0.1)]] }] }));
    const run = await runCli(["score", "--input", "-", "--backend", "judge", "--judge-url", server.url, "--judge-model", "bespoke-minicheck", "--recipe", "bespoke-minicheck"], { stdin: ROW });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ verdict: "grounded", backend: { name: "judge", version: "bespoke-minicheck (recipe bespoke-minicheck)" } });
    expect(server.requests[0]).toMatchObject({ max_tokens: 1, logprobs: true, top_logprobs: 5 });
  });

  it("leaves the answer unscorable, reason backend_error with the judge's reply unparseable, when the reply cannot be read (lynx, as Ollama answers)", async () => {
    const server = await startJudgeServer((req) => answerAs("ollama", req, { content: '{"REASONING": ["It says nine."]}' }));
    const run = await runCli(["score", "--input", "-", "--backend", "judge", "--judge-url", server.url, "--judge-model", "lynx", "--recipe", "lynx"], { stdin: ROW });
    const result = JSON.parse(run.stdout) as { verdict: string; reason: string; detail: string };
    expect(result).toMatchObject({ verdict: "unscorable", reason: "backend_error" });
    expect(result.detail).toMatch(/judge reply unparseable \(lynx\): JSON without SCORE/);
  });

  it("refuses a recipe the judge does not have, naming the field and listing its recipes", async () => {
    const run = await runCli(["score", "--input", "-", "--backend", "judge", "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "m", "--recipe", "factcg"], { stdin: ROW });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('invalid recipe: "factcg" (not a judge recipe; the judge\'s recipes are nli, bespoke-minicheck, granite-guardian, granite-guardian-think, lynx)');
  });
});
