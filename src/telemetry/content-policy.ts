/**
 * The content policy: which user text (questions, answers, claims, evidence, documents' names and
 * texts) an evaluation's records may carry, and how. One object for every sink that carries text —
 * the evaluation span and its events, the flagged-answer ring, the review spool — so that capture,
 * redaction, the length cap and what a throwing redact hook does are decided in one place.
 */

/** The sinks that carry content: the evaluation span and its events, the flagged-answer ring, the review spool, the guard's gen_ai.guardrail.result event. */
export type ContentSink = "span" | "flagged" | "review" | "guard";

export interface ContentPolicyOptions {
  /** Whether records carry user text at all (captureContent). */
  readonly captureContent: boolean;
  /** The host's redact hook: every text passes it before any sink keeps it. */
  readonly redact?: ((text: string) => string) | undefined;
  /** Longest text a span, an event or the flagged ring carries, in characters (contentMaxLength); longer ones are cut with "…". */
  readonly maxLength: number;
  /** Told each time a sink's record is made without content because the redact hook threw (see ContentPolicy.record). */
  readonly onWithheld?: (sink: ContentSink, route: string, error: unknown) => void;
}

export interface ContentPolicy {
  readonly captureContent: boolean;
  /** A text as spans, events and the flagged ring carry it: through the redact hook, then capped at maxLength. Throws what the hook throws. */
  text(t: string): string;
  /** A text through the redact hook only, whole (the review spool keeps whole texts). Throws what the hook throws. */
  redacted(t: string): string;
  /**
   * Makes one sink's record of an evaluation under the one failure rule: with content capture on,
   * `withContent()` (whose texts go through text() or redacted()); when the redact hook throws while
   * it runs, the record is made by `withoutContent()` instead — never unredacted — and onWithheld is
   * told (sink, route, what the hook threw). With content capture off, `withoutContent()`. An error
   * that is not the hook's propagates.
   */
  record<T>(sink: ContentSink, route: string, withContent: () => T, withoutContent: () => T): T;
}

/** A text cut to `max` characters, the last one an ellipsis. */
export const capped = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function createContentPolicy(options: ContentPolicyOptions): ContentPolicy {
  const hook = options.redact;
  /** What the hook threw during the record being made, if it threw. */
  const state: { thrown: { readonly error: unknown } | undefined } = { thrown: undefined };
  const thrownSince = (): { readonly error: unknown } | undefined => state.thrown;
  const redacted = (t: string): string => {
    if (!hook) return t;
    try {
      return hook(t);
    } catch (error) {
      state.thrown ??= { error };
      throw error;
    }
  };
  return {
    captureContent: options.captureContent,
    text: (t) => capped(redacted(t), options.maxLength),
    redacted,
    record(sink, route, withContent, withoutContent) {
      if (!options.captureContent) return withoutContent();
      const outer = state.thrown;
      state.thrown = undefined;
      try {
        return withContent();
      } catch (error) {
        // Read through a call: withContent() may have set it (TypeScript cannot see that).
        const failure = thrownSince();
        if (!failure) throw error;
        options.onWithheld?.(sink, route, failure.error);
        return withoutContent();
      } finally {
        state.thrown = outer;
      }
    },
  };
}
