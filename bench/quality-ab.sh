#!/usr/bin/env bash
# Compares bench/quality.ts rows/s of two checkouts of groundwatch, run at the same time, each on
# its own core, the cores swapped every round (one core of a VM can be slower than the other);
# prints the median of the rounds per set and the after/before ratio. Quality columns are
# deterministic and not compared here.
#
#   bench/quality-ab.sh BEFORE_DIR AFTER_DIR [ROUNDS=4]
#
# Both directories need node_modules (a symlink to this checkout's is enough) and
# GROUNDWATCH_DEV_DIR pointing at the dev sets (default ../shared/data/dev of this checkout).
set -euo pipefail
before=$(cd "$1" && pwd); after=$(cd "$2" && pwd); rounds=${3:-4}
dev=${GROUNDWATCH_DEV_DIR:-$(cd "$(dirname "$0")/../../shared/data/dev" && pwd)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$rounds"); do
  if (( r % 2 )); then cb=0; ca=1; else cb=1; ca=0; fi
  (cd "$before" && GROUNDWATCH_DEV_DIR=$dev taskset -c $cb npx tsx bench/quality.ts > "$out/before-$r.txt" 2>&1) &
  (cd "$after" && GROUNDWATCH_DEV_DIR=$dev taskset -c $ca npx tsx bench/quality.ts > "$out/after-$r.txt" 2>&1) &
  wait
done
OUT=$out ROUNDS=$rounds node -e '
const fs = require("fs");
const read = (f) => {
  const text = fs.readFileSync(f, "utf8");
  const rows = text.split("\n").filter((l) => /^\| \w+ \| \d/.test(l)).map((l) => { const c = l.split("|").map((x) => x.trim()); return [c[1], Number(c[10])]; });
  return new Map([...rows, ["all sets", Number((text.match(/throughput over all sets: (\d+)/) ?? [])[1])]]);
};
const median = (a) => { const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const n = Number(process.env.ROUNDS);
const runs = (side) => Array.from({ length: n }, (_, i) => read(`${process.env.OUT}/${side}-${i + 1}.txt`));
const b = runs("before"), a = runs("after");
console.log("| set | rows/s before (median of " + n + ") | rows/s after | after / before |\n|---|---|---|---|");
for (const k of b[0].keys()) { const x = median(b.map((m) => m.get(k))), y = median(a.map((m) => m.get(k))); console.log(`| ${k} | ${Math.round(x)} | ${Math.round(y)} | ${(y / x).toFixed(2)} |`); }'
