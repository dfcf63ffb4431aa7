/* global process */
// OpenInference OpenAI instrumentation only: the documents appear only inside the prompt.
import { OpenAIInstrumentation } from "@arizeai/openinference-instrumentation-openai";
import OpenAI from "openai";
import { QUESTIONS, retrieve, systemPrompt } from "../../kb.js";
import { asRequest, startOtel } from "./_otel.js";

const otel = startOtel("oi-openai-plain");
new OpenAIInstrumentation().manuallyInstrument(OpenAI);
const openai = new OpenAI({ baseURL: process.env.FAKE_OPENAI_URL, apiKey: "sk-fake" });

for (const { question } of QUESTIONS) {
  await asRequest(otel.tracer, question, async (q) => {
    const res = await openai.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "system", content: systemPrompt(retrieve(q)) }, { role: "user", content: q }],
    });
    return res.choices[0].message.content;
  });
}
await otel.shutdown();
