/**
 * Environment variables of the SDK's monitor and of the collector, each spelled once (the scoring
 * options' are SCORE_ENV_NAMES). Secrets are read from the environment only. Every GROUNDWATCH_*
 * name in src/ is spelled here, and nowhere else but the commands' usage texts (test/architecture.test.ts).
 */

/** The config file every edge reads when no `configFile` option is given. */
export const CONFIG_FILE_ENV = "GROUNDWATCH_CONFIG";

/** `createMonitor` options read from the environment. */
export const MONITOR_ENV = {
  sampleRate: "GROUNDWATCH_SAMPLE_RATE",
  /** Per-route rates, "/a/*=1,/b=0.2". */
  sampleRoutes: "GROUNDWATCH_SAMPLE_ROUTES",
  queueSize: "GROUNDWATCH_QUEUE_SIZE",
  queueBytes: "GROUNDWATCH_QUEUE_BYTES",
  workers: "GROUNDWATCH_WORKERS",
  inFlightPerWorker: "GROUNDWATCH_IN_FLIGHT_PER_WORKER",
  timeoutMs: "GROUNDWATCH_TIMEOUT_MS",
  scoringShare: "GROUNDWATCH_SCORING_SHARE",
  captureContent: "GROUNDWATCH_CAPTURE_CONTENT",
  calibrationFile: "GROUNDWATCH_CALIBRATION",
  requireValidCalibration: "GROUNDWATCH_REQUIRE_VALID_CALIBRATION",
} as const;

/** Guard mode's defaults for every `monitor.guard()` call and `POST /v1/guard` (sdk/guard-defaults.ts); `marker` has no variable. */
export const GUARD_ENV = {
  budgetMs: "GROUNDWATCH_GUARD_BUDGET_MS",
  onFail: "GROUNDWATCH_GUARD_ON_FAIL",
  action: "GROUNDWATCH_GUARD_ACTION",
  correction: "GROUNDWATCH_GUARD_CORRECTION",
  replacement: "GROUNDWATCH_GUARD_REPLACEMENT",
} as const;

/** The review spool's options (`createMonitor({ review })`, sdk/review-options.ts), `groundwatch review`'s reviewer and its page's token. */
export const REVIEW_ENV = {
  dir: "GROUNDWATCH_REVIEW_DIR",
  groundedSampleRate: "GROUNDWATCH_REVIEW_SAMPLE_RATE",
  maxBytes: "GROUNDWATCH_REVIEW_MAX_BYTES",
  segmentBytes: "GROUNDWATCH_REVIEW_SEGMENT_BYTES",
  retentionDays: "GROUNDWATCH_REVIEW_RETENTION_DAYS",
  replica: "GROUNDWATCH_REVIEW_REPLICA",
  /** The reviewer's name when `groundwatch review` gets no --reviewer. */
  reviewer: "GROUNDWATCH_REVIEWER",
  /** `groundwatch review --web`'s token when it gets no --token: a secret of its own, never the collector's GROUNDWATCH_TOKEN. */
  token: "GROUNDWATCH_REVIEW_TOKEN",
} as const;

/** `groundwatch serve` (collector) options read from the environment. */
export const COLLECTOR_ENV = {
  host: "GROUNDWATCH_HOST",
  port: "GROUNDWATCH_PORT",
  healthPort: "GROUNDWATCH_HEALTH_PORT",
  /** TLS: the PEM certificate (chain) and its private key; https when both are set. */
  tlsCertFile: "GROUNDWATCH_TLS_CERT_FILE",
  tlsKeyFile: "GROUNDWATCH_TLS_KEY_FILE",
  /** The bearer token: a secret, never read from a file. */
  token: "GROUNDWATCH_TOKEN",
  promptContext: "GROUNDWATCH_PROMPT_CONTEXT",
  heapGrowthPercent: "GROUNDWATCH_HEAP_GROWTH_PERCENT",
  resampleUrl: "GROUNDWATCH_RESAMPLE_URL",
  resampleModel: "GROUNDWATCH_RESAMPLE_MODEL",
  resampleN: "GROUNDWATCH_RESAMPLE_N",
  resampleRate: "GROUNDWATCH_RESAMPLE_RATE",
  resampleTemperature: "GROUNDWATCH_RESAMPLE_TEMPERATURE",
  /** The resampler's API key: a secret, never read from a flag or a file. */
  resampleApiKey: "GROUNDWATCH_RESAMPLE_API_KEY",
  /** The other replicas: a static list of base URLs, or a headless Service's HOST:PORT. */
  peers: "GROUNDWATCH_PEERS",
  peersDns: "GROUNDWATCH_PEERS_DNS",
  peersServerName: "GROUNDWATCH_PEERS_SERVER_NAME",
  peersCaFile: "GROUNDWATCH_PEERS_CA_FILE",
  peerTimeoutMs: "GROUNDWATCH_PEER_TIMEOUT_MS",
  peerMaxBytes: "GROUNDWATCH_PEER_MAX_BYTES",
} as const;

/** The judge backend's API key (re-exported as JUDGE_API_KEY_ENV by score-options.ts). */
export const JUDGE_API_KEY_ENV_NAME = "GROUNDWATCH_JUDGE_API_KEY";

/** The Hugging Face hub's variables, as the hub's own clients read them. */
export const HUB_ENV = {
  cache: "HF_HUB_CACHE",
  home: "HF_HOME",
  endpoint: "HF_ENDPOINT",
  token: "HF_TOKEN",
  legacyToken: "HUGGING_FACE_HUB_TOKEN",
  offline: "HF_HUB_OFFLINE",
} as const;


/** The scoring options read from the environment (SCORE_ENV in score-options.ts, checked there against ScoreOptions). */
export const SCORE_ENV_NAMES = {
  backend: "GROUNDWATCH_BACKEND",
  model: "GROUNDWATCH_MODEL",
  variant: "GROUNDWATCH_MODEL_VARIANT",
  recipe: "GROUNDWATCH_RECIPE",
  relevanceModel: "GROUNDWATCH_RELEVANCE_MODEL",
  spanModel: "GROUNDWATCH_SPAN_MODEL",
  spanThreshold: "GROUNDWATCH_SPAN_THRESHOLD",
  spanLanguage: "GROUNDWATCH_SPAN_LANGUAGE",
  requireProduction: "GROUNDWATCH_REQUIRE_PRODUCTION",
  threshold: "GROUNDWATCH_THRESHOLD",
  topK: "GROUNDWATCH_TOP_K",
  tokenBudget: "GROUNDWATCH_TOKEN_BUDGET",
  onnxThreads: "GROUNDWATCH_ONNX_THREADS",
  onnxWorkers: "GROUNDWATCH_ONNX_WORKERS",
  onnxMaxBatch: "GROUNDWATCH_ONNX_MAX_BATCH",
  onnxBatchWaitMs: "GROUNDWATCH_ONNX_BATCH_WAIT_MS",
  judgeUrl: "GROUNDWATCH_JUDGE_URL",
  judgeModel: "GROUNDWATCH_JUDGE_MODEL",
  judgeBudget: "GROUNDWATCH_JUDGE_BUDGET",
  judgeConcurrency: "GROUNDWATCH_JUDGE_CONCURRENCY",
  entropyThreshold: "GROUNDWATCH_ENTROPY_THRESHOLD",
  combinedPolicy: "GROUNDWATCH_COMBINED_POLICY",
  unstableShare: "GROUNDWATCH_UNSTABLE_SHARE",
  relevance: "GROUNDWATCH_RELEVANCE",
  contextRelevanceThreshold: "GROUNDWATCH_CONTEXT_RELEVANCE_THRESHOLD",
  answerRelevanceThreshold: "GROUNDWATCH_ANSWER_RELEVANCE_THRESHOLD",
  failOnUnstableClaims: "GROUNDWATCH_FAIL_ON_UNSTABLE_CLAIMS",
  entropyMaxCalls: "GROUNDWATCH_ENTROPY_MAX_CALLS",
  maxClaims: "GROUNDWATCH_MAX_CLAIMS",
  maxAnswerChars: "GROUNDWATCH_MAX_ANSWER_CHARS",
  maxContextChars: "GROUNDWATCH_MAX_CONTEXT_CHARS",
  maxDocuments: "GROUNDWATCH_MAX_DOCUMENTS",
  maxTokenChars: "GROUNDWATCH_MAX_TOKEN_CHARS",
  maxSamples: "GROUNDWATCH_MAX_SAMPLES",
  maxEntailmentCalls: "GROUNDWATCH_MAX_ENTAILMENT_CALLS",
  cacheBytes: "GROUNDWATCH_CACHE_BYTES",
  nliCacheBytes: "GROUNDWATCH_NLI_CACHE_BYTES",
  cascade: "GROUNDWATCH_CASCADE",
  cascadeSupportAbove: "GROUNDWATCH_CASCADE_SUPPORT_ABOVE",
  cascadeUnsupportBelow: "GROUNDWATCH_CASCADE_UNSUPPORT_BELOW",
} as const;

/** What `groundwatch doctor --sampler CMD` hands its command: the prompt, and how many samples are wanted. */
export const DOCTOR_SAMPLER_ENV = {
  prompt: "GROUNDWATCH_PROMPT",
  samples: "GROUNDWATCH_SAMPLES",
} as const;
