import type { TextAnalyzer } from "../../src/core/text.ts";
import { createTextAnalyzer } from "../../src/core/text.ts";

let shared: TextAnalyzer | undefined;

/** One analyser per test file: loading the language model takes ~150 ms. */
export function testAnalyzer(): TextAnalyzer {
  shared ??= createTextAnalyzer();
  return shared;
}
