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
 * wink-eng-lite-web-model with a faster core loader. If the package's layout is not the one
 * this was written against, the package's own loader is used (correct, only slower).
 */
export function englishModel(): Model {
  let packed: PackedCore;
  try {
    packed = createRequire(import.meta.url)(CORE_JSON) as PackedCore;
    if (typeof packed.lexicon !== "string" || typeof packed.xpansions !== "string" || !packed.packing?.layout || !Array.isArray(packed.features?.lexeme?.list) || !Array.isArray(packed.features?.posClusters?.list)) return model;
  } catch {
    return model;
  }
  return { ...model, core: () => coreFrom(packed) } as Model;
}
