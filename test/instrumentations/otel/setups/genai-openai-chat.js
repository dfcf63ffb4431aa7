// @opentelemetry/instrumentation-openai, chat completions, content capture on, logs over OTLP.
import { QUESTIONS, retrieve, systemPrompt } from "../../kb.js";
import { asRequest } from "./_otel.js";
import { startGenAI } from "./_genai.js";

const otel = startGenAI("genai-openai-chat");
for (const { question } of QUESTIONS) {
  await asRequest(otel.tracer, question, async (q) => {
    const res = await otel.openai.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "system", content: systemPrompt(retrieve(q)) }, { role: "user", content: q }],
    });
    return res.choices[0].message.content;
  });
}
await otel.shutdown();
