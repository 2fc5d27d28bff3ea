#!/usr/bin/env bash
# `make bench`: feedagg against the peers of ../shared/bench/, measured in the same run, then
# one table of feedagg's ratio to each peer (and, apart, to the peers' recorded medians).
#
# Runs ../shared/bench/bench.py directly (nothing under ../shared is modified) with a contenders
# file of ours (bench-out/contenders.conf): feedagg (Scripts/bench-contender.sh, the real
# `feedagg pull`) and every peer that can run here (Scripts/bench-peers.py plan says which, and
# why the others cannot). W1, W2, W2i and W3 in one run.
#
# Environment:
#   BENCH_REPS=N       repetitions per workload (default 3; each after one discarded warm-up)
#   BENCH_PEERS=a,b    only these peers (names of ../shared/bench/contenders.conf)
#   BENCH_SETUP=1      run ../shared/bench/setup.sh first (needs the apt and PyPI registries).
#                      Without it, setup.sh runs only when everything it installs is already
#                      there (then it only checks).
#   BENCH_NO_NETNS=1   do not run in a loopback-only network namespace (`unshare -n`); traffic
#                      stays on 127.0.0.1 either way
#   BENCH_OUT=DIR      where raw.json, peers.md and report.txt go (default bench-out/)
#   FEEDAGG_MAX_CONNECTIONS=N  adds settings: max_connections_per_host: N (default: the product's)
# Extra arguments go to bench.py (e.g. --latency-ms 20 --workloads W1,W3), except the scale
# workloads of issue 15, which Scripts/bench-scale.py runs after it (see its header): W5 (one big
# feed), READ (show latency on a generated 1,000,000-item store) and GROWTH (30 refreshes of W1
# with 1 % changed). `--workloads W5,READ` runs only those (no peers, no bench.py). Without
# --workloads everything runs. BENCH_SCALE_ARGS passes more arguments to bench-scale.py.
# READ-SERVE (issue 26: `show` and `serve` under wrk on generated 50,000- and 1,000,000-item stores,
# SQLite and PostgreSQL side by side, and W5's first pull into both) is Scripts/bench-serve.py;
# BENCH_SERVE_ARGS passes more arguments to it (e.g. "--sizes 5x200 --wrk-duration 2" for a quick run).
# SEARCH (issue 28: `show --query` and `/api/items?q=` on the same stores, both engines, the index's
# size, and W5's first pull with five filter rules) is Scripts/bench-search.py; BENCH_SEARCH_ARGS
# passes more arguments to it.
# W6 (issue 13: `feedagg serve` workers sharing 2,000 feeds on PostgreSQL, and on SQLite) is
# Scripts/bench-workers.py, run last; BENCH_WORKERS_ARGS passes more arguments to it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bench=${BENCH_DIR:-$root/../shared/bench}
[ -f "$bench/bench.py" ] || { echo "missing $bench/bench.py (the shared bench harness)" >&2; exit 2; }
bench=$(cd "$bench" && pwd)
export FEEDAGG_BIN="$root/.build/release/feedagg"
[ -x "$FEEDAGG_BIN" ] || { echo "build first: make release" >&2; exit 2; }
export FEEDAGG_CONTENDER="$root/Scripts/bench-contender.sh"
[ -x /usr/bin/time ] || { echo "bench.py needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
reps=${BENCH_REPS:-3}

# Split --workloads between bench.py (W1, W2, W2i, W3) and bench-scale.py (W5, READ, GROWTH).
peer_args=()
peer_workloads=""
scale_workloads="W5,READ,GROWTH"
serve_workload=READ-SERVE
search_workload=SEARCH
workers_workload=W6
while [ $# -gt 0 ]; do
  case "$1" in
    --workloads | --workloads=*)
      if [ "$1" = --workloads ]; then list=${2:?--workloads needs a value}; shift; else list=${1#--workloads=}; fi
      peer_workloads=none
      scale_workloads=""
      serve_workload=""
      search_workload=""
      workers_workload=""
      for w in $(echo "$list" | tr ',' ' '); do
        case "$(echo "$w" | tr '[:lower:]' '[:upper:]')" in
          W5 | READ | GROWTH) scale_workloads="${scale_workloads:+$scale_workloads,}$w" ;;
          READ-SERVE) serve_workload=READ-SERVE ;;
          SEARCH) search_workload=SEARCH ;;
          W6) workers_workload=W6 ;;
          *) [ "$peer_workloads" = none ] && peer_workloads=""; peer_workloads="${peer_workloads:+$peer_workloads,}$w" ;;
        esac
      done
      ;;
    *) peer_args+=("$1") ;;
  esac
  shift
done
[ -n "$peer_workloads" ] && [ "$peer_workloads" != none ] && peer_args+=(--workloads "$peer_workloads")

# Runs "$@" (a python3 script and its arguments) in a loopback-only network namespace when possible.
in_netns() {
  if [ "${BENCH_NO_NETNS:-0}" != 1 ] && unshare -n true 2>/dev/null; then
    env BENCH_IN_NETNS=1 unshare -n sh -c 'ip link set lo up 2>/dev/null || true; exec python3 "$@"' sh "$@"
  else
    python3 "$@"
  fi
}

run_scale() {
  [ -n "$scale_workloads" ] || return 0
  case "$scale_workloads" in
    *READ* | *read*)
      [ -x "$root/.build/release/feedagg-store-gen" ] ||
        { echo "build first: make bench (it builds feedagg-store-gen)" >&2; exit 2; } ;;
  esac
  echo "== bench-scale.py: $scale_workloads, $reps reps" >&2
  # shellcheck disable=SC2086
  in_netns "$root/Scripts/bench-scale.py" --workloads "$scale_workloads" --reps "$reps" --bench "$bench" \
    --out "$out" ${BENCH_SCALE_ARGS:-}
}
run_serve() {
  [ -n "$serve_workload" ] || return 0
  [ -x "$root/.build/release/feedagg-store-gen" ] ||
    { echo "build first: make bench (it builds feedagg-store-gen)" >&2; exit 2; }
  echo "== bench-serve.py: READ-SERVE, W5-PG $reps reps" >&2
  # In the loopback-only namespace too: its PostgreSQL cluster and feedagg serve listen on 127.0.0.1 there.
  # shellcheck disable=SC2086
  in_netns "$root/Scripts/bench-serve.py" --reps "$reps" --bench "$bench" --out "$out" ${BENCH_SERVE_ARGS:-}
}
run_search() {
  [ -n "$search_workload" ] || return 0
  [ -x "$root/.build/release/feedagg-store-gen" ] ||
    { echo "build first: make bench (it builds feedagg-store-gen)" >&2; exit 2; }
  echo "== bench-search.py: SEARCH, W5 with rules $reps reps" >&2
  # shellcheck disable=SC2086
  in_netns "$root/Scripts/bench-search.py" --reps "$reps" --bench "$bench" --out "$out" ${BENCH_SEARCH_ARGS:-}
}
run_workers() {
  [ -n "$workers_workload" ] || return 0
  echo "== bench-workers.py: W6, $reps cycles per setting" >&2
  # In the loopback-only namespace too: the PostgreSQL cluster it starts listens on 127.0.0.1 there.
  # shellcheck disable=SC2086
  in_netns "$root/Scripts/bench-workers.py" --reps "$reps" --bench "$bench" --out "$out" ${BENCH_WORKERS_ARGS:-}
}
out=${BENCH_OUT:-$root/bench-out}
mkdir -p "$out"
rm -f "$out/raw.json" "$out/peers.md" "$out/report.txt" "$out/scale.json" "$out/scale.txt" "$out/serve.json" "$out/serve.txt" "$out/search.json" "$out/search.txt" "$out/workers.json" "$out/workers.txt"

if [ "$peer_workloads" = none ]; then
  run_scale
  run_serve
  run_search
  run_workers
  exit 0
fi

# setup.sh installs gh (apt), .venv and .venv-tap (PyPI) into ../shared/bench.
setup_ready() {
  command -v gh >/dev/null 2>&1 &&
    "$bench/.venv/bin/python" -c 'import github, githubkit, ghapi, requests, aiohttp' 2>/dev/null &&
    [ -x "$bench/.venv-tap/bin/tap-github" ] && [ -s "$bench/.venv-tap/catalog-repositories.json" ]
}
if [ "${BENCH_SETUP:-0}" = 1 ]; then
  echo "== BENCH_SETUP=1: running $bench/setup.sh" >&2
  "$bench/setup.sh" >&2 || echo "!! setup.sh failed (it needs the apt and PyPI registries); going on with what is installed" >&2
elif setup_ready; then
  "$bench/setup.sh" >&2
else
  echo "== setup.sh not run: gh, $bench/.venv or .venv-tap are missing and it would need the apt/PyPI registries (BENCH_SETUP=1 runs it anyway)" >&2
fi

echo "== planning contenders" >&2
python3 "$root/Scripts/bench-peers.py" plan --bench "$bench" --out "$out" ${BENCH_PEERS:+--only "$BENCH_PEERS"} >&2

args=(--contenders "$out/contenders.conf" --out "$out" --reps "$reps" ${peer_args[@]+"${peer_args[@]}"})
if [ "${BENCH_NO_NETNS:-0}" != 1 ] && unshare -n true 2>/dev/null; then
  echo "== bench.py in a loopback-only network namespace (unshare -n), $reps reps" >&2
  env BENCH_IN_NETNS=1 unshare -n sh -c 'ip link set lo up 2>/dev/null || true; exec python3 "$@"' \
    sh "$bench/bench.py" "${args[@]}"
else
  echo "== bench.py without a network namespace (BENCH_NO_NETNS=1 or unshare -n unavailable), $reps reps" >&2
  python3 "$bench/bench.py" "${args[@]}"
fi

python3 "$root/Scripts/bench-peers.py" report --raw "$out/raw.json" --recorded "$bench/results/peers.md" \
  --skipped "$out/skipped.json" | tee "$out/report.txt"
status=${PIPESTATUS[0]}
run_scale
run_serve
run_search
run_workers
exit "$status"
