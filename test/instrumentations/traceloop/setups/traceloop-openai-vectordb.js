/* global process */
// Traceloop with OpenAI: withWorkflow per request (the trace root), withVectorDBCall recording the
// retrieved documents (span events), then a chat completion with the documents in the prompt.
import OpenAI from "openai";
import { QUESTIONS, embed, retrieve, systemPrompt } from "../../kb.js";
import { startTraceloop } from "./_traceloop.js";

const { traceloop, shutdown } = startTraceloop("traceloop-openai-vectordb", { openAI: OpenAI });
const openai = new OpenAI({ baseURL: process.env.FAKE_OPENAI_URL, apiKey: "sk-fake" });

for (const { question } of QUESTIONS) {
  await traceloop.withWorkflow({ name: "answer_question" }, async (question) => {
    const docs = await traceloop.withVectorDBCall({ vendor: "memory", type: "query" }, ({ span }) => {
      span.reportQuery({ queryVector: embed(question) });
      const found = retrieve(question);
      span.reportResults({ results: found.map((d, i) => ({ ids: d.id, scores: 0.9 - i * 0.1, documents: d.text, metadata: { source: "policies.md" } })) });
      return found;
    });
    const res = await openai.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "system", content: systemPrompt(docs) }, { role: "user", content: question }],
    });
    return res.choices[0].message.content;
  }, question);
}
await shutdown();
