import type { Monitor, ObserveInput } from "./types.ts";

/** The parts of an express request the integration reads (no runtime dependency on express). */
export interface RequestLike {
  readonly baseUrl?: string;
  readonly route?: { readonly path?: unknown };
}

/**
 * The route template of a matched express request ("/api/advice/:id"), never the URL,
 * so metrics stay low-cardinality. "unmatched" before routing.
 */
export function routeTemplate(req: RequestLike): string {
  const path = req.route?.path;
  if (typeof path !== "string") return "unmatched";
  return `${req.baseUrl ?? ""}${path}` || "/";
}

/** Observes from inside an express handler: the route comes from the request, the span from the active context. Never throws. */
export function observeRequest(monitor: Monitor, req: RequestLike, input: Omit<ObserveInput, "route">): void {
  let route = "unmatched";
  try {
    route = routeTemplate(req);
  } catch {
    // a request object whose route cannot be read is observed as "unmatched"
  }
  // The route goes apart from the input, which observe() reads (and copies) inside its guard,
  // where a getter that throws is counted as invalid input instead of escaping into the handler.
  monitor.observe(input, { route });
}

/** What `groundwatchMiddleware` puts on each request: `observe` bound to the request's route template. */
export interface RequestObserver {
  /** Same as Monitor.observe, with the route filled in; returns at once and never throws. */
  observe(input: Omit<ObserveInput, "route">): void;
}

export interface GroundwatchRequest {
  groundwatch?: RequestObserver;
}

// Types `req.groundwatch` on Express's Request wherever groundwatch's types are loaded (the
// same global augmentation @types/express invites for middleware). Optional, because it is
// only there once groundwatchMiddleware has run for the request.
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by groundwatchMiddleware: `observe(...)` bound to this request's route template. */
      groundwatch?: RequestObserver;
    }
  }
}

/** Middleware that gives every request `req.groundwatch.observe(...)` bound to its route template. */
export function groundwatchMiddleware(monitor: Monitor): (req: RequestLike & GroundwatchRequest, res: unknown, next: () => void) => void {
  return (req, _res, next) => {
    req.groundwatch = { observe: (input) => observeRequest(monitor, req, input) };
    next();
  };
}
