/**
 * Rows the offline backend attributes to each cause (checked against its relevance and NLI): an
 * answer from off-topic documents (retrieval), a contradicted number from the right document
 * (generation), a citation of a document that was not retrieved (citation), and a grounded one.
 */
const QUESTION = "How long do refunds take?";
const REFUND_DOC = "Refunds are paid within 30 days of the return. Refunds go to the original card.";

export const CAUSE_ROWS = [
  { id: "retrieval", question: QUESTION, answer: "Refunds are paid within 30 days of the return.", context: ["Visitor parking is free on weekends. The parking garage closes at midnight.", "The cafeteria serves lunch from noon until two."] },
  { id: "generation", question: QUESTION, answer: "Refunds are paid within 90 days of the return.", context: [REFUND_DOC] },
  { id: "citation", question: QUESTION, answer: "Refunds are paid within 30 days of the return [3].", context: [{ id: "1", text: REFUND_DOC }, { id: "2", text: "Shipping is free over 50 euros." }] },
  { id: "grounded", question: QUESTION, answer: "Refunds are paid within 30 days of the return.", context: [REFUND_DOC] },
] as const;
