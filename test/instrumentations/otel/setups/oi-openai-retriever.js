/* global process */
// OpenInference OpenAI instrumentation + traceRetriever (openinference-core, default options)
// around the retrieval function, then a chat completion with the documents in the prompt.
import { traceRetriever } from "@arizeai/openinference-core";
import { OpenAIInstrumentation } from "@arizeai/openinference-instrumentation-openai";
import OpenAI from "openai";
import { QUESTIONS, retrieve, systemPrompt } from "../../kb.js";
import { asRequest, startOtel } from "./_otel.js";

const otel = startOtel("oi-openai-retriever");
new OpenAIInstrumentation().manuallyInstrument(OpenAI);
const openai = new OpenAI({ baseURL: process.env.FAKE_OPENAI_URL, apiKey: "sk-fake" });

async function retrieveDocuments(query) {
  return retrieve(query).map((d) => d.text);
}
const tracedRetrieve = traceRetriever(retrieveDocuments);

for (const { question } of QUESTIONS) {
  await asRequest(otel.tracer, question, async (q) => {
    const docs = await tracedRetrieve(q);
    const res = await openai.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "system", content: systemPrompt(docs.map((text) => ({ text }))) }, { role: "user", content: q }],
    });
    return res.choices[0].message.content;
  });
}
await otel.shutdown();
