/**
 * Cause benchmark (issue 27): from every dev set, each claim is an answer, scored through the real
 * pipeline (createScorer, backend offline) twice: (a) with its own context — a row labelled not
 * supported that is flagged (ungrounded) is a generation failure; (b) with the context of another
 * row of the same set swapped in (core's swapPartners, seeded, never the same text) — flagged
 * ones are retrieval failures. HaluEval QA rows carry their question (meta.question); the other
 * sets have none, and relevance is measured against the claim.
 *
 * Context relevance of a row, for the AUROC and the fit: with a question, the pipeline's
 * `relevance.context.best`; without one, the context's best relevance to the claim as the
 * pipeline measures it for a failing claim (core contextRelevance over the scorer's windows),
 * measured for every row, flagged or not. Answer relevance (rows with a question): the row's own
 * answer (the pipeline's `relevance.answer.score`) vs the answer of a row with another question.
 *
 * Causes are read from each flagged result's failing claims through core/cause.ts, so they can be
 * re-read at any threshold; at the thresholds in force they are checked to equal the pipeline's.
 * Fitting (core/relevance-fit.ts) uses one half of each set's rows (a seeded split by context, so
 * rows sharing a context stay together; never ANLI, CC BY-NC: measured only); the held-out half
 * is reported at the fitted thresholds.
 *
 *   GROUNDWATCH_DEV_DIR=… npm run bench:cause -- [--limit N] [--set NAME[,NAME…]] [--seed S] [--fit]
 */
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { answerRelevance } from "../src/core/cause-analysis.ts";
import type { AnswerCause, NamedCause } from "../src/core/cause.ts";
import { CAUSES, CAUSE_MARGINS, answerCause, claimCause } from "../src/core/cause.ts";
import { answerContribution } from "../src/core/verdict.ts";
import type { ClaimResult } from "../src/core/result.ts";
import type { RelevanceExample } from "../src/core/relevance-fit.ts";
import { balancedAccuracyAt, fitRelevanceThreshold, swapPartners } from "../src/core/relevance-fit.ts";
import { auroc } from "../src/core/stats.ts";
import { createTextAnalyzer } from "../src/core/text.ts";
import { DEFAULT_LIMITS } from "../src/config/defaults.ts";
import { createScorer } from "../src/sdk/create-scorer.ts";
import { FIT_ALLOWED } from "../scripts/devsets.ts";
import { flag } from "./args.ts";
import { claimRelevance, selectedDevSets } from "./dev-relevance.ts";

type Truth = "retrieval" | "generation" | "other";
const TRUTHS: readonly Truth[] = ["retrieval", "generation", "other"];

/** One scoring of an answer against a context: its context relevance and, when flagged, what its cause is read from. */
interface Outcome {
  readonly relevance: number | undefined;
  /** With a question: the answer's relevance to it. */
  readonly answer?: number | undefined;
  /** Flagged: the failing claims (those the pipeline gave a cause), with their own relevance without a question. */
  readonly failing: ReadonlyArray<Pick<ClaimResult, "verdict" | "reason" | "citations" | "relevance" | "score" | "contradiction">> | undefined;
  /** The answer threshold the claims were judged against. */
  readonly threshold: number;
  /** The pipeline's cause, to check the re-reading against. */
  readonly cause: AnswerCause | undefined;
}

interface Row {
  readonly set: string;
  readonly half: "fit" | "held-out" | "measured";
  readonly label: 0 | 1;
  readonly question: string | undefined;
  readonly own: Outcome;
  readonly swapped: Outcome | undefined;
  readonly answer: { readonly own: number; readonly swapped: number } | undefined;
}

/** The seeded half a row falls in, by its context (rows sharing one stay together); ANLI is only measured. */
function halfOf(set: string, context: string, seed: number): Row["half"] {
  if (!FIT_ALLOWED.has(set)) return "measured";
  let h = (2166136261 ^ seed) >>> 0;
  for (const c of `${set}/${context}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h % 2 === 0 ? "fit" : "held-out";
}

/** The cause of a flagged outcome at a context threshold, by core/cause.ts' rules (its margins); undefined when not flagged. */
function causeAt(o: Outcome, question: boolean, threshold: number): AnswerCause | undefined {
  if (!o.failing) return undefined;
  const causes: NamedCause[] = o.failing.map((c) => claimCause(c, { threshold: o.threshold, relevance: question ? o.relevance : c.relevance, relevanceThreshold: threshold }));
  return answerCause(causes).cause;
}

/** Where each flagged outcome lies: its truth, its failing claims' largest distance below the answer threshold (a share of it), and its relevance's distance from the context threshold. */
function margins(rows: readonly Row[], contextThreshold: number): Array<{ truth: Truth; claim: number; relevance: number | undefined }> {
  const out: Array<{ truth: Truth; claim: number; relevance: number | undefined }> = [];
  const add = (truth: Truth, o: Outcome | undefined, question: boolean): void => {
    if (!o?.failing || o.failing.length === 0) return;
    const claim = Math.max(...o.failing.map((c) => (o.threshold - answerContribution(c.score, c.contradiction)) / o.threshold));
    const r = question ? o.relevance : o.failing.find((c) => c.relevance !== undefined)?.relevance;
    out.push({ truth, claim, relevance: r === undefined ? undefined : r - contextThreshold });
  };
  for (const r of rows) {
    add(r.label === 0 ? "generation" : "other", r.own, r.question !== undefined);
    add("retrieval", r.swapped, r.question !== undefined);
  }
  return out;
}

/** Own context relevance (relevant) and swapped (not), where measured. */
const contextExamples = (rows: readonly Row[]): RelevanceExample[] =>
  rows.flatMap((r) => [
    ...(r.own.relevance === undefined ? [] : [{ score: r.own.relevance, relevant: true }]),
    ...(r.swapped?.relevance === undefined ? [] : [{ score: r.swapped.relevance, relevant: false }]),
  ]);
const answerExamples = (rows: readonly Row[]): RelevanceExample[] =>
  rows.flatMap((r) => (r.answer ? [{ score: r.answer.own, relevant: true }, { score: r.answer.swapped, relevant: false }] : []));

/** Cause accuracy among flagged answers at a context threshold, with the confusion matrix truth → predicted and the flagged share per truth. */
function causeReport(rows: readonly Row[], threshold: number): { accuracy: number; judged: number; matrix: Map<Truth, Map<AnswerCause, number>>; flagged: Map<Truth, { flagged: number; of: number }> } {
  const matrix = new Map(TRUTHS.map((t) => [t, new Map(CAUSES.map((c) => [c, 0]))]));
  const flagged = new Map(TRUTHS.map((t) => [t, { flagged: 0, of: 0 }]));
  let right = 0;
  let judged = 0;
  const count = (truth: Truth, o: Outcome, question: boolean): void => {
    const f = flagged.get(truth);
    if (f) f.of++;
    const cause = causeAt(o, question, threshold);
    if (cause === undefined) return;
    if (f) f.flagged++;
    const m = matrix.get(truth);
    m?.set(cause, (m.get(cause) ?? 0) + 1);
    if (truth === "other") return;
    judged++;
    if (cause === truth) right++;
  };
  for (const r of rows) {
    count(r.label === 0 ? "generation" : "other", r.own, r.question !== undefined);
    if (r.swapped) count("retrieval", r.swapped, r.question !== undefined);
  }
  return { accuracy: judged === 0 ? Number.NaN : right / judged, judged, matrix, flagged };
}

const f3 = (x: number): string => (Number.isNaN(x) ? "–" : x.toFixed(3));
const share = (f: { flagged: number; of: number } | undefined): string => (f && f.of > 0 ? `${f.flagged}/${f.of} (${((100 * f.flagged) / f.of).toFixed(0)}%)` : "–");
const row = (m: Map<AnswerCause, number> | undefined): string => CAUSES.map((c) => m?.get(c) ?? 0).join(" / ");

async function main(): Promise<void> {
  const seed = Number(flag("seed") ?? 27);
  const fit = process.argv.includes("--fit");
  const scorer = await createScorer({ backend: "offline" });
  const backend = scorer.entailment;
  const inForce = scorer.relevanceThresholds;
  if (!inForce) throw new Error("relevance is off (GROUNDWATCH_RELEVANCE): the cause benchmark needs it");
  const relevanceToClaim = claimRelevance(backend, createTextAnalyzer({ cacheBytes: DEFAULT_LIMITS.cacheBytes / 2 }));
  const outcome = async (question: string | undefined, answer: string, context: string): Promise<Outcome> => {
    const r = await scorer.score({ ...(question === undefined ? {} : { question }), answer, context });
    const relevance = question !== undefined ? r.relevance?.context?.best : await relevanceToClaim(answer, context);
    const flagged = r.verdict === "ungrounded";
    return { relevance, answer: r.relevance?.answer?.score, failing: flagged ? r.claims.filter((c) => c.cause !== undefined) : undefined, threshold: r.verdict === "unscorable" ? Number.NaN : r.threshold, cause: r.verdict === "ungrounded" ? r.cause : undefined };
  };

  const rows: Row[] = [];
  const speed: Array<[string, number, number]> = [];
  let mismatches = 0;
  for (const [name, set] of selectedDevSets()) {
    const contextPartner = swapPartners(
      set.map((r) => r.context),
      seed,
    );
    const answerPartner = swapPartners(
      set.map((r) => r.question ?? ""),
      seed + 1,
    );
    const t0 = performance.now();
    for (const [i, dev] of set.entries()) {
      const q = dev.question;
      const own = await outcome(q, dev.claim, dev.context);
      const other = set[contextPartner[i] ?? -1];
      const swapped = other ? await outcome(q, dev.claim, other.context) : undefined;
      const offTopic = q !== undefined ? set[answerPartner[i] ?? -1] : undefined;
      let answer: Row["answer"];
      if (q !== undefined && offTopic) {
        const ownScore = own.answer;
        const swappedScore = (await answerRelevance(q, offTopic.claim, backend, inForce.answer)).score;
        if (ownScore !== undefined) answer = { own: ownScore, swapped: swappedScore };
      }
      for (const o of [own, swapped]) if (o && causeAt(o, q !== undefined, inForce.context) !== o.cause) mismatches++;
      rows.push({ set: name, half: halfOf(name, dev.context, seed), label: dev.label, question: q, own, swapped, answer });
    }
    speed.push([name, set.length, performance.now() - t0]);
    console.error(`${name}: done`);
  }
  if (mismatches > 0) throw new Error(`${mismatches} causes re-read at the thresholds in force differ from the pipeline's: the benchmark no longer reads causes as core does`);

  const fitRows = rows.filter((r) => r.half === "fit");
  const heldOut = rows.filter((r) => r.half === "held-out");
  const contextFit = fitRelevanceThreshold(contextExamples(fitRows));
  const answerFit = fitRelevanceThreshold(answerExamples(fitRows));
  const fitted = { context: contextFit.fitted ? contextFit.threshold : inForce.context, answer: answerFit.fitted ? answerFit.threshold : inForce.answer };

  const allowed = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "unknown";
  console.log(`backend ${scorer.backend.name} ${scorer.backend.version ?? ""} (tier ${scorer.backend.tier ?? "?"}); relevance thresholds in force: context ${inForce.context}, answer ${inForce.answer}; seed ${seed}`);
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, one thread, CPUs allowed: ${allowed}`);
  console.log(`fitted on the fit halves (${fitRows.length} rows): context ${f3(fitted.context)}${contextFit.fitted ? "" : ` (not fitted: ${contextFit.reason})`}, answer ${f3(fitted.answer)}${answerFit.fitted ? "" : ` (not fitted: ${answerFit.reason})`}`);
  console.log("");
  console.log("Context relevance, own context vs swapped (AUROC; balanced accuracy, BA, at a threshold), and cause among flagged answers at the thresholds in force.");
  console.log("Flagged: own context, labelled unsupported (truth generation) / labelled supported (truth other: a false flag) / swapped context (truth retrieval).");
  console.log("Confusion (predicted retrieval / generation / citation / mixed / unknown) per truth.");
  console.log("");
  console.log("| set | rows | question | AUROC own vs swapped | BA in force | flagged unsupported | flagged supported | flagged swapped | cause accuracy (n) | truth retrieval → | truth generation → | truth other → | rows/s |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  const line = (name: string, of: readonly Row[], rowsPerS: string): void => {
    const ex = contextExamples(of);
    const c = causeReport(of, inForce.context);
    const questions = of.filter((r) => r.question !== undefined).length;
    console.log(
      `| ${name} | ${of.length} | ${questions === 0 ? "no" : questions === of.length ? "yes" : questions} | ${f3(auroc(ex.map((e) => e.score), ex.map((e) => (e.relevant ? 1 : 0))))} | ${f3(balancedAccuracyAt(ex, inForce.context))} | ${share(c.flagged.get("generation"))} | ${share(c.flagged.get("other"))} | ${share(c.flagged.get("retrieval"))} | ${f3(c.accuracy)} (${c.judged}) | ${row(c.matrix.get("retrieval"))} | ${row(c.matrix.get("generation"))} | ${row(c.matrix.get("other"))} | ${rowsPerS} |`,
    );
  };
  for (const [name, n, ms] of speed) line(name, rows.filter((r) => r.set === name), ((n / ms) * 1000).toFixed(0));
  const totalMs = speed.reduce((a, [, , ms]) => a + ms, 0);
  line("all sets", rows, ((rows.length / totalMs) * 1000).toFixed(0));
  const named = causeReport(rows, inForce.context).matrix.get("other");
  const falseFlags = [...(named?.values() ?? [])].reduce((a, b) => a + b, 0);
  const falseNamed = (named?.get("retrieval") ?? 0) + (named?.get("generation") ?? 0);
  console.log("");
  console.log(`False flags (own context, labelled supported) named retrieval or generation: ${falseNamed} of ${falseFlags} (${falseFlags === 0 ? "–" : ((100 * falseNamed) / falseFlags).toFixed(0)}%).`);
  console.log("");
  const where = margins(rows, inForce.context);
  const tally = (keep: (m: (typeof where)[number]) => boolean): Record<Truth, number> => {
    const t: Record<Truth, number> = { retrieval: 0, generation: 0, other: 0 };
    for (const m of where) if (keep(m)) t[m.truth]++;
    return t;
  };
  console.log(`Margin evidence (core CAUSE_MARGINS: claim ${CAUSE_MARGINS.claim} of the threshold, relevance ${CAUSE_MARGINS.relevance}). Flagged answers by how far their failing claims lie below the answer threshold (the largest, as a share of it); false = other / (other + generation), the own-context flags that were false alarms:`);
  console.log("");
  console.log("| below the threshold by | truth retrieval | truth generation | truth other | false |");
  console.log("|---|---|---|---|---|");
  const claimBins = [0, 0.05, 0.125, 0.25, 0.375, 0.5, 0.75, Infinity];
  for (let i = 0; i + 1 < claimBins.length; i++) {
    const [lo, hi] = [claimBins[i] ?? 0, claimBins[i + 1] ?? Infinity];
    const t = tally((m) => m.claim >= lo && m.claim < hi);
    console.log(`| ${lo}–${hi === Infinity ? "" : hi} | ${t.retrieval} | ${t.generation} | ${t.other} | ${t.other + t.generation === 0 ? "–" : f3(t.other / (t.other + t.generation))} |`);
  }
  console.log("");
  console.log("Flagged answers by their relevance minus the context threshold in force; retrieval = the share of them that are truth retrieval:");
  console.log("");
  console.log("| relevance − threshold | truth retrieval | truth generation | truth other | retrieval |");
  console.log("|---|---|---|---|---|");
  const relBins = [-Infinity, -0.2, -0.1, -0.05, -0.02, 0, 0.02, 0.05, 0.1, 0.2, Infinity];
  for (let i = 0; i + 1 < relBins.length; i++) {
    const [lo, hi] = [relBins[i] ?? -Infinity, relBins[i + 1] ?? Infinity];
    const t = tally((m) => m.relevance !== undefined && m.relevance >= lo && m.relevance < hi);
    const n = t.retrieval + t.generation + t.other;
    console.log(`| ${lo === -Infinity ? "" : lo}–${hi === Infinity ? "" : hi} | ${t.retrieval} | ${t.generation} | ${t.other} | ${n === 0 ? "–" : f3(t.retrieval / n)} |`);
  }
  console.log("");
  console.log(`Held out (the other half of each fit-allowed set), at the thresholds fitted on the fit halves (context ${f3(fitted.context)}) and in force (${inForce.context}).`);
  console.log("");
  console.log("| set | held-out rows | AUROC own vs swapped | BA fitted | BA in force | cause accuracy fitted (n) | cause accuracy in force | truth retrieval → (fitted) | truth generation → (fitted) |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  const held = (name: string, of: readonly Row[]): void => {
    const ex = contextExamples(of);
    const atFit = causeReport(of, fitted.context);
    const atForce = causeReport(of, inForce.context);
    console.log(
      `| ${name} | ${of.length} | ${f3(auroc(ex.map((e) => e.score), ex.map((e) => (e.relevant ? 1 : 0))))} | ${f3(balancedAccuracyAt(ex, fitted.context))} | ${f3(balancedAccuracyAt(ex, inForce.context))} | ${f3(atFit.accuracy)} (${atFit.judged}) | ${f3(atForce.accuracy)} | ${row(atFit.matrix.get("retrieval"))} | ${row(atFit.matrix.get("generation"))} |`,
    );
  };
  for (const [name] of speed) if (FIT_ALLOWED.has(name)) held(name, heldOut.filter((r) => r.set === name));
  held("all fit-allowed sets", heldOut);
  const measured = rows.filter((r) => r.half === "measured");
  if (measured.length > 0) held("ANLI (measured only, whole)", measured);
  const answers = answerExamples(heldOut);
  if (answers.length > 0 || answerFit.relevant > 0) {
    console.log("");
    console.log(`Answer relevance (rows with a question): own answer vs another question's answer. Fit half: ${answerFit.fitted ? `AUROC ${f3(answerFit.auroc.auroc)} [${f3(answerFit.auroc.low)}, ${f3(answerFit.auroc.high)}], threshold ${f3(answerFit.threshold)}, BA ${f3(answerFit.balancedAccuracy)} on ${answerFit.relevant} pairs` : answerFit.reason}.`);
    console.log(`Held out: AUROC ${f3(auroc(answers.map((e) => e.score), answers.map((e) => (e.relevant ? 1 : 0))))}, BA at fitted ${f3(balancedAccuracyAt(answers, fitted.answer))}, at in force ${f3(balancedAccuracyAt(answers, inForce.answer))} on ${answers.length / 2} pairs.`);
  }
  if (fit) {
    console.log("");
    console.log(`--fit: context ${contextFit.fitted ? `${contextFit.threshold.toFixed(4)} (BA ${f3(contextFit.balancedAccuracy)}, AUROC ${f3(contextFit.auroc.auroc)}, ${contextFit.relevant} own + ${contextFit.irrelevant} swapped)` : `not fitted: ${contextFit.reason}`}`);
    console.log(`--fit: answer ${answerFit.fitted ? `${answerFit.threshold.toFixed(4)} (BA ${f3(answerFit.balancedAccuracy)}, AUROC ${f3(answerFit.auroc.auroc)}, ${answerFit.relevant} own + ${answerFit.irrelevant} swapped)` : `not fitted: ${answerFit.reason}`}`);
    console.log(`--fit: recommendedRelevanceThresholds: { context: ${fitted.context.toFixed(4)}, answer: ${fitted.answer.toFixed(4)} }`);
  }
  await scorer.close();
}

await main();
