import type { LabelRecord } from "../../review/record.ts";

/**
 * The conflict rule as a reviewer reads it (review/store.ts): labels of others written since the
 * reviewer's session loaded, which the store refused a label for until the reviewer knows of them.
 */

/** Labels of others the reviewer had not seen, in words: "already labelled by ana (agree), bo (disagree)". */
export function conflictText(others: readonly LabelRecord[]): string {
  return `already labelled by ${others.map((l) => `${l.reviewer.slice(0, 100).replace(/[^\w .@-]/g, "?")} (${l.agreement ?? "?"})`).join(", ")}`;
}
