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
import { QUESTIONS } from "../../kb.js";
import { buildRagChain } from "../../rag-chain.js";
import { startTraceloop } from "./_traceloop.js";

// See otel/setups/oi-langchain.js: background callbacks would lose the request's context.
process.env.LANGCHAIN_CALLBACKS_BACKGROUND ??= "false";
const { traceloop, shutdown } = startTraceloop("traceloop-langchain", { openAI: OpenAI, langchain: true });
// The SDK patches LangChain's ESM CallbackManager through a dynamic import(): give it a moment, or the
// first request's outer chain runs unpatched (observed: RunnableMap and the outer RunnableSequence
// missing from the first trace).
await new Promise((resolve) => setTimeout(resolve, 200));

const chain = await buildRagChain({ Embeddings, MemoryVectorStore, Document, ChatPromptTemplate, ChatOpenAI, RunnableSequence, RunnablePassthrough, StringOutputParser });

for (const { question } of QUESTIONS) {
  await traceloop.withWorkflow({ name: "answer_question" }, (q) => chain.invoke(q), question);
}
await shutdown();
