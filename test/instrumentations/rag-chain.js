/* global process */
// The LangChain RAG chain both LangChain set-ups run: a MemoryVectorStore over the knowledge base
// (deterministic embeddings), a prompt with the retrieved documents, ChatOpenAI and a string parser.
// Each workspace passes its own LangChain modules, since each has its own node_modules.
import { DOCUMENTS, kbVector } from "./kb.js";

export async function buildRagChain(lc) {
  class KbEmbeddings extends lc.Embeddings {
    async embedDocuments(texts) { return texts.map(kbVector); }
    async embedQuery(text) { return kbVector(text); }
  }
  const store = await lc.MemoryVectorStore.fromDocuments(
    DOCUMENTS.map((d) => new lc.Document({ pageContent: d.text, metadata: { id: d.id, source: "policies.md" } })),
    new KbEmbeddings({}),
  );
  const prompt = lc.ChatPromptTemplate.fromMessages([["system", "Answer from these documents:\n{context}"], ["human", "{question}"]]);
  const llm = new lc.ChatOpenAI({ model: "gpt-4o-mini", apiKey: "sk-fake", configuration: { baseURL: process.env.FAKE_OPENAI_URL } });
  return lc.RunnableSequence.from([
    { context: store.asRetriever({ k: 2 }).pipe((docs) => docs.map((d, i) => `[${i + 1}] ${d.pageContent}`).join("\n")), question: new lc.RunnablePassthrough() },
    prompt, llm, new lc.StringOutputParser(),
  ]);
}
