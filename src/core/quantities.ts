import type { AnalyzedText, Token } from "./text.ts";

/** What a number measures; values are only compared within one kind. */
export type QuantityKind = "money" | "percent" | "duration" | "year" | "monthday" | "ordinal" | "time" | "count";

/** A number found in text, normalised: "thirty days" → {30, duration, day}. */
export interface Quantity {
  readonly value: number;
  readonly kind: QuantityKind;
  /**
   * Unit within the kind: a currency, a time unit, or the counted noun's lemma. A time of day
   * (value: minutes after midnight) is "24h" when it is unambiguous ("5:30 pm", "14:00") and
   * "12h" when it could be either half of the day ("5:30").
   */
  readonly unit: string;
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /**
   * How the amount relates to others, when it is not an amount stated on its own: a `difference`
   * ("$15 more than Basic"), a `ratio` ("twice as much", value 2) or a `sum` ("$35 in total").
   */
  readonly relation?: QuantityRelation;
}

/** What a relative amount is of two others (see `Quantity.relation`). */
export type QuantityRelation = "difference" | "ratio" | "sum";

const SMALL: ReadonlyMap<string, number> = new Map(Object.entries({
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18,
  nineteen: 19, twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
  dozen: 12, half: 0.5,
}));
/** Multipliers written as one word ("twice as much"). */
const RATIO_WORDS: ReadonlyMap<string, number> = new Map(Object.entries({ twice: 2, double: 2, thrice: 3, triple: 3 }));
/** Comparatives that make the amount before them a difference ("$15 more than", "3 days longer than"). */
const COMPARATIVES = new Set(["more", "less", "fewer", "cheaper", "higher", "lower", "longer", "shorter", "larger", "smaller", "bigger", "greater", "extra", "earlier", "later", "faster", "slower", "older", "younger"]);
/** Words before "a week", "an hour" that make it a length of time ("within a week"), not a rate ("twice a week"). */
const BEFORE_ONE_UNIT = new Set(["within", "in", "for", "after", "over", "under", "than", "about", "around", "nearly", "almost", "least", "most"]);
const SCALE: ReadonlyMap<string, number> = new Map(Object.entries({
  hundred: 100, thousand: 1e3, k: 1e3, million: 1e6, m: 1e6, mn: 1e6, mln: 1e6, billion: 1e9, bn: 1e9, b: 1e9, trillion: 1e12, tn: 1e12,
}));
const ORDINALS: ReadonlyMap<string, number> = new Map(Object.entries({
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10,
  eleventh: 11, twelfth: 12, twentieth: 20, thirtieth: 30, hundredth: 100,
}));
const MONTHS: ReadonlyMap<string, number> = new Map(Object.entries({
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6,
  jul: 7, july: 7, aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10, nov: 11, november: 11,
  dec: 12, december: 12,
}));
const CURRENCY_SYMBOLS: ReadonlyMap<string, string> = new Map(Object.entries({ $: "usd", "€": "eur", "£": "gbp", "¥": "jpy", "₹": "inr" }));
const CURRENCY_WORDS: ReadonlyMap<string, string> = new Map(Object.entries({
  dollar: "usd", buck: "usd", usd: "usd", euro: "eur", eur: "eur", pound: "gbp", gbp: "gbp", yen: "jpy", rupee: "inr", cent: "usd-cent",
}));
/** Time units, converted to a common base where the conversion is exact. */
const TIME_UNITS: ReadonlyMap<string, readonly [string, number]> = new Map(Object.entries<readonly [string, number]>({
  second: ["second", 1], sec: ["second", 1], minute: ["second", 60], min: ["second", 60], hour: ["second", 3600], hr: ["second", 3600],
  day: ["day", 1], week: ["day", 7], fortnight: ["day", 14], month: ["month", 1], year: ["month", 12], yr: ["month", 12],
  decade: ["month", 120], century: ["month", 1200],
}));

/** "am", "a.m.", "PM", "p.m": which half of the day a time is in. */
function meridiem(t: Token | undefined): "am" | "pm" | undefined {
  const m = t ? /^([ap])\.?m\.?$/.exec(t.lower) : null;
  return m ? (m[1] === "a" ? "am" : "pm") : undefined;
}

/** Minutes after midnight for hours and minutes on a 12- or 24-hour clock, or undefined. */
function clockMinutes(hours: number, minutes: number, half: "am" | "pm" | undefined): { value: number; unit: string } | undefined {
  if (!Number.isInteger(hours) || !Number.isInteger(minutes) || minutes < 0 || minutes > 59) return undefined;
  if (half) {
    if (hours < 1 || hours > 12) return undefined;
    return { value: ((hours % 12) + (half === "pm" ? 12 : 0)) * 60 + minutes, unit: "24h" };
  }
  if (hours < 0 || hours > 24) return undefined;
  return { value: (hours % 24) * 60 + minutes, unit: hours >= 13 || hours === 0 ? "24h" : "12h" };
}

/**
 * A time of day at token i: "9 am", "9am", "9:30", "5:30 p.m.", "14:00". Returns the
 * quantity and the index after it, or undefined.
 */
function timeAt(doc: AnalyzedText, toks: readonly Token[], i: number): { q: Quantity; next: number } | undefined {
  const t = toks[i];
  // Every form starts with a digit: most tokens are ruled out by their first character.
  const c0 = t?.text.charCodeAt(0) ?? 0;
  if (!t || c0 < 48 || c0 > 57) return undefined;
  // wink reads "9am" and "9:00AM" as one token of type "time".
  const joined = /^(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?$/.exec(t.lower);
  if (joined) {
    const c = clockMinutes(Number(joined[1]), Number(joined[2] ?? 0), joined[3] === "a" ? "am" : "pm");
    return c ? { q: { ...c, kind: "time", text: t.text, start: t.start, end: t.end }, next: i + 1 } : undefined;
  }
  const clock = /^(\d{1,2}):(\d{2})$/.exec(t.text);
  const hourOnly = /^\d{1,2}$/.test(t.text) ? Number(t.text) : undefined;
  const half = meridiem(toks[i + 1]);
  if (!clock && (hourOnly === undefined || !half)) return undefined;
  const c = clock ? clockMinutes(Number(clock[1]), Number(clock[2]), half) : clockMinutes(hourOnly ?? -1, 0, half);
  if (!c) return undefined;
  const last = half ? (toks[i + 1] ?? t) : t;
  return { q: { ...c, kind: "time", text: doc.text.slice(t.start, last.end), start: t.start, end: last.end }, next: half ? i + 2 : i + 1 };
}

/** The first character is an ASCII digit: most tokens are ruled out as numbers by it alone. */
function startsWithDigit(t: Token): boolean {
  const c = t.text.charCodeAt(0);
  return c >= 48 && c <= 57;
}

/** Starts with a capital letter, as a month name in a date does ("Jan. 5", not "may 5"). */
function capitalised(t: Token): boolean {
  const c = t.text.charCodeAt(0);
  return c >= 65 && c <= 90;
}

/** The month a token names ("Jan.", "January"), or undefined. */
function monthOf(t: Token): number | undefined {
  return MONTHS.get(t.lower.endsWith(".") ? t.lower.slice(0, -1) : t.lower);
}

function numericValue(t: Token): number | undefined {
  if (t.type === "number" || (startsWithDigit(t) && /^\d[\d,]*(\.\d+)?$/.test(t.text))) {
    const cleaned = t.text.replace(/,/g, "");
    const v = Number(cleaned);
    return Number.isFinite(v) ? v : undefined;
  }
  return undefined;
}

function wordValue(lower: string): number | undefined {
  const small = SMALL.get(lower);
  if (small !== undefined || !lower.includes("-")) return small;
  const m = /^([a-z]+)-([a-z]+)$/.exec(lower);
  const a = m?.[1] === undefined ? undefined : SMALL.get(m[1]);
  const b = m?.[2] === undefined ? undefined : SMALL.get(m[2]);
  return a === undefined || b === undefined ? undefined : a + b;
}

/**
 * A word that writes a number or a multiplier ("dozen", "twice", "hundred"), or, with `units`, a
 * unit of time ("week"): the words of a quantity that the evidence states when it states its value.
 */
export function isQuantityWord(t: Token, units = false): boolean {
  return t.pos === "NUM" || SMALL.has(t.lower) || RATIO_WORDS.has(t.lower) || (t.lower.length > 1 && SCALE.has(t.lower)) || (units && TIME_UNITS.has(singular(t.lemma)));
}

function singular(lemma: string): string {
  return lemma.endsWith("s") && lemma.length > 3 && !lemma.endsWith("ss") ? lemma.slice(0, -1) : lemma;
}

/**
 * Finds the quantities in analysed text: digits and number words, scale words
 * ("1.6 billion"), currencies, percentages, durations, years, month-day dates and
 * ordinals, and times of day. A number in a date contributes a `monthday` and a `year`, not a count.
 */
export function extractQuantities(doc: AnalyzedText): Quantity[] {
  const toks = doc.tokens;
  const out: Quantity[] = [];
  let i = 0;
  while (i < toks.length) {
    const t = toks[i];
    if (!t) break;
    // Month-day dates: "Jan. 5", "January 5th", "5 January".
    const month = capitalised(t) ? monthOf(t) : undefined;
    if (month !== undefined) {
      const next = toks[i + 1];
      const day = next ? Number(next.text.replace(/(st|nd|rd|th)$/, "")) : NaN;
      if (next && Number.isInteger(day) && day >= 1 && day <= 31) {
        out.push({ value: month * 100 + day, kind: "monthday", unit: "", text: doc.text.slice(t.start, next.end), start: t.start, end: next.end });
        i += 2;
        continue;
      }
    }
    // Day-month dates: "5 January", "12th November".
    const dayMonth = toks[i + 1];
    const monthAfter = dayMonth && startsWithDigit(t) && capitalised(dayMonth) ? monthOf(dayMonth) : undefined;
    if (dayMonth && monthAfter !== undefined && /^\d{1,2}(st|nd|rd|th)?$/.test(t.lower)) {
      const day = parseInt(t.lower, 10);
      if (day >= 1 && day <= 31) {
        out.push({ value: monthAfter * 100 + day, kind: "monthday", unit: "", text: doc.text.slice(t.start, dayMonth.end), start: t.start, end: dayMonth.end });
        i += 2;
        continue;
      }
    }
    const time = timeAt(doc, toks, i);
    if (time) {
      out.push(time.q);
      i = time.next;
      continue;
    }
    const special = wordQuantities(doc, toks, i);
    if (special) {
      out.push(...special);
      i++;
      continue;
    }
    const ord = ORDINALS.get(t.lower) ?? (startsWithDigit(t) && /^\d+(st|nd|rd|th)$/.test(t.lower) ? parseInt(t.lower, 10) : undefined);
    if (ord !== undefined) {
      out.push({ value: ord, kind: "ordinal", unit: "", text: t.text, start: t.start, end: t.end });
      i++;
      continue;
    }
    const prev = toks[i - 1];
    let value = numericValue(t) ?? wordValue(t.lower);
    if (value === undefined || (t.lower === "one" && !isCountedOne(toks, i))) {
      i++;
      continue;
    }
    const fromDigits = numericValue(t) !== undefined;
    let j = i + 1;
    // Compose spelled-out numbers and scale words: "two hundred thirty", "1.6 billion".
    let total = 0;
    let current = value;
    while (j < toks.length) {
      const n = toks[j];
      if (!n) break;
      const w = n.lower;
      const small = wordValue(w);
      const scale = SCALE.get(w);
      if (scale !== undefined && (w.length > 1 || fromDigits)) {
        if (scale === 100) current *= 100;
        else {
          total += current * scale;
          current = 0;
        }
        j++;
      } else if (small !== undefined && !fromDigits && w !== "half") {
        current += small;
        j++;
      } else if ((w === "and" || w === "-") && !fromDigits && toks[j + 1] && wordValue(toks[j + 1]?.lower ?? "") !== undefined) {
        j++;
      } else break;
    }
    value = total + current;
    const last = toks[j - 1] ?? t;
    // The unit after a hyphen ("a 30-day supply", "a 3-bedroom flat") or an article ("half an hour").
    const joiner = toks[j];
    const joined = toks[j + 1];
    const bound =
      joiner && joined && joined.type === "word" && ((joiner.text === "-" && joiner.start === last.end && joined.start === joiner.end) || (t.lower === "half" && /^an?$/.test(joiner.lower) && TIME_UNITS.has(singular(joined.lemma))));
    const after = bound ? joined : joiner;
    const afterLemma = after ? singular(after.lemma) : "";
    let kind: QuantityKind = "count";
    let unit = "";
    let end = last.end;
    const currency = (prev && CURRENCY_SYMBOLS.get(prev.text)) ?? (prev && /^(us|usd|eur|gbp)$/.test(prev.lower) ? CURRENCY_WORDS.get(prev.lower === "us" ? "usd" : prev.lower) : undefined);
    const start = currency && prev ? prev.start : t.start;
    if (currency) {
      kind = "money";
      unit = currency;
    } else if (after && (after.text === "%" || after.lower === "percent" || (after.lower === "per" && toks[j + 1]?.lower === "cent"))) {
      kind = "percent";
      end = after.lower === "per" ? (toks[j + 1]?.end ?? after.end) : after.end;
    } else if (after && CURRENCY_WORDS.has(afterLemma)) {
      kind = "money";
      unit = CURRENCY_WORDS.get(afterLemma) ?? "";
      end = after.end;
    } else if (after && TIME_UNITS.has(afterLemma)) {
      const [base, factor] = TIME_UNITS.get(afterLemma) ?? ["", 1];
      kind = "duration";
      unit = base;
      value *= factor;
      end = after.end;
    } else if (fromDigits && Number.isInteger(value) && value >= 1000 && value <= 2100 && !/,/.test(t.text) && j === i + 1) {
      kind = "year";
    } else if (after && (after.pos === "NOUN" || after.pos === "PROPN")) {
      unit = afterLemma;
      end = after.end;
    }
    const next = end === last.end ? j : (bound ? j + 1 : j) + 1;
    const relation = afterLemma === "time" && kind === "count" && /^(as|more|the)$/.test(toks[next]?.lower ?? "") ? "ratio" : relationAfter(toks, next, currency ? i - 2 : i - 1);
    if (relation === "ratio") unit = "";
    out.push({ value, kind, unit, text: doc.text.slice(start, end), start, end, ...(relation ? { relation } : {}) });
    i = j;
  }
  return out;
}

/**
 * Quantities written without a number: "24/7" (24 hours a day, 7 days a week), "within a week"
 * (a length of one unit after a word such as "within"; not the rate in "twice a week"), and a
 * multiplier word before "as" or "the" ("twice as much", "double the price").
 */
function wordQuantities(doc: AnalyzedText, toks: readonly Token[], i: number): Quantity[] | undefined {
  const t = toks[i];
  // Every form starts with "2", "a", "d" or "t" ("24/7", "a week", "double", "twice"): most tokens are ruled out by it.
  if (!t || !/^[2adt]/.test(t.lower)) return undefined;
  const at = { text: t.text, start: t.start, end: t.end };
  if (t.lower === "24/7") return [{ value: 86400, kind: "duration", unit: "second", ...at }, { value: 7, kind: "duration", unit: "day", ...at }];
  const ratio = RATIO_WORDS.get(t.lower);
  if (ratio !== undefined) return /^(as|the)$/.test(toks[i + 1]?.lower ?? "") ? [{ value: ratio, kind: "count", unit: "", relation: "ratio", ...at }] : undefined;
  const unit = toks[i + 1];
  const time = unit && /^an?$/.test(t.lower) && BEFORE_ONE_UNIT.has(toks[i - 1]?.lower ?? "") ? TIME_UNITS.get(singular(unit.lemma)) : undefined;
  if (!unit || !time || unit.lower !== singular(unit.lower)) return undefined;
  return [{ value: time[1], kind: "duration", unit: time[0], text: doc.text.slice(t.start, unit.end), start: t.start, end: unit.end }];
}

/**
 * Whether the amount ending before token `next` is relative: a difference when a comparative and
 * "than" follow ("$15 more than", "3 days longer than"), a sum when "in total", "combined",
 * "altogether" follow or "a total of" comes before (`before`: the token before the amount).
 */
function relationAfter(toks: readonly Token[], next: number, before: number): QuantityRelation | undefined {
  const w = toks[next]?.lower ?? "";
  if (COMPARATIVES.has(w)) {
    for (let k = next + 1; k <= next + 3; k++) {
      const u = toks[k];
      if (!u || u.type === "punctuation") break;
      if (u.lower === "than") return "difference";
    }
    return undefined;
  }
  if (/^(combined|altogether|together)$/.test(w) || (w === "in" && /^(total|all)$/.test(toks[next + 1]?.lower ?? ""))) return "sum";
  return toks[before]?.lower === "of" && toks[before - 1]?.lower === "total" ? "sum" : undefined;
}

/** "one" is a number in "one day" but not in "one of them" or "the one who". */
function isCountedOne(toks: readonly Token[], i: number): boolean {
  const next = toks[i + 1];
  return next !== undefined && (next.pos === "NOUN" || TIME_UNITS.has(singular(next.lemma))) && toks[i - 1]?.lower !== "the";
}
