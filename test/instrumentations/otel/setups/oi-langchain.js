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
import { QUESTIONS } from "../../kb.js";
import { buildRagChain } from "../../rag-chain.js";
import { asRequest, startOtel } from "./_otel.js";

// LangChain JS runs callbacks in a background queue by default, so the instrumentation's spans land
// under whichever request's context the queue first saw (observed: question 2's chain spans inside
// question 1's trace). Awaiting callbacks in the caller's context keeps one trace per request.
process.env.LANGCHAIN_CALLBACKS_BACKGROUND ??= "false";
const otel = startOtel("oi-langchain");
new LangChainInstrumentation().manuallyInstrument(CallbackManagerModule);

const chain = await buildRagChain({ Embeddings, MemoryVectorStore, Document, ChatPromptTemplate, ChatOpenAI, RunnableSequence, RunnablePassthrough, StringOutputParser });

for (const { question } of QUESTIONS) await asRequest(otel.tracer, question, (q) => chain.invoke(q));
await otel.shutdown();
