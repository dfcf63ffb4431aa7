/**
 * Sends a steady stream of questions to the example RAG service (for the docker-compose stack).
 *   RAG_URL=http://localhost:3000 npx tsx examples/rag-service/traffic.ts
 */
import { EXAMPLE_QUESTIONS as QUESTIONS } from "./knowledge.ts";

const url = process.env.RAG_URL ?? "http://localhost:3000";
const perSecond = Number(process.env.RATE ?? 2);
let i = 0;
for (;;) {
  const question = QUESTIONS[i++ % QUESTIONS.length] ?? "";
  try {
    await fetch(`${url}/api/ask`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ question }) });
  } catch (error) {
    console.error(`request failed: ${(error as Error).message}`);
  }
  await new Promise((r) => setTimeout(r, 1000 / perSecond));
}
