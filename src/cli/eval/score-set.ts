import type { ContextInput } from "../../core/context.ts";
import { documentName } from "../../core/context.ts";
import type { Scorer } from "../../scoring/scorer.ts";
import type { CommandIo } from "../shared/io.ts";
import type { TargetOptions } from "./target.ts";
import { askTarget } from "./target.ts";
import type { SetRow } from "./set.ts";
import type { EvalRow } from "./types.ts";

/** Each retrieved document's name as a citation may give it (id, else title, else URL), null when unnamed. */
function sourceNames(context: ContextInput): Array<string | null> {
  if (typeof context === "string") return [null];
  return context.map((d) => (typeof d === "string" ? null : (documentName(d) ?? null)));
}

/** What scoreSet needs besides the rows. */
export interface ScoreSetOptions {
  /** Scores each answer; its caller closes it. */
  readonly scorer: Scorer;
  /** The RAG endpoint that answers each row; undefined to score the rows' own answers. */
  readonly target: TargetOptions | undefined;
  /** Rows in flight at once. */
  readonly concurrency: number;
  /** Where the progress bar goes (stderr, only on a terminal). */
  readonly io: CommandIo;
}

/**
 * Scores every row of the set, asking the --target first when there is one, `concurrency` rows at
 * a time; a failed ask makes its row unscorable (target_error). Results are in set order.
 */
export async function scoreSet(set: readonly SetRow[], { scorer, target, concurrency, io }: ScoreSetOptions): Promise<EvalRow[]> {
  const results = new Array<EvalRow>(set.length);
  let done = 0;
  const tty = io.stderr.isTTY === true;
  const progress = (): void => {
    if (!tty) return;
    const width = 30;
    const filled = Math.round((done / set.length) * width);
    io.stderr.write(`\r  [${"#".repeat(filled).padEnd(width)}] ${done}/${set.length}`);
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < set.length) {
      const i = next++;
      const row = set[i] as SetRow;
      let answer = row.answer ?? "";
      let samples = row.samples;
      let context = row.context;
      let fromReply = false;
      let error: string | undefined;
      if (target) {
        try {
          const got = await askTarget(target, row.question ?? "");
          answer = got.answer;
          if (got.samples) samples = got.samples;
          if (got.context) {
            context = got.context;
            fromReply = true;
          }
        } catch (e) {
          error = (e as Error).message;
        }
      }
      const base = { id: row.id, question: row.question, ...(row.label !== undefined ? { label: row.label } : {}), ...(fromReply ? { contextFrom: "reply" as const } : {}) };
      if (error !== undefined) {
        results[i] = { ...base, answer: "", verdict: "unscorable", score: null, reason: "target_error", claims: [], error };
      } else {
        const r = await scorer.score({ answer, context: context ?? [], ...(row.question !== undefined ? { question: row.question } : {}), ...(samples ? { samples } : {}) });
        results[i] = {
          ...base,
          answer,
          verdict: r.verdict,
          score: r.score,
          ...(r.verdict === "unscorable" ? { reason: r.reason } : {}),
          claims: r.claims,
          ...(r.spans ? { spans: r.spans } : {}),
          ...(r.callsByEngine ? { callsByEngine: r.callsByEngine } : {}),
          ...(r.combined ? { combined: r.combined.verdict } : {}),
          ...(r.citations ? { citations: r.citations, sources: sourceNames(context ?? []) } : {}),
          ...(r.verdict === "ungrounded" && r.cause ? { cause: r.cause } : {}),
          ...(r.relevance ? { relevance: r.relevance } : {}),
        };
      }
      done++;
      progress();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, set.length) }, worker));
  if (tty) io.stderr.write("\n");
  return results;
}
