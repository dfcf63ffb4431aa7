import type { Express } from "express";
import { isConfigError } from "../../config/errors.ts";
import { isPlainObject } from "../../core/plain-object.ts";
import type { GuardOptions, ResolvedGuardOptions } from "../../sdk/guard-options.ts";
import { GUARD_OPTION_KEYS, resolveGuardOptions } from "../../sdk/guard-options.ts";
import type { GuardBypass, GuardDecision } from "../../sdk/guard-types.ts";
import type { Monitor, ObserveInput } from "../../sdk/types.ts";
import { labelOrUndefined } from "../../telemetry/labels.ts";
import { checkDeclaredLength, mediaType, readJsonBody } from "../body.ts";
import type { CollectorMetrics } from "../metrics.ts";
import type { ParsedObservations } from "../observations.ts";
import type { Refusal } from "../refuse.ts";

/** The options a /v1/guard request may set: GuardOptions' fields. */
const OPTION_KEYS: ReadonlySet<string> = new Set(GUARD_OPTION_KEYS);

/** What POST /v1/guard works with. */
export interface GuardRouteOptions {
  readonly refusal: Refusal;
  readonly monitor: Pick<Monitor, "guard" | "routeLabel" | "recordGuardDecision">;
  readonly metrics: Pick<CollectorMetrics, "refused">;
  /** The observation parser: a guard body is one observation's fields, plus `options`. */
  readonly parse: (body: unknown) => ParsedObservations;
  /** The monitor's guard defaults, resolved (each request's options go over them). */
  readonly defaults: ResolvedGuardOptions;
  /** Most checks in flight; a request over it is answered at once with a bypass, reason `saturated`. */
  readonly concurrency: number;
  readonly bodyLimit: number;
  readonly bodyLimitText: string;
  /** Tracks a request being worked on, so close() lets it finish. */
  readonly track: <T>(work: Promise<T>) => Promise<T>;
  /** The collector's clock, ms (a saturated decision's durationMs). */
  readonly now?: () => number;
}

/** The part of a decision /v1/guard answers with: no document text, no evaluation; claims as offsets and verdicts. */
export interface GuardReply {
  readonly decision: GuardDecision["decision"];
  readonly text: string;
  readonly route: string;
  readonly durationMs: number;
  readonly score?: number;
  readonly claims?: ReadonlyArray<{ readonly verdict: string; readonly start: number; readonly end: number }>;
  readonly ranges?: ReadonlyArray<{ readonly start: number; readonly end: number }>;
  readonly correction?: "remove" | "mark";
  readonly reason?: GuardBypass["reason"];
  readonly outcome?: GuardBypass["outcome"];
  readonly unscorableReason?: string;
  /** Only for reason `invalid_input` (it names the field); other details may carry a backend's error message and stay in the collector. */
  readonly detail?: string;
}

/** A decision trimmed to what is safe to send a remote caller (see GuardReply). */
export function guardReply(d: GuardDecision): GuardReply {
  const base = { decision: d.decision, text: d.text, route: d.route, durationMs: d.durationMs };
  switch (d.decision) {
    case "pass":
      return { ...base, score: d.score };
    case "block":
      return { ...base, score: d.score, claims: d.claims.map(claimRef) };
    case "correct":
      return { ...base, score: d.score, claims: d.claims.map(claimRef), ranges: d.ranges, correction: d.correction };
    case "bypass":
      return {
        ...base,
        reason: d.reason,
        outcome: d.outcome,
        ...(d.unscorableReason !== undefined ? { unscorableReason: d.unscorableReason } : {}),
        ...(d.reason === "invalid_input" ? { detail: d.detail } : {}),
      };
  }
}

const claimRef = (c: { verdict: string; start: number; end: number }): { verdict: string; start: number; end: number } => ({ verdict: c.verdict, start: c.start, end: c.end });

/** Reads `options` of a guard body: an object of GuardOptions' fields; an error names the field (`options.budgetMs`). */
function parseOptions(raw: unknown, defaults: ResolvedGuardOptions): { ok: true; options: GuardOptions; resolved: ResolvedGuardOptions } | { ok: false; error: string } {
  if (raw === undefined) return { ok: true, options: {}, resolved: defaults };
  if (!isPlainObject(raw)) return { ok: false, error: "options: expected an object" };
  const unknown = Object.keys(raw).find((k) => !OPTION_KEYS.has(k));
  if (unknown !== undefined) return { ok: false, error: `options: unknown field "${unknown}"` };
  try {
    return { ok: true, options: raw as GuardOptions, resolved: resolveGuardOptions(raw as GuardOptions, defaults) };
  } catch (error) {
    if (isConfigError(error)) return { ok: false, error: `options${error.field.replace(/^guard/, "")}: ${error.message.replace(/^invalid \S+ /, "")}` };
    throw error;
  }
}

/**
 * Adds POST /v1/guard: one answer checked now (Monitor.guard), answered 200 with the decision
 * (GuardReply). At most `concurrency` checks run at once; a request over it gets, at once, a bypass
 * with reason `saturated` (its outcome as the request's onFail says), never a wait.
 */
export function addGuardRoute(app: Express, options: GuardRouteOptions): void {
  const { refusal, monitor, bodyLimit, bodyLimitText } = options;
  const now = options.now ?? (() => performance.now());
  let inFlight = 0;
  app.post("/v1/guard", refusal.auth, async (req, res) => {
    const started = now();
    const type = mediaType(req.headers["content-type"]);
    if (type !== "application/json") {
      refusal.refuse(req, res, 415, { error: `unsupported content-type ${JSON.stringify(type)}: send application/json` });
      return;
    }
    checkDeclaredLength(req, bodyLimit, bodyLimitText);
    await options.track(
      (async () => {
        const value = await readJsonBody(req, bodyLimit, bodyLimitText);
        const badRequest = (fields: string[]): void => {
          options.metrics.refused("/v1/guard", "bad_request");
          res.status(400).json({ error: "invalid guard request", fields });
        };
        if (!isPlainObject(value)) return badRequest(["(root): expected one object { route?, question?, context, answer, options? }"]);
        const { options: rawOptions, ...fields } = value;
        const parsedOptions = parseOptions(rawOptions, options.defaults);
        const parsed = options.parse(fields);
        const errors = [...(parsed.ok ? [] : parsed.errors), ...(parsedOptions.ok ? [] : [parsedOptions.error])];
        if (!parsed.ok || !parsedOptions.ok) return badRequest(errors);
        const o = parsed.observations[0];
        if (o === undefined) return badRequest(["(root): expected one object"]);
        const route = labelOrUndefined(o.route) ?? "unknown";
        const input: ObserveInput = { route, context: o.context, answer: o.answer, ...(o.question !== undefined ? { question: o.question } : {}) };
        if (inFlight >= options.concurrency) {
          const decision = saturated(input.answer, monitor.routeLabel(route), parsedOptions.resolved, now() - started, options.concurrency);
          // Counted and recorded as the monitor's own decisions are: a saturated guard is what the bypass alert is for.
          monitor.recordGuardDecision(decision);
          res.status(200).json(guardReply(decision));
          return;
        }
        inFlight++;
        try {
          res.status(200).json(guardReply(await monitor.guard(input, parsedOptions.options)));
        } finally {
          inFlight--;
        }
      })(),
    );
  });
}

/** The decision of a request over the concurrency bound: no check made, onFail's outcome. */
function saturated(answer: string, route: string, opts: ResolvedGuardOptions, durationMs: number, concurrency: number): GuardBypass {
  const detail = `${concurrency} guard checks were in flight; this one was not made`;
  const base = { decision: "bypass", reason: "saturated", detail, route, durationMs } as const;
  return opts.onFail === "pass" ? { ...base, outcome: "pass", text: answer } : { ...base, outcome: "block", text: opts.replacement, replacement: opts.replacement };
}
