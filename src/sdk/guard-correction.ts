/**
 * Guard mode's correction of an ungrounded answer: its claims that are not supported removed or
 * marked, from their offsets into the answer (ClaimSummary start/end: a claim is a sentence, or a
 * clause of one where the scorer cut it). Linear in the answer (plus sorting the claims' ranges);
 * the answer is user text, so nothing here backtracks.
 */

/** A range of the answer, [start, end). */
export interface TextRange {
  readonly start: number;
  readonly end: number;
}

/** The ranges clamped to [0, length], empty ones left out, sorted, overlapping and touching ones merged. */
export function mergeRanges(ranges: readonly TextRange[], length: number): TextRange[] {
  const clamped = ranges
    .map((r) => ({ start: Math.max(0, Math.min(length, Math.floor(r.start))), end: Math.max(0, Math.min(length, Math.floor(r.end))) }))
    .filter((r) => r.end > r.start)
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Array<{ start: number; end: number }> = [];
  for (const r of clamped) {
    const last = out.at(-1);
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else out.push({ ...r });
  }
  return out;
}

const isBlank = (c: string | undefined): boolean => c === " " || c === "\t";
const isLineEnd = (c: string | undefined): boolean => c === undefined || c === "\n" || c === "\r";

/**
 * The answer without `ranges` (merged, see mergeRanges): each range goes with the spaces after it,
 * or, where only the end of its line follows, with the spaces before it, so that no double or
 * trailing space is left where a claim was.
 */
export function removeRanges(answer: string, ranges: readonly TextRange[]): string {
  const parts: string[] = [];
  let at = 0;
  for (const r of mergeRanges(ranges, answer.length)) {
    let skipTo = r.end;
    parts.push(answer.slice(at, r.start));
    if (isLineEnd(answer[skipTo])) trimTrailingBlanks(parts);
    else while (isBlank(answer[skipTo])) skipTo++;
    at = skipTo;
  }
  parts.push(answer.slice(at));
  return parts.join("");
}

/** Takes the spaces and tabs off the end of what `parts` hold so far (each character is looked at once: what is taken is gone). */
function trimTrailingBlanks(parts: string[]): void {
  while (parts.length > 0) {
    const last = parts.length - 1;
    const part = parts[last] ?? "";
    let end = part.length;
    while (end > 0 && isBlank(part[end - 1])) end--;
    if (end > 0) {
      if (end < part.length) parts[last] = part.slice(0, end);
      return;
    }
    parts.pop();
  }
}

/** The answer with each of `ranges` (merged) wrapped in `open` and `close`. */
export function markRanges(answer: string, ranges: readonly TextRange[], open: string, close: string): string {
  const parts: string[] = [];
  let at = 0;
  for (const r of mergeRanges(ranges, answer.length)) {
    parts.push(answer.slice(at, r.start), open, answer.slice(r.start, r.end), close);
    at = r.end;
  }
  parts.push(answer.slice(at));
  return parts.join("");
}
