/* global process */
// OpenInference LangChain instrumentation: a MemoryVectorStore retriever (deterministic embeddings)
// + ChatOpenAI chain.
import { LangChainInstrumentation } from "@arizeai/openinference-instrumentation-langchain";
import { MemoryVectorStore } from "@langchain/classic/vectorstores/memory";
import * as CallbackManagerModule from "@langchain/core/callbacks/manager";
import { Document } from "@langchain/core/documents";
import { Embeddings } from "@langchain/core/embeddings";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnablePassthrough, RunnableSequence } from "@langchain/core/runnables";
import { ChatOpenAI } from "@langchain/openai";
import { DOCUMENTS, QUESTIONS, kbVector } from "../../kb.js";
import { asRequest, startOtel } from "./_otel.js";

// LangChain JS runs callbacks in a background queue by default, so the instrumentation's spans land
// under whichever request's context the queue first saw (observed: question 2's chain spans inside
// question 1's trace). Awaiting callbacks in the caller's context keeps one trace per request.
process.env.LANGCHAIN_CALLBACKS_BACKGROUND ??= "false";
const otel = startOtel("oi-langchain");
new LangChainInstrumentation().manuallyInstrument(CallbackManagerModule);

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

for (const { question } of QUESTIONS) await asRequest(otel.tracer, question, (q) => chain.invoke(q));
await otel.shutdown();
