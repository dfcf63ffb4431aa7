import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./cli.ts";

const REFUNDS = "Refunds are issued within 30 days of delivery for unopened items.";
const MUSEUM = "The museum opens at nine in the morning and closes at five in the evening.";
const SHIPPING = "Standard shipping is free on orders over $50; express shipping costs $15.";

/**
 * A labelled set (34 rows; 36 with `partlyWrong`) that the offline backend scores with answers whose
 * claim is contradicted scoring above low-scoring grounded ones, and with one score shared by several
 * grounded rows: what calibrate's old `score ≥ threshold` arithmetic and rounded threshold got wrong.
 * Causes are labelled on most not-grounded rows (generation, retrieval). Written to a temporary file.
 */
export function verdictSet(options: { partlyWrong?: boolean } = {}): string {
  const rows: object[] = [];
  const add = (answer: string, context: string, label: 0 | 1, copies: number, cause?: string): void => {
    for (let i = 0; i < copies; i++) rows.push({ id: `r${rows.length}`, context: [context], answer, label, ...(cause ? { cause } : {}) });
  };
  // Grounded, fully supported.
  add("Refunds are issued within 30 days of delivery for unopened items.", REFUNDS, 1, 4);
  add("The museum opens at nine in the morning.", MUSEUM, 1, 4);
  add("Express shipping costs $15.", SHIPPING, 1, 3);
  // Grounded but worded apart from the context: low scores, the same score repeated.
  add("You can get your money back for unopened things if you ask within a month.", REFUNDS, 1, 5);
  add("Orders above fifty dollars ship at no cost.", SHIPPING, 1, 3);
  // Not grounded: contradicted (a number, a negation) — ungrounded whatever the threshold.
  add("Refunds are issued within 90 days of delivery for unopened items.", REFUNDS, 0, 3, "generation");
  add("The museum does not open in the morning.", MUSEUM, 0, 3, "generation");
  add("Shipping is not free on orders over $50.", SHIPPING, 0, 2);
  // Not grounded: nothing in the context.
  add("The cafeteria serves vegan lunches every Tuesday.", MUSEUM, 0, 4, "retrieval");
  add("Gift cards can be used in every store across Europe.", SHIPPING, 0, 3, "retrieval");
  if (options.partlyWrong) {
    // Not grounded, but close to the context in words: they score where grounded answers do.
    add("Refunds are issued within 30 days of delivery for all items, opened or not.", REFUNDS, 0, 1, "generation");
    add("Express shipping is free on orders over $50.", SHIPPING, 0, 1, "generation");
  }
  const path = join(tempDir(), "labelled.jsonl");
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}

