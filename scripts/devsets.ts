import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { cascadeHalf } from "../src/core/cascade-fit.ts";

/** One labelled row of a dev set: does `context` support `claim`? */
export interface DevRow {
  /** The file stem, e.g. summedits_news (the rows' own `dataset` field merges the four SummEdits files). */
  readonly dataset: string;
  readonly id: string;
  readonly context: string;
  readonly claim: string;
  readonly label: 0 | 1;
  /** The user's question, where the set has one (HaluEval QA's `meta.question`). */
  readonly question?: string;
}

/** Dev sets whose licence allows fitting; the rest (ANLI, CC BY-NC) are only measured. */
export const FIT_ALLOWED = new Set(["wice_dev", "begin_dev", "halueval_qa", "summedits_news", "summedits_podcast", "summedits_sales_call", "summedits_samsum"]);

export function devDir(): string {
  return resolve(process.env.GROUNDWATCH_DEV_DIR ?? join(import.meta.dirname, "..", "..", "shared", "data", "dev"));
}

/** Reads every `*.jsonl` dev set in the directory, by file stem. */
export function loadDevSets(dir: string = devDir()): Map<string, DevRow[]> {
  if (!existsSync(dir)) throw new Error(`dev sets not found at ${dir} (set GROUNDWATCH_DEV_DIR)`);
  const sets = new Map<string, DevRow[]>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort()) {
    const stem = file.replace(/\.jsonl$/, "");
    const rows = readFileSync(join(dir, file), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l, i) => {
        const r = JSON.parse(l) as Partial<DevRow> & { meta?: { question?: unknown } };
        if (typeof r.context !== "string" || typeof r.claim !== "string" || (r.label !== 0 && r.label !== 1)) {
          throw new Error(`${file}:${i + 1}: expected string context and claim and label 0 or 1`);
        }
        const question = typeof r.meta?.question === "string" && r.meta.question.trim() !== "" ? r.meta.question : undefined;
        return { dataset: stem, id: String(r.id ?? i), context: r.context, claim: r.claim, label: r.label, ...(question === undefined ? {} : { question }) };
      });
    sets.set(stem, rows);
  }
  return sets;
}

/** Deterministic 80/20 split by id, so the held-out rows never change between runs. */
export function isHeldOut(row: DevRow): boolean {
  let h = 2166136261;
  for (const c of `${row.dataset}/${row.id}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h % 5 === 0;
}

/**
 * Deterministic halves by id for fits that are checked on the other half (the cascade's thresholds,
 * core/cascade-fit.ts cascadeHalf): a hash of its own, so the halves do not follow the 80/20 split above.
 */
export function inFitHalf(row: DevRow): boolean {
  return cascadeHalf(`${row.dataset}/${row.id}`) === "fit";
}
