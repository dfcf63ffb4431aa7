import type { ProductionProvenance } from "../core/calibration.ts";
import type { LabelRecord, ReviewLabelValue, SpanVerdict, SpoolKind, SpoolRecord } from "./record.ts";
import { agreementOf } from "./record.ts";

/**
 * Labels as data: the reviewers' labels in force reduced to one label per answer (the majority;
 * a tie is no label), and reviewed answers as eval-set rows that `eval --set` and
 * `calibrate --set` read as they are. Pure: the command reads the files and writes the rows.
 */

/** One answer's label by the majority of the reviewers who labelled it. */
export interface AnswerLabel {
  readonly id: string;
  readonly kind: SpoolKind;
  /** The majority's label: grounded (1) or not (0). */
  readonly label: ReviewLabelValue;
  /** Every reviewer whose label is in force for the answer, sorted. */
  readonly reviewers: readonly string[];
  /** Labels in force for grounded (1) and not grounded (0). */
  readonly votes: { readonly grounded: number; readonly notGrounded: number };
  /** The latest of those labels' times (ISO 8601). */
  readonly reviewedAt: string;
  /** Claim labels by the majority of the reviewers who marked that claim (a tied claim is left out), by claim index. */
  readonly claims: ReadonlyArray<{ readonly index: number; readonly label: ReviewLabelValue }>;
  /** Spans a majority of the answer's reviewers marked wrong, by index into the record's `spans`, with how many did. */
  readonly spans: ReadonlyArray<{ readonly span: number; readonly verdict: SpanVerdict; readonly votes: number }>;
}

/** The answers' majority labels, and the answers whose reviewers are evenly split (no label). */
export interface MajorityLabels {
  readonly labels: Map<string, AnswerLabel>;
  /** Ids of answers with as many grounded as not-grounded labels: excluded, counted. */
  readonly ties: readonly string[];
}

/**
 * One label per answer from the labels in force (`currentLabels`' map): the majority of its
 * reviewers; an even split is a tie, left out and listed. `reviewer` keeps only that reviewer's labels.
 */
export function majorityLabels(current: ReadonlyMap<string, LabelRecord>, reviewer?: string): MajorityLabels {
  const byId = new Map<string, LabelRecord[]>();
  for (const l of current.values()) {
    if (l.label === undefined || (reviewer !== undefined && l.reviewer !== reviewer)) continue;
    const list = byId.get(l.id) ?? [];
    list.push(l);
    byId.set(l.id, list);
  }
  const labels = new Map<string, AnswerLabel>();
  const ties: string[] = [];
  for (const [id, list] of byId) {
    const grounded = list.filter((l) => l.label === 1).length;
    const notGrounded = list.length - grounded;
    if (grounded === notGrounded) {
      ties.push(id);
      continue;
    }
    const claimVotes = new Map<number, { yes: number; no: number }>();
    for (const l of list) {
      for (const c of l.claims ?? []) {
        const v = claimVotes.get(c.index) ?? { yes: 0, no: 0 };
        if (c.label === 1) v.yes++;
        else v.no++;
        claimVotes.set(c.index, v);
      }
    }
    const claims = [...claimVotes].filter(([, v]) => v.yes !== v.no).sort(([a], [b]) => a - b).map(([index, v]) => ({ index, label: (v.yes > v.no ? 1 : 0) as ReviewLabelValue }));
    // A span is wrong when more than half of the answer's reviewers marked it so (one who did not mark it says it stands).
    const spanVotes = new Map<number, number>();
    for (const l of list) for (const s of new Set((l.spans ?? []).map((x) => x.span))) spanVotes.set(s, (spanVotes.get(s) ?? 0) + 1);
    const spans = [...spanVotes].filter(([, n]) => n * 2 > list.length).sort(([a], [b]) => a - b).map(([span, votes]) => ({ span, verdict: "wrong" as const, votes }));
    const first = list[0] as LabelRecord;
    labels.set(id, {
      id,
      kind: first.kind,
      label: grounded > notGrounded ? 1 : 0,
      reviewers: [...new Set(list.map((l) => l.reviewer))].sort(),
      votes: { grounded, notGrounded },
      reviewedAt: list.map((l) => l.time).reduce((a, b) => (b > a ? b : a)),
      claims,
      spans,
    });
  }
  return { labels, ties: ties.sort() };
}

/** What the export keeps: every reviewed answer, or only those whose label disagrees with groundwatch's verdict (the regression set). */
export type ExportOnly = "all" | "disagreements";
export const EXPORT_ONLY: readonly ExportOnly[] = ["all", "disagreements"];

/** The review fields of an exported row: where the answer came from, who labelled it, and what groundwatch said then. */
export interface ExportReview {
  readonly traceId?: string;
  readonly spanId?: string;
  /** The reviewers whose labels are in force for the answer. */
  readonly reviewers: readonly string[];
  readonly votes: { readonly grounded: number; readonly notGrounded: number };
  /** When the latest of those labels was given. */
  readonly reviewedAt: string;
  /** When groundwatch scored the answer in production. */
  readonly time: string;
  readonly kind: SpoolKind;
  readonly route: string;
  readonly replica: string;
  /** groundwatch's verdict, score, threshold and cause at the time. */
  readonly verdict: SpoolRecord["verdict"];
  readonly score: number | null;
  readonly threshold?: number;
  readonly cause?: SpoolRecord["cause"];
  readonly backend: SpoolRecord["backend"];
  readonly agreement: "agree" | "disagree";
  /** The rate answers of its kind were spooled at: 1 for a flagged answer, the grounded sample rate for a grounded sample. */
  readonly sampleRate?: number;
  /**
   * The share of its route's spooled answers of its kind that this export holds (reviewed, not
   * tied): with `sampleRate`, the chance an answer of the traffic had of being this row, which a
   * drift reference weights it by. Absent with `selected`.
   */
  readonly reviewedShare?: number;
  /** "disagreements": the row was chosen by its label (--only disagreements), so the rows do not stand for the traffic. */
  readonly selected?: "disagreements";
}

/** One exported row: groundwatch's eval-set row (id, question, context as documents with ids, answer, label) plus the claim labels and the review. */
export interface ExportRow {
  readonly id: string;
  readonly question?: string;
  readonly context: ReadonlyArray<{ readonly id: string; readonly title?: string; readonly url?: string; readonly text: string }>;
  readonly answer: string;
  readonly label: ReviewLabelValue;
  /** Claim by claim, where the reviewers marked them: the claim's text and offsets, and its label. */
  readonly claimLabels?: ReadonlyArray<{ readonly index: number; readonly text: string; readonly start: number; readonly end: number; readonly label: ReviewLabelValue }>;
  /** Spans the reviewers' majority marked wrong: the span (offsets into `answer`, probability, claim, words), the verdict and how many reviewers marked it. */
  readonly spanLabels?: ReadonlyArray<{ readonly span: number; readonly start: number; readonly end: number; readonly probability: number; readonly claim: number | null; readonly text: string; readonly verdict: SpanVerdict; readonly votes: number }>;
  readonly review: ExportReview;
}

/** The rows and what was left out, by reason. */
export interface ExportResult {
  readonly rows: ExportRow[];
  /** Answers whose reviewers are evenly split. */
  readonly ties: number;
  /** Labelled answers not found in the spools (deleted, or another spool). */
  readonly notInSpool: number;
  /** Labelled answers left out by `--only disagreements` because the label agrees with groundwatch. */
  readonly agreeing: number;
}

/** How a row was drawn from the traffic: the share of its route's spooled answers of its kind that were exported, or chosen by label. */
export type ExportSelection = { readonly reviewedShare: number } | { readonly selected: "disagreements" };

/** A spooled answer and its majority label as an eval-set row. A document without an id gets its position (1-based), as a citation "[n]" names it. */
export function exportRow(record: SpoolRecord, label: AnswerLabel, selection?: ExportSelection): ExportRow {
  const claimText = new Map(record.claims.map((c) => [c.index, c]));
  const claimLabels = label.claims.flatMap((c) => {
    const claim = claimText.get(c.index);
    return claim ? [{ index: c.index, text: claim.text, start: claim.start, end: claim.end, label: c.label }] : [];
  });
  const spanLabels = label.spans.flatMap((l) => {
    const s = record.spans?.[l.span];
    return s ? [{ span: l.span, start: s.start, end: s.end, probability: s.probability, claim: s.claim, text: s.text, verdict: l.verdict, votes: l.votes }] : [];
  });
  return {
    id: record.id,
    ...(record.question !== undefined ? { question: record.question } : {}),
    context: record.documents.map((d, i) => ({ id: d.id ?? String(i + 1), ...(d.title !== undefined ? { title: d.title } : {}), ...(d.url !== undefined ? { url: d.url } : {}), text: d.text })),
    answer: record.answer,
    label: label.label,
    ...(claimLabels.length > 0 ? { claimLabels } : {}),
    ...(spanLabels.length > 0 ? { spanLabels } : {}),
    review: {
      ...(record.traceId !== undefined ? { traceId: record.traceId } : {}),
      ...(record.spanId !== undefined ? { spanId: record.spanId } : {}),
      reviewers: label.reviewers,
      votes: label.votes,
      reviewedAt: label.reviewedAt,
      time: record.time,
      kind: record.kind,
      route: record.route,
      replica: record.replica,
      verdict: record.verdict,
      score: record.score,
      ...(record.threshold !== undefined ? { threshold: record.threshold } : {}),
      ...(record.cause !== undefined ? { cause: record.cause } : {}),
      backend: record.backend,
      agreement: agreementOf(record.kind, label.label),
      ...(typeof record.sampleRate === "number" ? { sampleRate: record.sampleRate } : {}),
      ...selection,
    },
  };
}

/**
 * The reviewed answers of the spools as rows, in spool order (oldest first). With every answer
 * (`all`), each row says what share of its route's spooled answers of its kind the export holds
 * (reviewers label flagged answers first, so a half-reviewed spool holds every flagged answer and
 * part of the grounded sample); with `disagreements`, that its rows were chosen by their label.
 */
export function exportRows(records: readonly SpoolRecord[], majority: MajorityLabels, only: ExportOnly = "all"): ExportResult {
  const chosen: Array<{ record: SpoolRecord; label: AnswerLabel }> = [];
  let agreeing = 0;
  const found = new Set<string>();
  // Spooled and exported answers per route and kind.
  const strata = new Map<string, { spooled: number; exported: number }>();
  const stratum = (r: SpoolRecord): { spooled: number; exported: number } => {
    const key = JSON.stringify([r.route, r.kind]);
    let s = strata.get(key);
    if (!s) strata.set(key, (s = { spooled: 0, exported: 0 }));
    return s;
  };
  for (const record of records) {
    stratum(record).spooled++;
    const label = majority.labels.get(record.id);
    if (!label) continue;
    found.add(record.id);
    if (only === "disagreements" && agreementOf(record.kind, label.label) === "agree") {
      agreeing++;
      continue;
    }
    stratum(record).exported++;
    chosen.push({ record, label });
  }
  const rows = chosen.map(({ record, label }) => {
    const s = stratum(record);
    return exportRow(record, label, only === "disagreements" ? { selected: "disagreements" } : { reviewedShare: s.exported / s.spooled });
  });
  return { rows, ties: majority.ties.length, notInSpool: majority.labels.size - found.size, agreeing };
}

/** Gathers the production provenance of set rows as they are read; `provenance()` is undefined when no row carried review fields. */
export function productionTally(): { add(row: unknown): void; provenance(): ProductionProvenance | undefined } {
  let rows = 0;
  const reviewers = new Set<string>();
  let from: string | undefined;
  let to: string | undefined;
  return {
    add(row: unknown): void {
      const review = row && typeof row === "object" ? (row as { review?: unknown }).review : undefined;
      if (!review || typeof review !== "object") return;
      const r = review as { reviewers?: unknown; time?: unknown };
      if (!Array.isArray(r.reviewers) || r.reviewers.length === 0 || !r.reviewers.every((x) => typeof x === "string") || typeof r.time !== "string" || Number.isNaN(Date.parse(r.time))) return;
      rows++;
      for (const name of r.reviewers as string[]) reviewers.add(name);
      const t = new Date(Date.parse(r.time)).toISOString();
      if (from === undefined || t < from) from = t;
      if (to === undefined || t > to) to = t;
    },
    provenance(): ProductionProvenance | undefined {
      return rows > 0 && from !== undefined && to !== undefined ? { rows, reviewers: reviewers.size, from, to } : undefined;
    },
  };
}

/** "labels from production review: N answers by K reviewers, from … to …" — the one sentence calibrate and eval print. */
export function describeProduction(p: ProductionProvenance): string {
  return `labels from production review: ${p.rows} answer${p.rows === 1 ? "" : "s"} by ${p.reviewers} reviewer${p.reviewers === 1 ? "" : "s"}, from ${p.from} to ${p.to}`;
}
