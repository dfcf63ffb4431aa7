/** A handful of policy documents, and a toy keyword retriever over them. */
export const DOCUMENTS: readonly string[] = [
  "Returns: You may return most new, unopened items within 30 days of delivery for a full refund. Refunds are issued to the original payment method within 5 business days of receiving the return.",
  "Shipping: Standard shipping is free on orders over $50. Express shipping costs $15 and arrives in 2 business days.",
  "Warranty: Electronics come with a one-year limited warranty covering manufacturing defects. Accidental damage is not covered.",
  "Store hours: Our stores open at 9 a.m. and close at 8 p.m. on weekdays. On Sundays they close at 5 p.m.",
  "Premium plan: includes 24/7 phone support, unlimited storage and priority onboarding for $30 per user per month.",
];

/** Questions the example traffic generator and the end-to-end test ask. */
export const EXAMPLE_QUESTIONS: readonly string[] = [
  "How long do I have to return an item for a refund?",
  "How much does express shipping cost?",
  "Is accidental damage covered by the warranty?",
  "When do stores close on Sundays?",
  "What does the premium plan include?",
  "How long until my refund arrives?",
  "Is standard shipping free?",
  "What are the store hours on weekdays?",
];

const words = (t: string): string[] => t.toLowerCase().match(/[a-z0-9]+/g) ?? [];

export function retrieve(question: string, k = 2): string[] {
  const q = new Set(words(question).filter((w) => w.length > 3));
  return DOCUMENTS.map((d) => ({ d, s: words(d).filter((w) => q.has(w)).length }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s)
    .slice(0, k)
    .map((x) => x.d);
}

function hash(text: string): number {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h;
}

/**
 * A deterministic stand-in for an LLM: it restates the best document, and for about one
 * question in three it invents something — a changed number or an extra sentence the
 * documents do not support.
 */
export function generate(question: string, docs: readonly string[]): string {
  const top = docs[0];
  if (!top) return "I'm sorry, I could not find that in our policies.";
  const body = top.slice(top.indexOf(":") + 1).trim();
  switch (hash(question) % 3) {
    case 0:
      return body.replace(/\b(\d+)\b/, (n) => String(Number(n) * 3));
    case 1:
      return `${body} This also applies to all international orders at no extra cost.`;
    default:
      return body;
  }
}
