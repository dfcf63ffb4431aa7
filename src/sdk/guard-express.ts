/**
 * Guard mode in an express app (docs/guard.md): middleware that wraps `res.json` so that the answer in
 * a JSON body is checked by Monitor.guard() before it is sent, and the body carries the decision's
 * text. No runtime dependency on express: the request and response are read through the few members used.
 */
import { isPlainObject } from "../core/plain-object.ts";
import type { RequestLike } from "./express.ts";
import { routeTemplate } from "./express.ts";
import type { GuardOptions } from "./guard-options.ts";
import { GUARD_OPTION_KEYS, resolveGuardOptions } from "./guard-options.ts";
import type { GuardDecision } from "./guard-types.ts";
import type { Monitor, ObserveInput } from "./types.ts";

/** What an extractor finds in a request and its JSON body: the answer to check and what it must be grounded in. */
export interface GuardJsonInput {
  /** The route label; default the request's route template (routeTemplate), never the URL. */
  readonly route?: string;
  readonly question?: string;
  /** The documents the answer must be grounded in: strings, or `{ text, id?, title?, url? }`. */
  readonly context: ObserveInput["context"];
  /** The answer to check, as the body holds it. */
  readonly answer: string;
}

/** Options of guardJson: how to find the answer in a body and how to put the decision back, over the guard options of every check. */
export interface GuardMiddlewareOptions<Req extends RequestLike = RequestLike, Body = unknown> extends GuardOptions {
  /**
   * Finds the answer to check in the request and the body the handler passed to `res.json`, with its
   * context (and question, route). Return undefined to send the body untouched, unchecked (an error
   * body, a route that needs no guard). A throw sends the body untouched too (the extractor could not
   * say what the answer is) and goes to `onError`.
   */
  readonly extract: (req: Req, body: Body) => GuardJsonInput | undefined;
  /**
   * Builds the body to send when the text to send is not the answer: a block, a correction, or a
   * bypass whose outcome is block. Pass, and a bypass whose outcome is pass, send the handler's body
   * untouched, byte for byte. Default: a string body becomes `decision.text`; an object body gets its
   * `answer` field set to `decision.text` (its other fields kept); any other body becomes
   * `{ answer: decision.text }`. A throw falls back to the default and goes to `onError`.
   */
  readonly replace?: (body: Body, decision: GuardDecision) => unknown;
  /** Called with every decision and its request (a log line, a header): a throw is ignored after going to `onError`. */
  readonly onDecision?: (decision: GuardDecision, req: Req) => void;
  /** Called with what an extractor, replace or onDecision threw; never with a guard failure (that is a bypass decision). A throw here is ignored. */
  readonly onError?: (error: unknown, req: Req) => void;
}

/** The parts of an express response the middleware uses. */
export interface JsonResponseLike {
  json(body: unknown): unknown;
  readonly headersSent?: boolean;
}

/** The default `replace`: see GuardMiddlewareOptions.replace. */
export function replaceAnswer(body: unknown, decision: GuardDecision): unknown {
  if (typeof body === "string") return decision.text;
  if (isPlainObject(body)) return { ...body, answer: decision.text };
  return { answer: decision.text };
}

/**
 * Middleware that guards the JSON answers of the routes it is mounted on: `res.json(body)` runs
 * `extract`, checks the answer with `monitor.guard()` and sends the body as the decision says (see
 * GuardMiddlewareOptions). `res.json` returns at once; the body is sent when the decision comes,
 * within the budget. Never throws into the host: every failure sends a body. The guard options are
 * checked here: a bad one is a ConfigError naming it (`guard.budgetMs`), at setup rather than per request.
 */
export function guardJson<Req extends RequestLike = RequestLike, Body = unknown>(
  monitor: Pick<Monitor, "guard">,
  options: GuardMiddlewareOptions<Req, Body>,
): (req: Req, res: JsonResponseLike, next: () => void) => void {
  const guardOptions: GuardOptions = Object.fromEntries(GUARD_OPTION_KEYS.filter((k) => options[k] !== undefined).map((k) => [k, options[k]]));
  // Checks the options now; its replacement (over the built-in defaults) is the last resort should guard() ever reject.
  const replacement = resolveGuardOptions(guardOptions).replacement;
  const { extract, replace, onDecision } = options;
  const report = (error: unknown, req: Req): void => {
    try {
      options.onError?.(error, req);
    } catch {
      // the host's error callback failed: nothing more to tell
    }
  };
  return (req, res, next) => {
    const send = res.json.bind(res) as (body: unknown) => unknown;
    const sendOnce = (body: unknown): void => {
      if (res.headersSent) return;
      try {
        send(body);
      } catch (error) {
        report(error, req);
      }
    };
    const guarded = async (body: Body, input: GuardJsonInput): Promise<void> => {
      let decision: GuardDecision;
      try {
        const route = input.route ?? routeTemplate(req);
        decision = await monitor.guard({ route, context: input.context, answer: input.answer, ...(input.question !== undefined ? { question: input.question } : {}) }, guardOptions);
      } catch (error) {
        // guard() never rejects; should it, fail closed.
        report(error, req);
        return sendOnce(replaceAnswer(body, { decision: "bypass", reason: "internal_error", detail: String(error), outcome: "block", text: replacement, replacement, route: "unknown", durationMs: 0 }));
      }
      try {
        onDecision?.(decision, req);
      } catch (error) {
        report(error, req);
      }
      if (decision.decision === "pass" || (decision.decision === "bypass" && decision.outcome === "pass")) return sendOnce(body);
      let out: unknown;
      try {
        out = replace ? replace(body, decision) : replaceAnswer(body, decision);
      } catch (error) {
        report(error, req);
        out = replaceAnswer(body, decision);
      }
      sendOnce(out);
    };
    res.json = (body: unknown): unknown => {
      let input: GuardJsonInput | undefined;
      try {
        input = extract(req, body as Body);
      } catch (error) {
        report(error, req);
        input = undefined;
      }
      if (input === undefined) return send(body);
      guarded(body as Body, input).catch((error: unknown) => report(error, req));
      return res;
    };
    next();
  };
}
