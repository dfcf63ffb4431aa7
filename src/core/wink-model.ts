import { createRequire } from "node:module";
import model from "wink-eng-lite-web-model";

type Model = typeof model;

/** The parts of wink-eng-lite-web-model's packed core model (eng-core-web-model.json) read here. */
interface PackedFeature {
  list: unknown[];
  hash?: Record<string, number>;
  intrinsicSize?: number;
  index?: number;
  maxIndex?: number;
}
interface PackedCore {
  lexicon: string;
  xpansions: string;
  packing: { layout: Record<string, number[]>; efList?: string[] };
  features: Record<string, PackedFeature> & { lexeme: PackedFeature; posClusters: PackedFeature };
  pos: { hash: Record<string, number> };
}

const CORE_JSON = "wink-eng-lite-web-model/dist/languages/cur/models/eng-core-web-model.json";
const CER_META_JSON = "wink-eng-lite-web-model/dist/languages/cur/models/eng-cer-meta-model.json";
const CER_TRANSFORMERS = "wink-eng-lite-web-model/dist/cer-transformers.js";

/**
 * The package's metaCER() as it should be. Its own loader assigns `machines = JSON.stringify(machines)`
 * to its module-level variable, so each call encodes the previous result again: from about the 15th
 * analyser in one process each load takes twice as long, and around the 20th it throws
 * "RangeError: Invalid string length". Here the JSON (never mutated: require's cached object) is
 * encoded once per englishModel() call.
 */
function metaCerOf(require: NodeJS.Require): (() => { machines: string; transformers: unknown }) | undefined {
  try {
    const machines = JSON.stringify(require(CER_META_JSON));
    const transformers: unknown = require(CER_TRANSFORMERS);
    if (!Array.isArray(transformers)) return undefined;
    return () => ({ machines, transformers });
  } catch {
    return undefined;
  }
}

function uint32(base64: string): Uint32Array {
  const bytes = Buffer.from(base64, "base64");
  // A fresh, aligned buffer: Buffer.from may hand back a slice of a shared pool.
  return new Uint32Array(new Uint8Array(bytes).buffer);
}

/** value → position, as the package builds it (a prototype-less object). */
function indexOf(list: readonly unknown[]): Record<string, number> {
  const hash = Object.create(null) as Record<string, number>;
  for (let k = 0; k < list.length; k++) hash[list[k] as string] = k;
  return hash;
}

/**
 * Builds wink's in-memory core model from the packed JSON the package has already required,
 * without the package's own JSON.stringify/JSON.parse deep copy (~45 ms of every CLI start).
 * Everything wink-nlp mutates later (feature lists, hashes, counters, packing) is copied per
 * call, so each instance is as independent as with the package's loader; the shared JSON is
 * only read. Mirrors read-core-model.js and load-core-model.js of wink-eng-lite-web-model 1.8.
 */
function coreFrom(packed: PackedCore): unknown {
  const features: Record<string, PackedFeature> = {};
  for (const [name, f] of Object.entries(packed.features)) features[name] = { ...f, list: f.list.slice() };
  const layout = packed.packing.layout;
  for (const [name, spec] of Object.entries(layout)) {
    const f = features[name];
    if (spec[3] !== 0 || !f) continue;
    f.hash = indexOf(f.list);
  }
  const lexeme = features.lexeme!;
  lexeme.hash = indexOf(lexeme.list);
  const clusters = features.posClusters!;
  clusters.list = clusters.list.map((c) => new Set((c as string).split("_").map((tag) => packed.pos.hash[tag] ?? 0)));
  const efList: string[] = [];
  for (const [name, spec] of Object.entries(layout)) {
    const f = features[name];
    if (spec[3] === 0 && f) {
      f.intrinsicSize = f.list.length;
      f.index = f.list.length;
      f.maxIndex = (spec[1] ?? 0) >>> (spec[2] ?? 0);
    }
    if (spec[4] === 1) efList.push(name);
  }
  lexeme.intrinsicSize = lexeme.list.length;
  lexeme.index = lexeme.list.length;
  return { ...packed, lexicon: uint32(packed.lexicon), xpansions: uint32(packed.xpansions), packing: { ...packed.packing, efList }, features };
}

/**
 * wink-eng-lite-web-model with a faster core loader and a metaCER() that does not grow with each
 * call. If the package's layout is not the one this was written against, the package's own
 * loaders are used (correct, only slower).
 */
export function englishModel(): Model {
  const require = createRequire(import.meta.url);
  const metaCER = metaCerOf(require);
  const fixed = (metaCER ? { ...model, metaCER } : model) as Model;
  let packed: PackedCore;
  try {
    packed = require(CORE_JSON) as PackedCore;
    if (typeof packed.lexicon !== "string" || typeof packed.xpansions !== "string" || !packed.packing?.layout || !Array.isArray(packed.features?.lexeme?.list) || !Array.isArray(packed.features?.posClusters?.list)) return fixed;
  } catch {
    return fixed;
  }
  return { ...fixed, core: () => coreFrom(packed) } as Model;
}
