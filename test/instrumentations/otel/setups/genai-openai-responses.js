// @opentelemetry/instrumentation-openai, Responses API, content capture on, logs over OTLP.
import { QUESTIONS, retrieve, systemPrompt } from "../../kb.js";
import { asRequest } from "./_otel.js";
import { startGenAI } from "./_genai.js";

const otel = startGenAI("genai-openai-responses");
for (const { question } of QUESTIONS) {
  await asRequest(otel.tracer, question, async (q) => {
    const res = await otel.openai.responses.create({
      model: "gpt-4o-mini",
      instructions: systemPrompt(retrieve(q)),
      input: [{ role: "user", content: q }],
    });
    return res.output_text;
  });
}
await otel.shutdown();
