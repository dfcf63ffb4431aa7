#!/usr/bin/env bash
# Scores the dev sets with two trees of groundwatch at the same time, each on its own core, the
# cores swapped every round (one core of a VM can be slower than the other); prints the quality
# report of the first round (every set's AUROC and balanced accuracy with intervals, false-alarm
# and miss rates, before → after and the verdict: bench/quality.ts) and the median rows/s of the
# rounds per set with the after/before ratio. Scores are deterministic: every round scores alike.
#
#   bench/quality-ab.sh [--rev REV] [--rounds N]     before: REV's tree (default HEAD~1, or HEAD
#                                                    while src/ or scripts/ have uncommitted
#                                                    changes); after: this checkout
#   bench/quality-ab.sh BEFORE_DIR AFTER_DIR [ROUNDS]  two checkouts (each needs node_modules)
#
# Rounds default to 4. Both trees are scored by this checkout's bench/quality-tree.ts, on the rows
# this checkout's loader reads from GROUNDWATCH_DEV_DIR (default ../shared/data/dev of this checkout).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rev=""; rounds=4; before=""; after="$here"; made=""
while (( $# )); do
  case "$1" in
    --rev) rev=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) if [[ -z "$before" ]]; then before=$(cd "$1" && pwd); after=$(cd "$2" && pwd); rounds=${3:-$rounds}; shift $(( $# )); fi ;;
  esac
done
cd "$here"
out=$(mktemp -d)
trap 'rm -rf "$out" ${made:+"$made"}' EXIT
if [[ -z "$before" ]]; then
  IFS=$'\t' read -r commit before < <(npx tsx bench/quality-revision.ts ${rev:+"$rev"})
  made=$before
fi
export GROUNDWATCH_DEV_DIR=${GROUNDWATCH_DEV_DIR:-$(cd "$here/../shared/data/dev" && pwd)}
for r in $(seq "$rounds"); do
  if (( r % 2 )); then cb=0; ca=1; else cb=1; ca=0; fi
  taskset -c $cb npx tsx bench/quality-tree.ts --root "$before" > "$out/before-$r.json" 2> "$out/before-$r.err" &
  taskset -c $ca npx tsx bench/quality-tree.ts --root "$after" > "$out/after-$r.json" 2> "$out/after-$r.err" &
  wait
done
npx tsx bench/quality.ts --after "$out/after-1.json" --before "$out/before-1.json" ${commit:+--before-rev "$commit"}
echo
OUT=$out ROUNDS=$rounds node -e '
const fs = require("fs");
const read = (f) => {
  const sets = JSON.parse(fs.readFileSync(f, "utf8")).sets;
  const m = new Map(Object.entries(sets).map(([k, s]) => [k, (s.scores.length / s.ms) * 1000]));
  const all = Object.values(sets);
  return m.set("all sets", (all.reduce((a, s) => a + s.scores.length, 0) / all.reduce((a, s) => a + s.ms, 0)) * 1000);
};
const median = (a) => { const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const n = Number(process.env.ROUNDS);
const runs = (side) => Array.from({ length: n }, (_, i) => read(`${process.env.OUT}/${side}-${i + 1}.json`));
const b = runs("before"), a = runs("after");
console.log("| set | rows/s before (median of " + n + ") | rows/s after | after / before |\n|---|---|---|---|");
for (const k of b[0].keys()) { const x = median(b.map((m) => m.get(k))), y = median(a.map((m) => m.get(k))); console.log(`| ${k} | ${Math.round(x)} | ${Math.round(y)} | ${(y / x).toFixed(2)} |`); }'
