/**
 * What both onnx engines (the sequence or token classifier, and the seq2seq detector) do with a batch
 * of pairs once they can run a batch of encoded chunks: feed every pair through its recipe (one or more
 * chunks), run all chunks of all pairs together in length order, and read each pair's answer from its
 * chunks — the best chunk's logits (`logits`), every chunk (`inspect`), or the result (`classify`).
 */
import type { NliPair, NliResult } from "../../core/backend.ts";
import type { EncodedPair } from "./encoder.ts";
import type { InspectedPair } from "./engine-types.ts";
import type { LabelMap } from "./model-dir.ts";
import type { EncodedChunk, RecipeFeeder } from "./recipe-feeder.ts";
import type { ChunkLogits } from "./recipe-output.ts";
import { bestChunk, pairResult } from "./recipe-output.ts";
import { inLengthOrder } from "./session.ts";

/** The pair methods of an engine (OnnxEngine's logits, inspect and classify). */
export interface ChunkedPairMethods {
  logits(pairs: readonly NliPair[]): Promise<{ logits: number[][]; encoded: EncodedPair[] }>;
  inspect(pairs: readonly NliPair[]): Promise<InspectedPair[]>;
  classify(pairs: readonly NliPair[]): Promise<NliResult[]>;
}

/** How an engine runs: its feeder, its batch size, one batch of chunks to one row of logits each, and how rows are read. */
export interface ChunkedRunOptions {
  readonly feeder: Pick<RecipeFeeder, "feed">;
  readonly maxBatch: number;
  readonly runBatch: (batch: readonly EncodedPair[]) => Promise<number[][]>;
  readonly labels: LabelMap;
  readonly maxLength: number;
}

type RunChunk = { readonly input: EncodedChunk; readonly logits: number[] };

const chunkLogits = (chunks: readonly RunChunk[]): ChunkLogits[] => chunks.map((c) => ({ logits: c.logits, truncated: c.input.truncated }));

export function chunkedPairMethods(options: ChunkedRunOptions): ChunkedPairMethods {
  const { feeder, maxBatch, runBatch, labels, maxLength } = options;
  /** Every pair's chunks with their logits, all chunks of all pairs run together. */
  const run = async (pairs: readonly NliPair[]): Promise<RunChunk[][]> => {
    const fed = pairs.map((p) => feeder.feed(p.premise, p.hypothesis));
    const rows = await inLengthOrder(fed.flat(), maxBatch, runBatch);
    let next = 0;
    return fed.map((chunks) => chunks.map((input) => ({ input, logits: rows[next++] ?? [] })));
  };
  return {
    async logits(pairs) {
      const decided = (await run(pairs)).map((chunks) => chunks[bestChunk(chunkLogits(chunks), labels)] ?? { input: { ids: [], typeIds: [], truncated: 0 }, logits: [] });
      return { logits: decided.map((c) => c.logits), encoded: decided.map((c) => c.input) };
    },
    async inspect(pairs) {
      return (await run(pairs)).map((chunks) => ({ chunks: chunks.map(({ input, logits }) => ({ ...(input.text !== undefined ? { text: input.text } : {}), ids: [...input.ids], logits })) }));
    },
    async classify(pairs) {
      return (await run(pairs)).map((chunks) => pairResult(chunkLogits(chunks), labels, maxLength));
    },
  };
}
