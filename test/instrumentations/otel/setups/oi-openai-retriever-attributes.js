/* global process */
// A manual OpenInference RETRIEVER span (getRetrieverAttributes) + OpenInference OpenAI instrumentation.
import { getInputAttributes, getRetrieverAttributes } from "@arizeai/openinference-core";
import { OpenAIInstrumentation } from "@arizeai/openinference-instrumentation-openai";
import { OpenInferenceSpanKind, SemanticConventions } from "@arizeai/openinference-semantic-conventions";
import OpenAI from "openai";
import { QUESTIONS, retrieve, systemPrompt } from "../../kb.js";
import { asRequest, startOtel } from "./_otel.js";

const otel = startOtel("oi-openai-retriever-attributes");
new OpenAIInstrumentation().manuallyInstrument(OpenAI);
const openai = new OpenAI({ baseURL: process.env.FAKE_OPENAI_URL, apiKey: "sk-fake" });

for (const { question } of QUESTIONS) {
  await asRequest(otel.tracer, question, async (q) => {
    const docs = await otel.tracer.startActiveSpan("retrieve-policies", async (span) => {
      const found = retrieve(q);
      span.setAttributes({
        [SemanticConventions.OPENINFERENCE_SPAN_KIND]: OpenInferenceSpanKind.RETRIEVER,
        ...getInputAttributes(q),
        ...getRetrieverAttributes({ documents: found.map((d, i) => ({ id: d.id, content: d.text, score: 0.9 - i * 0.1, metadata: { source: "policies.md" } })) }),
      });
      span.end();
      return found;
    });
    const res = await openai.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "system", content: systemPrompt(docs) }, { role: "user", content: q }],
    });
    return res.choices[0].message.content;
  });
}
await otel.shutdown();
