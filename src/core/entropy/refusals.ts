const REFUSAL_START =
  /^(?:i\s+(?:do\s*n[o']t|don't|cannot|can't|am\s+unable\s+to|am\s+not\s+able\s+to|have\s+no)\s+(?:know|answer|say|tell|help|determine|provide|idea|information|access)|i'?m\s+(?:not\s+sure|unsure|unable|sorry|afraid)|i\s+am\s+(?:not\s+sure|unsure|sorry|afraid)|sorry\b|unknown\b|no\s+idea\b|not\s+sure\b|as\s+an\s+ai\b|there\s+is\s+no\s+(?:way|information|record)|(?:the\s+)?(?:information|answer)\s+is\s+not\s+(?:available|known))/i;

/** Words that show a hedged reply still commits to an answer. */
const ANSWER_MARKERS = /\b(?:but|however|though|believe|think|guess|probably|likely|possibly|maybe|perhaps|might\s+be|could\s+be|it\s+is|it's|it\s+was|would\s+be|around|about|approximately)\b|\d/i;

/**
 * True when a sample declines to answer. Errs toward "answer": a hedge that still
 * names something ("I'm not sure, but I believe it is Canberra.") is an answer.
 */
export function isRefusal(text: string): boolean {
  const t = text.trim();
  if (!REFUSAL_START.test(t)) return false;
  if (ANSWER_MARKERS.test(t)) return false;
  return t.split(/\s+/).length <= 25;
}
