/**
 * The span detector's prompt (segment A of its input), as LettuceDetect was trained on it. The
 * templates are data, reproduced byte for byte from KRLabsOrg/LettuceDetect (commit 102f7f2):
 * lettucedetect/prompts/qa_prompt_<lang>.txt and summary_prompt_<lang>.txt (some end in a space or
 * newlines, kept), and the passage word per language from lettucedetect/detectors/prompt_utils.py
 * (LANG_TO_PASSAGE). The passages are written one a line, "<word> <n>: <passage>", joined by "\n";
 * with a question the QA template takes the question, the passage count and that block; without
 * one the summary template takes the block. Slots are filled in one pass (a passage holding
 * "${question}" stays as written), as Python's string.Template.substitute does.
 */

/** One language's templates and passage word. */
export interface SpanPromptLanguage {
  readonly passage: string;
  readonly qa: string;
  readonly summary: string;
}

/** Every language the detector's prompt files hold. */
export const SPAN_PROMPTS: Readonly<Record<string, SpanPromptLanguage>> = {
  en: { passage: "passage", qa: "Briefly answer the following question:\n${question}\nBear in mind that your response should be strictly based on the following ${num_passages} passages:\n${context}\nIn case the passages do not contain the necessary information to answer the question, please reply with: \"Unable to answer based on given passages.\"\noutput:", summary: "Summarize the following text:\n${text}\noutput:" },
  de: { passage: "Passage", qa: "Beantworte die folgende Frage kurz:\n${question}\nBeachte, dass deine Antwort nur auf den folgenden ${num_passages} Passagen basieren soll:\n${context}\nFalls die Passagen nicht die notwendigen Informationen zur Beantwortung der Frage enthalten, antworte bitte mit: \"Kann aufgrund der gegebenen Passagen nicht beantwortet werden.\"\nAusgabe:", summary: "Fasse den folgenden Text zusammen:\n${text}\nAusgabe:\n" },
  fr: { passage: "passage", qa: "Réponds brièvement à la question suivante :\n${question}\nNote que ta réponse doit être basée uniquement sur les ${num_passages} passages suivants :\n${context}\nSi les passages ne contiennent pas les informations nécessaires pour répondre à la question, réponds s'il te plaît par : \"Impossible de répondre sur la base des passages fournis.\"\nSortie : ", summary: "Résume le texte suivant :\n${text}\nSortie : " },
  es: { passage: "pasaje", qa: "Responde a la siguiente pregunta brevemente:\n${question}\nTen en cuenta que tu respuesta debe basarse únicamente en los siguientes ${num_passages} pasajes:\n${context}\nSi los pasajes no contienen la información necesaria para responder a la pregunta, por favor responde con: \"No se puede responder con base en los pasajes proporcionados.\"\nSalida: ", summary: "Resume el siguiente texto:\n${text}\nSalida: " },
  it: { passage: "brano", qa: "Rispondi alla seguente domanda in modo breve:\n${question}\nTieni presente che la tua risposta deve basarsi solo sui seguenti ${num_passages} passaggi:\n${context}\nSe i passaggi non contengono le informazioni necessarie per rispondere alla domanda, per favore rispondi con: \"Non può essere risposto in base ai passaggi forniti.\"\nRisposta:\n", summary: "Riassumi il seguente testo:\n${text}\nRisposta: " },
  pl: { passage: "fragment", qa: "Zwięźle odpowiedz na następujące pytanie:\n${question}\nPamiętaj, że Twoja odpowiedź powinna opierać się wyłącznie na następujących ${num_passages} fragmentach:\n${context}\nJeśli fragmenty nie zawierają informacji niezbędnych do udzielenia odpowiedzi na pytanie, odpowiedz: \"Nie można odpowiedzieć na podstawie podanych fragmentów.\"\noutput: ", summary: "Streść następujący tekst:\n${text}\nWynik: " },
  cn: { passage: "段落", qa: "请简短回答以下问题：\n${question}\n请注意，您的回答应严格基于以下${num_passages}段落：\n${context}\n如果段落中不包含回答问题所需的信息，请回复：\"基于给定段落无法回答。\"\n输出：\n", summary: "请总结以下文本：\n${text}\n输出：\n" },
  hu: { passage: "szövegrészlet", qa: "Röviden válaszolj az alábbi kérdésre:\n${question}\nVedd figyelembe, hogy a válaszod kizárólag az alábbi ${num_passages} szövegrészletre támaszkodjon:\n${context}\nHa a szövegrészletek nem tartalmazzák a kérdés megválaszolásához szükséges információt, válaszolj így: \"Nem tudok válaszolni a megadott szövegrészletek alapján.\"\noutput:", summary: "Foglalja össze az alábbi szöveget:\n${text}\noutput:\n\n\n" },
};

/** The languages the prompt files hold, for messages. */
export const SPAN_LANGUAGES: readonly string[] = Object.keys(SPAN_PROMPTS);

const SLOT = /\$\{(question|num_passages|context|text)\}/g;

/** A language's templates; an unknown language is refused naming the known ones. */
export function spanPromptLanguage(language: string): SpanPromptLanguage {
  const found = Object.hasOwn(SPAN_PROMPTS, language) ? SPAN_PROMPTS[language] : undefined;
  if (!found) throw new Error(`onnx span detector: no prompt for language ${JSON.stringify(language)} (the detector's prompt files: ${SPAN_LANGUAGES.join(", ")})`);
  return found;
}

/** One passage's line of the prompt: "<word> <n>: <passage>" (n counted from 1 over the whole list, as the reference counts it when grouping). */
export function passageLine(lang: SpanPromptLanguage, index: number, passage: string): string {
  return `${lang.passage} ${index + 1}: ${passage}`;
}

/** The prompt for `passages` (numbered from 1) and `question` (absent: the summary prompt). */
export function spanPrompt(lang: SpanPromptLanguage, passages: readonly string[], question: string | undefined): string {
  const context = passages.map((p, i) => passageLine(lang, i, p)).join("\n");
  const values: Record<string, string> = question === undefined ? { text: context } : { question, num_passages: String(passages.length), context };
  const template = question === undefined ? lang.summary : lang.qa;
  return template.replace(SLOT, (whole: string, slot: string) => values[slot] ?? whole);
}
