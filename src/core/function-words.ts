/**
 * Function words (articles, prepositions, pronouns, auxiliaries, conjunctions, particles) of the
 * languages groundwatch reads besides English, whose stop words wink-nlp flags: closed lists, so
 * that two texts sharing them share no content, and a paraphrase that uses other ones ("Der
 * Versand ist kostenlos" for "Kostenloser Versand für alle") lacks no content word. Negations
 * (nicht, kein, pas, ne, no, sin, не, нет, لا, 不, ない, ไม่) are never among them: they change what a
 * sentence says. Latin-script languages share letters, so which list applies is decided per text
 * (`latinLanguage`); Cyrillic and Arabic words are read against their own lists in any text.
 */

/** Languages written in Latin script whose function words are listed; "en" is wink-nlp's own list. */
export type LatinLanguage = "en" | "de" | "fr" | "es";

const words = (list: string): ReadonlySet<string> => new Set(list.split(" "));

const GERMAN = words(
  "der die das den dem des ein eine einen einem einer eines und oder aber denn sondern doch ist sind war waren wird werden wurde wurden worden " +
    "sein seine seinen seinem seiner ihr ihre ihren ihrem ihrer hat haben hatte hatten kann können muss müssen soll sollen darf dürfen will wollen " +
    "im in am an auf aus bei beim mit nach von vom zu zum zur für über unter vor durch gegen um bis seit als wie wenn dass ob innerhalb außerhalb während wegen trotz laut " +
    "es er sie wir ich du man sich dies diese dieser dieses diesem diesen jede jeder jedes jeden alle allen auch noch nur sehr so schon dann da hier wo was",
);

const FRENCH = words(
  "le la les l un une des du de d et ou mais est sont était étaient été être a ont avait avoir sera seront fait " +
    "à au aux en dans sur sous par pour avec chez entre vers pendant depuis selon que qui dont qu ce cet cette ces c il elle ils elles on nous vous je j se s " +
    "sa son ses leur leurs lui y tout tous toute toutes aussi très",
);

const SPANISH = words(
  "el la los las lo un una unos unas de del al a y e o u pero es son era eran fue fueron ser está están estar ha han hay haber será serán tiene tienen tener " +
    "en con por para sobre entre hasta desde durante según mediante tras hacia que quien cual cuyo como este esta estos estas ese esa esos esas se su sus le les nos " +
    "también muy todo todos toda todas cada",
);

const RUSSIAN = words(
  "и в во на с со к ко по о об от до из за для при у над под а но или что как это этот эта эти этого то так же ли бы " +
    "был была были было быть есть будет будут он она оно они мы вы я его её ее их все всех всё весь вся также уже только",
);

const ARABIC = words(
  "في من على إلى الى عن مع و أو او ثم هذا هذه ذلك تلك التي الذي الذين هو هي هم كان كانت يكون تكون قد أن ان إن لقد كل بين عند حتى أي",
);

/**
 * Function words of the scripts written without spaces (particles, copulas, measure words,
 * conjunctions of Chinese, Japanese and Thai), as their words are cut (spaceless-scripts.ts).
 */
export const SPACELESS_FUNCTION_WORDS: ReadonlySet<string> = words(
  "的 了 是 在 和 与 及 或 也 都 就 会 并 可 而 之 其 这 那 一 个 着 过 被 把 给 对 从 向 " +
    "の は が を に で と も から まで へ や か な ね よ です ます した する され れ さ ある いる こと もの ば て た だ " +
    "ที่ และ ได้ ใน ของ จะ เป็น การ มี ให้ ว่า กับ แล้ว ซึ่ง นี้ นั้น อยู่ โดย เมื่อ",
);

const LATIN: Readonly<Record<Exclude<LatinLanguage, "en">, ReadonlySet<string>>> = { de: GERMAN, fr: FRENCH, es: SPANISH };

/**
 * Words that say which Latin-script language a text is in: frequent function words of each that
 * English rarely writes (so not "a", "in", "an", "die", "son"). A few are French and Spanish both
 * ("un", "de", "la", "que", "en"), and count for both.
 */
const MARKERS: ReadonlyArray<readonly [LatinLanguage, ReadonlySet<string>]> = [
  ["en", words("the and is are of to with for that this was were be it on by at from have has will")],
  ["de", words("der das den dem des ein eine einen einem einer und ist sind mit von für auf wird werden nicht auch sich zum zur im dass oder bei nach wurde")],
  ["fr", words("le les des du un une de la que en et est sont avec pour dans sur par au aux qui ne pas été cette ces il elle nous vous ils leur")],
  ["es", words("el los las del al un una de la que en y es son está están con por para se su sus como pero más este esta fue ha han")],
];

/** The languages each marker word counts for, looked up once per word. */
const MARKER_LANGUAGES: ReadonlyMap<string, readonly LatinLanguage[]> = (() => {
  const out = new Map<string, LatinLanguage[]>();
  for (const [language, markers] of MARKERS) for (const w of markers) out.set(w, [...(out.get(w) ?? []), language]);
  return out;
})();

const NO_LANGUAGES: readonly LatinLanguage[] = [];

/** Longest marker word, in characters (longer words are not looked up). */
const MAX_MARKER_CHARS = 7;

/** A word that starts with a French elision ("l'", "d'", "qu'"…), whatever its length. */
const ELIDED_START = /^(?:[ldcjsmtn]|qu)['’]\p{L}/iu;

/**
 * The Latin-script language of a text's words: the language with the most marker words (a word
 * after a French elision, "l'envoi", counts for French; a one-letter marker only in lower case),
 * when it has more than English does, else English. Ties among the others go to the one listed
 * first. Linear in the words.
 */
export function latinLanguage(values: Iterable<string>): LatinLanguage {
  const hits = new Map<LatinLanguage, number>();
  const hit = (language: LatinLanguage): void => void hits.set(language, (hits.get(language) ?? 0) + 1);
  for (const v of values) {
    if (v.length > 2 && (v[1] === "'" || v[1] === "’" || v[2] === "'" || v[2] === "’") && ELIDED_START.test(v)) hit("fr");
    if (v.length > MAX_MARKER_CHARS) continue;
    const w = v.toLowerCase();
    // A capital letter on its own is a name or a variable ("X rose; Y fell"), not Spanish "y".
    if (v.length === 1 && w !== v) continue;
    for (const language of MARKER_LANGUAGES.get(w) ?? NO_LANGUAGES) hit(language);
  }
  let best: LatinLanguage = "en";
  let most = hits.get("en") ?? 0;
  for (const [language] of MARKERS) {
    const n = hits.get(language) ?? 0;
    if (n > most) {
      best = language;
      most = n;
    }
  }
  return best;
}

/** A French article, pronoun or conjunction elided before a word ("l'", "d'", "qu'"), "n'" (a negation) aside. */
const FRENCH_ELISION = /^(?:l|d|qu|c|j|s|m|t)['’](\p{L}.*)$/u;

/**
 * The word after an elided French article, pronoun or conjunction ("envoi" in "l'envoi", "un" in
 * "d'un"), or undefined: the analyser keeps the two as one token, which would match neither the
 * word alone nor the word after another article.
 */
export function elidedWord(language: LatinLanguage, lower: string): string | undefined {
  if (language !== "fr" || lower.length > 100) return undefined;
  return FRENCH_ELISION.exec(lower)?.[1];
}

/**
 * True for a function word of `language` (a text's Latin-script language) or, in any text, of
 * Russian or Arabic. English words are left to wink-nlp's list; `lower` is the word in lower case.
 */
export function isFunctionWord(language: LatinLanguage, lower: string): boolean {
  const c = lower.charCodeAt(0);
  if (c >= 0x0400 && c <= 0x04ff) return RUSSIAN.has(lower);
  if (c >= 0x0600 && c <= 0x06ff) return ARABIC.has(lower);
  return language !== "en" && LATIN[language].has(lower);
}
