/* global process */
// The OTel GenAI OpenAI instrumentation needs a module hook; with plain ESM imports it would not see
// `openai`, so the set-ups register it first and then load `openai` with require (CJS), which
// require-in-the-middle patches. Content capture comes from
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (set here unless already set).
import { createRequire } from "node:module";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { OpenAIInstrumentation } from "@opentelemetry/instrumentation-openai";
import { startOtel } from "./_otel.js";

export function startGenAI(serviceName) {
  process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ??= "true";
  const otel = startOtel(serviceName, { withLogs: true });
  registerInstrumentations({
    instrumentations: [new OpenAIInstrumentation()],
    tracerProvider: otel.tracerProvider, loggerProvider: otel.loggerProvider,
  });
  const OpenAI = createRequire(import.meta.url)("openai");
  const openai = new OpenAI({ baseURL: process.env.FAKE_OPENAI_URL, apiKey: "sk-fake" });
  return { ...otel, openai };
}
