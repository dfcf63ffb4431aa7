/* global process, setTimeout */
// Traceloop with LangChain: a MemoryVectorStore retriever (deterministic embeddings) + ChatOpenAI
// chain, each request in withWorkflow. OpenAI is instrumented too, as the SDK does by default.
import { MemoryVectorStore } from "@langchain/classic/vectorstores/memory";
import { Document } from "@langchain/core/documents";
import { Embeddings } from "@langchain/core/embeddings";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnablePassthrough, RunnableSequence } from "@langchain/core/runnables";
import { ChatOpenAI } from "@langchain/openai";
import OpenAI from "openai";
import { DOCUMENTS, QUESTIONS, kbVector } from "../../kb.js";
import { startTraceloop } from "./_traceloop.js";

// See otel/setups/oi-langchain.js: background callbacks would lose the request's context.
process.env.LANGCHAIN_CALLBACKS_BACKGROUND ??= "false";
const { traceloop, shutdown } = startTraceloop("traceloop-langchain", { openAI: OpenAI, langchain: true });
// The SDK patches LangChain's ESM CallbackManager through a dynamic import(): give it a moment, or the
// first request's outer chain runs unpatched (observed: RunnableMap and the outer RunnableSequence
// missing from the first trace).
await new Promise((resolve) => setTimeout(resolve, 200));

class KbEmbeddings extends Embeddings {
  async embedDocuments(texts) { return texts.map(kbVector); }
  async embedQuery(text) { return kbVector(text); }
}
const store = await MemoryVectorStore.fromDocuments(
  DOCUMENTS.map((d) => new Document({ pageContent: d.text, metadata: { id: d.id, source: "policies.md" } })),
  new KbEmbeddings({}),
);
const prompt = ChatPromptTemplate.fromMessages([["system", "Answer from these documents:\n{context}"], ["human", "{question}"]]);
const llm = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "sk-fake", configuration: { baseURL: process.env.FAKE_OPENAI_URL } });
const chain = RunnableSequence.from([
  { context: store.asRetriever({ k: 2 }).pipe((docs) => docs.map((d, i) => `[${i + 1}] ${d.pageContent}`).join("\n")), question: new RunnablePassthrough() },
  prompt, llm, new StringOutputParser(),
]);

for (const { question } of QUESTIONS) {
  await traceloop.withWorkflow({ name: "answer_question" }, (q) => chain.invoke(q), question);
}
await shutdown();
