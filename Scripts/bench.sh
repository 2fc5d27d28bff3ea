#!/usr/bin/env bash
# `make bench`: feedagg against the peers of ../shared/bench/, measured in the same run, then
# one table of feedagg's ratio to each peer. Extra arguments go to bench.py (e.g. --reps 5).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bench=../shared/bench
[ -f "$bench/bench.py" ] || { echo "missing $bench (the shared bench harness)" >&2; exit 2; }
export FEEDAGG_BIN="$root/.build/release/feedagg"
[ -x "$FEEDAGG_BIN" ] || { echo "build first: make release" >&2; exit 2; }
export FEEDAGG_CONTENDER="$root/Scripts/bench-contender.sh"
out="$root/bench-out"
mkdir -p "$out"
conf="$out/contenders.conf"
{
  echo "feedagg | repos,photos | sh \"\$FEEDAGG_CONTENDER\""
  grep -vE '^\s*(#|$)' "$bench/contenders.conf"
} >"$conf"
peers=${BENCH_PEERS:-requests-seq,githubkit,githubkit-async,ghapi-pages,gh-cli,ideal-2rtt}
"$bench/run_peers.sh" --contenders "$conf" --only "feedagg,$peers" --out "$out" "$@"
python3 - "$out/raw.json" <<'PY'
import json, statistics, sys
runs = json.load(open(sys.argv[1]))["runs"]
def med(name, wl, key="wall_s"):
    xs = [r[key] for r in runs.get(name, {}).get(wl, []) if r.get("rc") == 0 and r.get(key) is not None]
    return statistics.median(xs) if xs else None
print("\nfeedagg vs peers (median wall seconds; ratio = peer / feedagg, >1 means feedagg is faster)")
print(f"{'peer':22s} {'W1 s':>7s} {'ratio':>6s} {'W2 s':>7s} {'ratio':>6s} {'W3 s':>7s} {'ratio':>6s}")
me = {wl: med("feedagg", wl) for wl in ("W1", "W2", "W3")}
print(f"{'feedagg':22s} " + " ".join(f"{(me[w] or 0):7.3f} {'':>6s}" for w in ("W1", "W2", "W3")))
for name in runs:
    if name == "feedagg": continue
    cells = []
    for wl in ("W1", "W2", "W3"):
        p = med(name, wl)
        cells.append(f"{p:7.3f} {p / me[wl]:6.1f}" if p and me[wl] else f"{'-':>7s} {'-':>6s}")
    print(f"{name:22s} " + " ".join(cells))
w2 = runs["feedagg"].get("W2", [])
if w2:
    print(f"\nfeedagg W2: requests={statistics.median(r['requests'] for r in w2)} "
          f"304s={statistics.median(r['not_modified_304'] for r in w2)}; "
          f"W1 peak RSS={statistics.median(r['rss_mb'] for r in runs['feedagg']['W1']):.1f} MB")
PY
