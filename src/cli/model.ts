import { statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { HubSettings } from "../config/hub.ts";
import { resolveHubSettings } from "../config/hub.ts";
import { SCORE_ENV } from "../config/score-options.ts";
import { DEFAULT_MODEL_REPO, listCachedModels } from "../nli/hub/cache.ts";
import { describeModelTarget } from "../nli/hub/describe.ts";
import { pullModel } from "../nli/hub/pull.ts";
import { planGraphs } from "../nli/hub/pull-graphs.ts";
import { isCachedDecoder, isSeq2SeqExport, seq2seqGraphView } from "../nli/onnx/seq2seq-files.ts";
import { readTokenizerSource } from "../nli/hub/borrowed-tokenizer.ts";
import type { GraphDescription, OnnxModelDescription, RecipeSummary } from "../nli/onnx/engine.ts";
import { createOnnxEngine, describeGraph, describeOnnxModel, readModelDir } from "../nli/onnx/engine.ts";
import { SPAN_DETECTOR_THRESHOLD, describeSpanModel, isSpanModelDir } from "../nli/onnx/span-detector.ts";
import type { SpanLabels } from "../nli/onnx/span-labels.ts";
import { createRelevanceEngine, declaresOneLabel } from "../nli/onnx/relevance-engine.ts";
import type { OnnxImporter, OnnxRuntime } from "../nli/onnx/runtime.ts";
import { ONNX_RUNTIME_INSTALL, ONNX_RUNTIME_INSTALL_CPU, ONNX_RUNTIME_PACKAGE, isOnnxRuntimeMissing, loadOnnxRuntime } from "../nli/onnx/runtime.ts";
import type { CpuFeatures, GraphVariant, VariantChoice } from "../nli/onnx/variants.ts";
import { checkVariant, readCpuFeatures } from "../nli/onnx/variants.ts";
import { EXIT, exitCodeOf } from "./shared/exit-codes.ts";
import { outputDir } from "./shared/files.ts";
import type { CommandIo } from "./shared/io.ts";
import { sanitizeForTerminal } from "./shared/io.ts";

export const MODEL_HELP = `groundwatch model — get and inspect NLI models for the onnx backend

Usage:
  groundwatch model pull [REPO] [--variant V] [--dir DIR] [--revision REV]
  groundwatch model list
  groundwatch model info DIR|REPO [--variant V] [--revision REV] [--recipe NAME]

pull   downloads REPO (default ${DEFAULT_MODEL_REPO}) from the Hugging Face Hub into the
       cache ($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub), or into --dir:
       config.json, the tokenizer files and one ONNX graph, never the whole onnx/ folder.
       Honours HF_ENDPOINT, HF_HUB_OFFLINE and HF_TOKEN. An interrupted pull resumes.
       Each hub request waits at most 30 s for an answer and 60 s for more data (then the
       file is retried, resuming). A file is never written past the size the hub lists (one
       listed without a size is refused), and never through a link leading out of the cache
       or --dir: such a link is refused, naming it.
list   shows the cached models and their sizes.
info   shows a model's chosen graph and why, its recipe (how it is fed and read) and why,
       label mapping, inputs, maximum length, and every graph variant the repository offers
       with its size. A directory or a cached repo is
       loaded (without ${ONNX_RUNTIME_PACKAGE} installed it shows what the files say; the inputs
       need the runtime); a repo that is not cached is described from the hub's listing.

--variant V  which graph: auto (default): the int8 graph quantised for this CPU (AVX-512 VNNI,
             AVX-512, AVX2 or ARM64, from /proc/cpuinfo), else a generic int8 graph
             (model_quantized, model_int8, model_uint8), else fp32; says which and why.
             fp32 | int8 | quantized (the generic int8 graph) | a file name such as
             onnx/model_qint8_arm64.onnx. fp16 and q4 (4-bit) graphs are refused on the CPU
             unless named by file.
--recipe NAME  read the model with this recipe (nli, factcg, minicheck-roberta,
             minicheck-deberta, minicheck-flan-t5, hhem) instead of the one recognised from its
             repository name and config.json; as --recipe or GROUNDWATCH_RECIPE when scoring.

Exit codes: 0 ok, 1 download or load failure, 2 bad flags, repo id, revision, variant or --dir.
`;

/** An error's message for the terminal: the values it quotes may come from the hub or a model file. */
function message(error: unknown): string {
  return sanitizeForTerminal((error as Error).message);
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(bytes < 1e5 ? 3 : 1)} MB`;
}

export interface ModelCommandDeps {
  /** Imports onnxruntime-node for `model info` (default: the real import); injected in tests. */
  readonly importOnnxRuntime?: OnnxImporter;
  /** The CPU graphs are chosen for (default: this machine's); injected in tests. */
  readonly cpu?: CpuFeatures;
  /** Fetch for the hub (default: global fetch); injected in tests. */
  readonly fetch?: typeof fetch;
}

/** How long `model info` waits for the hub's listing before describing what it has without it. */
const LISTING_TIMEOUT_MS = 15_000;

/** The runtime, or undefined when it is not installed (any other load failure is thrown). */
async function optionalRuntime(importer: OnnxImporter | undefined): Promise<OnnxRuntime | undefined> {
  try {
    return await loadOnnxRuntime(importer);
  } catch (error) {
    if (isOnnxRuntimeMissing(error)) return undefined;
    throw error;
  }
}

/** One line per graph: path, size, kind, and which is chosen, pulled, or refused unless named. */
function variantLines(listed: readonly GraphVariant[], marks: (g: GraphVariant) => string[]): string[] {
  // A seq2seq export's graphs are listed as encoders and decoders of a kind, not as unknown names.
  const graphs = isSeq2SeqExport(listed) ? listed.map(seq2seqGraphView) : listed;
  const width = Math.max(...graphs.map((g) => g.path.length), 10);
  return graphs.map((g) => {
    const size = g.bytes === undefined ? "size unknown" : mb(g.bytes);
    const notes = [...marks(g), ...(isCachedDecoder(g.path) ? [] : refusedMark(g))];
    return `  ${sanitizeForTerminal(g.path).padEnd(width)}  ${size.padStart(12)}  ${g.description}${notes.length > 0 ? `  [${notes.join("; ")}]` : ""}`;
  });
}

function refusedMark(g: GraphVariant): string[] {
  if (g.precision === "fp16" || g.precision === "q4") return ["not run on the CPU unless named"];
  if (g.precision === "unknown") return ["loads only when named"];
  return [];
}

/** What auto (or the requested variant) would take from `graphs`, or the reason it cannot. */
function choiceOrReason(graphs: readonly GraphVariant[], variant: string, cpu: CpuFeatures, where: string): { choice?: VariantChoice; decoder?: string; error?: string } {
  try {
    const plan = planGraphs(graphs, variant, cpu, where);
    return { choice: plan.choice, ...(plan.decoder ? { decoder: plan.decoder } : {}) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}
/** Runs `groundwatch model`; resolves to the exit code. pull and list never load onnxruntime-node. */
export async function runModel(argv: readonly string[], io: CommandIo, deps: ModelCommandDeps = {}): Promise<number> {
  const [sub, ...rest] = argv;
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: { variant: { type: "string" }, dir: { type: "string" }, revision: { type: "string" }, recipe: { type: "string" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    io.stderr.write(`groundwatch model: ${(error as Error).message}\n\n${MODEL_HELP}`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help || sub === undefined || sub === "help" || sub === "--help" || sub === "-h") {
    io.stdout.write(MODEL_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  let variant: string | undefined;
  try {
    variant = values.variant === undefined ? undefined : checkVariant(values.variant, "--variant");
  } catch (error) {
    io.stderr.write(`groundwatch model: ${message(error)}\n`);
    return EXIT.usage;
  }
  const cpu = (): CpuFeatures => deps.cpu ?? readCpuFeatures();
  // The hub's settings, resolved once here: nli/hub takes values, never the environment.
  const hub = resolveHubSettings(io.env);
  switch (sub) {
    case "pull":
      return pull(positionals[0] ?? DEFAULT_MODEL_REPO, variant, values, io, deps, cpu(), hub);
    case "list": {
      const cache = hub.cacheDir;
      const models = listCachedModels(cache);
      if (models.length === 0) {
        io.stdout.write(`no models cached in ${cache}; run \`groundwatch model pull\`\n`);
        return EXIT.ok;
      }
      for (const m of models) {
        io.stdout.write(`${m.repo}@${sanitizeForTerminal(m.revision)}  ${mb(m.bytes)}  ${m.dir}\n    ${sanitizeForTerminal(m.files.join(", "))}\n`);
        for (const s of m.skipped) io.stderr.write(`groundwatch model list: skipped ${sanitizeForTerminal(join(m.dir, s.path))}: ${s.reason}\n`);
      }
      return EXIT.ok;
    }
    case "info": {
      const target = positionals[0];
      if (!target) {
        io.stderr.write("groundwatch model info: name a model directory or a cached repo\n");
        return EXIT.usage;
      }
      try {
        return await info(target, { variant: variant ?? "auto", recipe: values.recipe }, values.revision, io, deps, cpu(), hub);
      } catch (error) {
        io.stderr.write(`groundwatch model info: ${message(error)}\n`);
        return exitCodeOf(error);
      }
    }
    default:
      io.stderr.write(`groundwatch model: unknown subcommand ${JSON.stringify(sub)}\n\n${MODEL_HELP}`);
      return EXIT.usage;
  }
}

async function pull(repo: string, variant: string | undefined, values: { dir?: string; revision?: string }, io: CommandIo, deps: ModelCommandDeps, cpu: CpuFeatures, hub: HubSettings): Promise<number> {
  let lastDraw = 0;
  try {
    // An absolute --dir stays absolute; a relative one is relative to the command's directory.
    const dir = values.dir ? outputDir("--dir", values.dir, io) : undefined;
    const result = await pullModel({
      repo,
      hub,
      cpu,
      ...(variant ? { variant } : {}),
      ...(dir ? { dir } : {}),
      ...(values.revision ? { revision: values.revision } : {}),
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
      onProgress: ({ file, received, total }) => {
        if (!io.stderr.isTTY || Date.now() - lastDraw < 100) return;
        lastDraw = Date.now();
        const pct = total ? Math.min(100, (100 * received) / total) : undefined;
        const bar = pct === undefined ? "" : `[${"#".repeat(Math.round(pct / 5)).padEnd(20)}] ${pct.toFixed(0)}% `;
        io.stderr.write(`\r  ${file} ${bar}${mb(received)}${total ? ` of ${mb(total)}` : ""}   `);
      },
    });
    if (io.stderr.isTTY) io.stderr.write("\n");
    const { graph, reason } = result.choice;
    io.stdout.write(`variant    ${sanitizeForTerminal(graph.path)} (${graph.description}${graph.bytes !== undefined ? `, ${mb(graph.bytes)}` : ""}): ${sanitizeForTerminal(reason)}\n`);
    if (result.decoder) io.stdout.write(`decoder    ${sanitizeForTerminal(result.decoder)}: the seq2seq export's decoder of the same kind, fetched with its encoder\n`);
    if (result.tokenizerFrom) {
      const t = result.tokenizerFrom;
      io.stdout.write(`tokenizer  from ${t.from}@${t.revision}: ${repo} ships none, and its model (recipe ${t.recipe}, recognised by ${sanitizeForTerminal(t.because)}) reads ${t.from}'s; written beside the graph\n`);
    }
    for (const f of result.files) io.stdout.write(`${f.status.padEnd(10)} ${f.path} (${mb(f.bytes)})${f.sha256 ? ` sha256 ${f.sha256.slice(0, 12)}…` : ""}\n`);
    // Another variant pulled earlier may share the snapshot: name the graph unless auto chose it.
    const pin = variant && variant !== "auto" ? ` --variant ${graph.path}` : "";
    const use = declaresOneLabel(result.dir) ? `${SCORE_ENV.relevanceModel}=${values.dir ? result.dir : repo} (a relevance cross-encoder: one logit per pair)` : `--backend onnx --model ${values.dir ? result.dir : repo}${pin}`;
    io.stdout.write(`model ${repo}@${result.revision} is in ${result.dir}\nuse it with: ${use}\n`);
    return EXIT.ok;
  } catch (error) {
    io.stderr.write(`${io.stderr.isTTY ? "\n" : ""}groundwatch model pull: ${message(error)}\n`);
    return exitCodeOf(error);
  }
}

/** What `model info` shows of a model directory: an NLI model's labels and mapping, or that it is a relevance cross-encoder. */
type DirDescription = GraphDescription & { readonly maxLength: number; readonly inputs?: readonly string[] } & ({ readonly kind: "nli"; readonly labels: OnnxModelDescription["labels"]; readonly recipe: RecipeSummary; readonly decoder?: string } | { readonly kind: "relevance" } | { readonly kind: "spans"; readonly labels: SpanLabels });

/** Describes a loaded model directory (a directory, or a cached repo's snapshot); one declaring a single label is a relevance cross-encoder. */
async function describeDir(dir: string, wanted: InfoWanted, io: CommandIo, deps: ModelCommandDeps, cpu: CpuFeatures): Promise<DirDescription> {
  const { variant, recipe } = wanted;
  const options = { dir, variant, cpu, ...(recipe !== undefined ? { recipe } : {}) };
  const runtime = await optionalRuntime(deps.importOnnxRuntime);
  // A token classifier (LettuceDetect, TinyLettuce) is described from its files: how it is fed and read is fixed (docs/models.md, Span detectors).
  if (recipe === undefined && isSpanModelDir(dir)) return { kind: "spans", ...describeSpanModel(options) };
  if (recipe === undefined && declaresOneLabel(dir)) {
    if (!runtime) {
      const { files, maxLength } = readModelDir(options);
      return { kind: "relevance", ...describeGraph(files), maxLength };
    }
    const engine = await createRelevanceEngine(options, { runtime });
    await engine.close();
    return { kind: "relevance", ...engine.info };
  }
  if (!runtime) return { kind: "nli", ...describeOnnxModel(options) };
  const engine = await createOnnxEngine(options, { runtime });
  const described = engine.info;
  await engine.close();
  return { kind: "nli", ...described };
}

/** How the label map reads the output, in words. */
function mappingLine(labels: OnnxModelDescription["labels"]): string {
  if (labels.kind === "three") return `entailment=${labels.entailment}, neutral=${labels.neutral}, contradiction=${labels.contradiction}`;
  if (labels.kind === "two") return `entailment=${labels.entailment}, not_entailment=${labels.notEntailment} (two-label: contradiction is reported as 0)`;
  return `supported=${labels.supported} (${labels.labels[labels.supported] ?? ""}), not supported=${labels.unsupported}: entailment = P(supported), neutral = 1 − P, contradiction 0 (a binary detector sees no contradiction)`;
}

/** The recipe, why it was chosen, its template (escaped) and chunking. */
function recipeLines(r: RecipeSummary): string[] {
  const chunking = r.chunking ? `premise in chunks of at most ${r.chunking.size} ${r.chunking.unit}, sentences joined by ${JSON.stringify(r.chunking.joiner)}; the pair's score is the largest over its chunks` : "none: one pass, cut to fit";
  return [
    `recipe:      ${sanitizeForTerminal(r.name)} (${sanitizeForTerminal(r.why)}): ${r.description}`,
    `template:    ${r.template !== undefined ? `${JSON.stringify(r.template)}, read at ${r.output}` : `the tokenizer's pair template, read at ${r.output}`}`,
    `chunking:    ${chunking}`,
    `reference:   ${r.reference}`,
  ];
}

function dirLines(dir: string, d: DirDescription): string[] {
  const labelLines =
    d.kind === "relevance"
      ? [`labels:      one logit per (query, passage) pair: a relevance cross-encoder, not an NLI model`, `mapping:     relevance = sigmoid(logit); use it as ${SCORE_ENV.relevanceModel} or --relevance-model`]
      : d.kind === "spans"
        ? [
            `recipe:      span detector (token classification, e.g. LettuceDetect): the question, the passages ("passage 1: …") and the answer read as one pair; every answer token read at softmax class ${d.labels.unsupported}, P(unsupported)`,
            `labels:      ${sanitizeForTerminal(d.labels.names.map((l, i) => `${i}:${l}`).join(" "))}`,
            `mapping:     unsupported = class ${d.labels.unsupported}; a run of answer tokens at p ≥ ${SPAN_DETECTOR_THRESHOLD} (default) is one span; passages grouped to fit, the highest p over groups`,
            `use:         --backend spans --span-model ${sanitizeForTerminal(dir)} (alone), or --span-model beside a claim detector (refine)`,
          ]
        : [...recipeLines(d.recipe), `labels:      ${sanitizeForTerminal(d.labels.labels.map((l, i) => `${i}:${l}`).join(" "))}`, `mapping:     ${mappingLine(d.labels)}`];
  return [
    `model:       ${dir}`,
    `graph:       ${sanitizeForTerminal(d.graph)} (${mb(statSync(join(dir, d.graph)).size)}, sha256 ${d.graphSha256}…)`,
    ...(d.kind === "nli" && d.decoder ? [`decoder:     ${sanitizeForTerminal(d.decoder)} (${mb(statSync(join(dir, d.decoder)).size)}; one step per chunk, the sha256 above covers both graphs)`] : []),
    `variant:     ${d.variant.description}: ${sanitizeForTerminal(d.variant.reason)}`,
    ...labelLines,
    ...(d.kind === "spans" ? [] : [`inputs:      ${d.inputs ? d.inputs.join(", ") : `unknown: reading them needs ${ONNX_RUNTIME_PACKAGE}, which is not installed`}`]),
    `max length:  ${d.maxLength} tokens`,
    ...tokenizerLine(dir),
  ];
}

/** Where a model's tokenizer came from, when `model pull` borrowed it from another repository. */
function tokenizerLine(dir: string): string[] {
  const source = readTokenizerSource(dir);
  return source ? [`tokenizer:   ${source.repo}@${source.sha} (borrowed for recipe ${source.recipe}: the model's repository ships none)`] : [];
}

/** What `model info` says when it described a model without onnxruntime-node. */
const RUNTIME_MISSING = `groundwatch model info: ${ONNX_RUNTIME_PACKAGE} is not installed; the onnx backend needs it. Install it with \`${ONNX_RUNTIME_INSTALL}\` (on CPU-only machines, or where only the npm registry is reachable: \`${ONNX_RUNTIME_INSTALL_CPU}\`).\n`;

/**
 * `model info`: a directory is loaded and its graphs listed; a repo id is described from its
 * cached snapshot (if pulled) and from the repository's listing: the one saved by `model pull`,
 * else the hub's (unless HF_HUB_OFFLINE).
 */
/** What `model info` is asked for: the graph variant and, when named, the recipe. */
interface InfoWanted {
  readonly variant: string;
  readonly recipe?: string | undefined;
}

async function info(target: string, wanted: InfoWanted, revision: string | undefined, io: CommandIo, deps: ModelCommandDeps, cpu: CpuFeatures, hub: HubSettings): Promise<number> {
  const { variant } = wanted;
  const found = await describeModelTarget(target, { cwd: io.cwd, hub, revision, variant, timeoutMs: LISTING_TIMEOUT_MS, fetch: deps.fetch });
  if (found.kind === "dir") {
    const { dir, saved } = found;
    const d = await describeDir(dir, wanted, io, deps, cpu);
    const lines = dirLines(dir, d);
    if (saved) lines.push(`variants:    offered by ${saved.repo}@${saved.sha} when pulled:`, ...variantLines(saved.graphs, (g) => [...(d.graphs.some((x) => x.path === g.path) ? ["pulled"] : []), ...(g.path === d.graph || (d.kind === "nli" && g.path === d.decoder) ? ["chosen"] : [])]));
    else lines.push(`variants:    in this directory:`, ...variantLines(d.graphs, (g) => [...(g.path === d.graph || (d.kind === "nli" && g.path === d.decoder) ? ["chosen"] : [])]));
    io.stdout.write(`${lines.join("\n")}\n`);
    if (!d.inputs && d.kind !== "spans") io.stderr.write(RUNTIME_MISSING);
    return EXIT.ok;
  }
  const { cached, listing, listingSaved, listingError } = found;
  const lines: string[] = [];
  let described: DirDescription | undefined;
  if (cached) {
    described = await describeDir(cached, wanted, io, deps, cpu);
    lines.push(...dirLines(cached, described));
  } else {
    lines.push(`model:       ${target}@${found.revision}: not pulled (labels, inputs and maximum length are read once it is)`);
  }
  if (listing) {
    const where = `${target}@${found.revision}`;
    const { choice, decoder, error } = choiceOrReason(listing.graphs, variant, cpu, where);
    const pulled = described?.graphs ?? [];
    lines.push(`variants:    offered by ${target}@${listing.sha}${listingSaved ? " when pulled" : ""}:`);
    lines.push(...variantLines(listing.graphs, (g) => [...(pulled.some((x) => x.path === g.path) ? ["pulled"] : []), ...(described?.graph === g.path || (described?.kind === "nli" && described.decoder === g.path) ? ["chosen"] : []), ...(choice?.graph.path === g.path || decoder === g.path ? [`${variant === "auto" ? "auto" : `--variant ${variant}`} on this CPU`] : [])]));
    if (choice) lines.push(`pull:        \`groundwatch model pull ${target}${variant === "auto" ? "" : ` --variant ${variant}`}\` fetches ${choice.graph.path}${decoder ? ` and ${decoder}` : ""}: ${choice.reason}`);
    else if (error) lines.push(`pull:        ${error}`);
  }
  io.stdout.write(`${sanitizeForTerminal(lines.join("\n"))}\n`);
  if (listingError) io.stderr.write(`groundwatch model info: the variants ${target} offers are not known: ${sanitizeForTerminal(listingError)}\n`);
  if (described && !described.inputs && described.kind !== "spans") io.stderr.write(RUNTIME_MISSING);
  return EXIT.ok;
}
