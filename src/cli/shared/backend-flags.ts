import type { ScoreOptions } from "../../config/score-options.ts";

/** parseArgs definitions of the flags every scoring command takes. */
export const BACKEND_FLAGS = {
  backend: { type: "string" },
  model: { type: "string" },
  variant: { type: "string" },
  recipe: { type: "string" },
  "relevance-model": { type: "string" },
  "span-model": { type: "string" },
  "span-threshold": { type: "string" },
  "span-language": { type: "string" },
  "require-production": { type: "boolean" },
  "onnx-threads": { type: "string" },
  "onnx-workers": { type: "string" },
  "onnx-max-batch": { type: "string" },
  "onnx-batch-wait-ms": { type: "string" },
  "judge-url": { type: "string" },
  "judge-model": { type: "string" },
  "judge-budget": { type: "string" },
  cascade: { type: "string" },
  "cascade-support-above": { type: "string" },
  "cascade-unsupport-below": { type: "string" },
  config: { type: "string" },
} as const;

export const BACKEND_FLAGS_HELP = `Backend:
  --backend NAME        auto (default), offline, onnx, judge or spans; env GROUNDWATCH_BACKEND.
                        auto = onnx when a model is configured or the default model is cached,
                        else offline (triage-grade, with a warning). onnx needs the optional
                        peer onnxruntime-node: npm install onnxruntime-node (CPU-only:
                        ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node)
                        spans = the span detector (--span-model) alone: it marks unsupported words
  --model DIR|REPO      ONNX model directory, or a repo pulled with \`groundwatch model pull\`
  --variant V           ONNX graph: auto (default: int8 for this CPU, else generic int8, else
                        fp32), fp32, int8, quantized, or a graph's file name; env GROUNDWATCH_MODEL_VARIANT
  --recipe NAME         how the model is fed and read: nli, factcg, minicheck-roberta,
                        minicheck-deberta, minicheck-flan-t5, hhem (default: recognised from the
                        repository name and config.json; \`groundwatch model info\` shows it);
                        env GROUNDWATCH_RECIPE
  --relevance-model DIR|REPO  relevance cross-encoder for the onnx backend (cause attribution);
                        env GROUNDWATCH_RELEVANCE_MODEL; without one, relevance is lexical
  --span-model DIR|REPO  span detector (a token-classification model such as LettuceDetect): alone
                        with --backend spans, else it marks the words to distrust in the claims;
                        env GROUNDWATCH_SPAN_MODEL
  --span-threshold X    token probability at or above which a word is marked (0-1; default the
                        detector's fitted one, else 0.5; with --backend spans, 1 - the threshold);
                        env GROUNDWATCH_SPAN_THRESHOLD
  --span-language L     the detector's prompt: en (default), de, fr, es, it, pl, cn, hu;
                        env GROUNDWATCH_SPAN_LANGUAGE
  --require-production  refuse to run on a triage-tier backend (env GROUNDWATCH_REQUIRE_PRODUCTION=1)
  --onnx-threads N      onnxruntime threads per worker;  --onnx-workers N  inference worker threads
  --onnx-max-batch N    most pairs in one inference call, across observations (1-256, default 32)
  --onnx-batch-wait-ms MS  longest a pair waits for others to fill its batch (0-1000, default 5)
  --judge-url URL       OpenAI-compatible base URL (key from env GROUNDWATCH_JUDGE_API_KEY)
  --judge-model NAME    judge chat model;  --judge-budget N  most judge calls this run (default 1000)
  --cascade on|off      with an onnx or judge backend, the offline tier decides the claims it is
                        sure of without a model call (default off); env GROUNDWATCH_CASCADE
  --cascade-support-above X  offline score at or above which a claim is supported untried
                        (default: the calibration's, else 1: none); env GROUNDWATCH_CASCADE_SUPPORT_ABOVE
  --cascade-unsupport-below X  offline score at or below which a claim is unsupported untried
                        (default: the calibration's, else 0: none); env GROUNDWATCH_CASCADE_UNSUPPORT_BELOW
  --config FILE         config file, JSON or YAML (.yaml, .yml), with a "scoring" section
`;

type Values = Partial<Record<keyof typeof BACKEND_FLAGS, string | boolean | undefined>>;

/** Turns parsed flags into ScoreOptions; a non-numeric number flag is reported by name. */
export function backendOptionsFromFlags(values: Values): { options: ScoreOptions; error?: string } {
  const numbers: Array<[keyof Values, keyof ScoreOptions]> = [
    ["onnx-threads", "onnxThreads"],
    ["onnx-workers", "onnxWorkers"],
    ["onnx-max-batch", "onnxMaxBatch"],
    ["onnx-batch-wait-ms", "onnxBatchWaitMs"],
    ["judge-budget", "judgeBudget"],
    ["cascade-support-above", "cascadeSupportAbove"],
    ["cascade-unsupport-below", "cascadeUnsupportBelow"],
    ["span-threshold", "spanThreshold"],
  ];
  const options: Record<string, unknown> = {};
  for (const [flag, key] of numbers) {
    const v = values[flag];
    if (v === undefined) continue;
    if (typeof v !== "string" || v.trim() === "" || !Number.isFinite(Number(v))) return { options: {}, error: `--${flag} must be a number (got ${JSON.stringify(v)})` };
    options[key] = Number(v);
  }
  const strings: Array<[keyof Values, keyof ScoreOptions]> = [
    ["backend", "backend"],
    ["model", "model"],
    ["variant", "variant"],
    ["recipe", "recipe"],
    ["relevance-model", "relevanceModel"],
    ["span-model", "spanModel"],
    ["span-language", "spanLanguage"],
    ["judge-url", "judgeUrl"],
    ["judge-model", "judgeModel"],
  ];
  for (const [flag, key] of strings) if (values[flag] !== undefined) options[key] = values[flag];
  if (values["require-production"]) options.requireProduction = true;
  const cascade = values.cascade;
  if (cascade !== undefined) {
    if (cascade !== "on" && cascade !== "off") return { options: {}, error: `--cascade must be on or off (got ${JSON.stringify(cascade)})` };
    options.cascade = cascade === "on";
  }
  return { options: options as ScoreOptions };
}
