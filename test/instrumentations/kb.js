// The tiny fixed knowledge base and questions every set-up uses, and the fake model's answers.
// Plain Node, no dependencies: imported by the set-ups (from either workspace), the fake server and
// the capture script.

/** The store's policy documents (ids are what a vector store or retriever reports). */
export const DOCUMENTS = [
  { id: "returns-1", text: "Items can be returned within 30 days of delivery for a full refund." },
  { id: "refunds-1", text: "Refunds are issued to the original payment method within 5 business days after the return is received." },
  { id: "warranty-1", text: "Electronics carry a 2-year limited warranty that covers manufacturing defects." },
  { id: "shipping-1", text: "Return shipping is free for orders over $50; otherwise a $5 fee is deducted from the refund." },
];

/**
 * The questions, in the order each set-up asks them. `grounded` says whether the fake model's answer
 * restates the retrieved document (true) or invents a fact that no document states (false). `docs`
 * are the ids a keyword retriever returns for the question.
 */
export const QUESTIONS = [
  { key: "return-window", question: "How many days do I have to return an item?", docs: ["returns-1", "shipping-1"], grounded: true,
    answer: "You can return items within 30 days of delivery for a full refund." },
  { key: "refund-time", question: "How long does a refund take to arrive?", docs: ["refunds-1", "returns-1"], grounded: false,
    answer: "Refunds arrive within 14 days, as store credit rather than on the original payment method." },
  { key: "warranty", question: "What warranty do electronics have?", docs: ["warranty-1"], grounded: true,
    answer: "Electronics carry a 2-year limited warranty that covers manufacturing defects." },
  { key: "shipping", question: "Do I pay for return shipping?", docs: ["shipping-1", "returns-1"], grounded: false,
    answer: "Return shipping is always free, and you have 90 days to send the item back." },
];

/** The answer the fake model gives for a user message: matched by the question text it contains. */
export function answerFor(userText) {
  const text = String(userText ?? "");
  for (const q of QUESTIONS) if (text.includes(q.question)) return q.answer;
  return "I don't know.";
}

/** A keyword retriever over DOCUMENTS: the documents listed for a known question, else none. */
export function retrieve(question) {
  const q = QUESTIONS.find((x) => x.question === question);
  return (q?.docs ?? []).map((id) => DOCUMENTS.find((d) => d.id === id));
}

/** The system prompt that puts documents into the model's context. */
export function systemPrompt(docs) {
  return `Answer from these documents:\n${docs.map((d, i) => `[${i + 1}] ${d.text}`).join("\n")}`;
}

/** A deterministic embedding (8 dims) of a text: byte histogram folded and normalised. */
export function embed(text, dims = 8) {
  const v = new Array(dims).fill(0);
  const s = String(text);
  for (let i = 0; i < s.length; i++) v[(s.charCodeAt(i) * 31 + i) % dims] += 1;
  const n = Math.sqrt(v.reduce((a, x) => a + x * x, 0)) || 1;
  return v.map((x) => x / n);
}

/**
 * A deterministic "embedding" that makes a vector store retrieve exactly what retrieve() returns:
 * one dimension per document; a document is its own unit vector, a known question points at its
 * documents (first one strongest). For LangChain's MemoryVectorStore in the set-ups.
 */
export function kbVector(text) {
  const v = DOCUMENTS.map((d) => (d.text === text ? 1 : 0));
  const q = QUESTIONS.find((x) => x.question === text);
  q?.docs.forEach((id, i) => { v[DOCUMENTS.findIndex((d) => d.id === id)] = 1 / (i + 1); });
  if (v.every((x) => x === 0)) v.fill(0.5);
  return v;
}
