#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/Targets/) and runs each for a bounded time.
#
#   Scripts/fuzz.sh [NAME...]        # default: every target; NAME as in the table below
#
# Environment:
#   FUZZ_SECONDS   seconds per target (default 60)
#   FUZZ_ARGS      extra libFuzzer flags for every run (e.g. "-max_len=4096")
#   SWIFT          the swift driver (default swift)
#
# Seeds are read from Fuzz/corpus/NAME (never written); what a run learns goes to the working
# corpus .build-fuzz/corpus/NAME, kept between runs. Crashing, leaking, slow and out-of-memory
# inputs go to Fuzz/artifacts/NAME/ (gitignored). Prints, per target, the seconds, executions,
# executions per second and crashes; exits 1 when any target found a crash.
set -uo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_ARGS=${FUZZ_ARGS:-}
SCRATCH=.build-fuzz
ARTIFACTS=Fuzz/artifacts
LOGS=$SCRATCH/logs

# name  executable  dictionary
TARGETS="
link-header      FuzzLinkHeader     link-header
yaml-parser      FuzzYAMLParser     yaml
feeds-loader     FuzzFeedsLoader    yaml
interpolation    FuzzInterpolation  interpolation
github-repos     FuzzGitHubRepos    json-pages
github-members   FuzzGitHubMembers  json-pages
github-gists     FuzzGitHubGists    json-pages
photos-500px     FuzzPhotos500px    json-pages
feed-parser      FuzzFeedParser     feed
"

case $FUZZ_SECONDS in '' | *[!0-9]*) echo "FUZZ_SECONDS must be a whole number of seconds" >&2; exit 2 ;; esac
selected=("$@")
for name in "${selected[@]}"; do
  grep -q "^$name " <<<"$TARGETS" || { echo "unknown fuzz target '$name'; known:$(awk 'NF {printf " %s", $1}' <<<"$TARGETS")" >&2; exit 2; }
done

# Build: the manifest declares the fuzzers (and only what they fuzz) when FEEDAGG_FUZZ is set.
# lld (shipped with the toolchain) links ASan binaries without gold's "Cannot export local
# symbol" warnings; gold works too, so those lines are filtered either way.
link=()
if [ -x "$(dirname "$(command -v swiftc)")/ld.lld" ]; then link=(-Xswiftc -use-ld=lld); fi
echo "building fuzz targets (debug, -sanitize=fuzzer,address) in $SCRATCH"
FEEDAGG_FUZZ=1 $SWIFT build -c debug --scratch-path "$SCRATCH" -Xswiftc -sanitize=fuzzer,address "${link[@]}" 2>&1 |
  grep -v "Cannot export local symbol"
[ "${PIPESTATUS[0]}" = 0 ] || { echo "fuzz build failed" >&2; exit 1; }
bin=$SCRATCH/debug

mkdir -p "$LOGS" "$ARTIFACTS"
summary=()
failed=0
while read -r name exe dict; do
  [ -n "$name" ] || continue
  if [ ${#selected[@]} -gt 0 ] && ! printf '%s\n' "${selected[@]}" | grep -qx "$name"; then continue; fi
  work=$SCRATCH/corpus/$name
  out=$ARTIFACTS/$name
  log=$LOGS/$name.log
  mkdir -p "$work" "$out"
  before=$(find "$out" -type f | wc -l)
  touch "$log.start"
  echo "fuzzing $name for ${FUZZ_SECONDS}s (log: $log)"
  start=$(date +%s)
  # The Swift runtime's own backtracer would hold a crashing process; libFuzzer reports instead.
  # shellcheck disable=SC2086
  SWIFT_BACKTRACE=enable=no "$bin/$exe" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=1024 -dict="Fuzz/dict/$dict.dict" -artifact_prefix="$out/" $FUZZ_ARGS \
    "$work" "Fuzz/corpus/$name" </dev/null >"$log" 2>&1
  status=$?
  seconds=$(($(date +%s) - start))
  runs=$(awk '/^stat::number_of_executed_units:/ {print $2}' "$log" | tail -1)
  rate=$(awk '/^stat::average_exec_per_sec:/ {print $2}' "$log" | tail -1)
  if [ -z "$runs" ]; then  # killed before printing stats: the last status line
    runs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
    rate=$(grep -o 'exec/s: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  fi
  crashes=$(($(find "$out" -type f | wc -l) - before))
  if [ "$status" != 0 ] && [ "$crashes" = 0 ]; then crashes="?"; fi
  summary+=("$(printf '%-16s %8s %12s %9s %8s' "$name" "$seconds" "${runs:-?}" "${rate:-?}" "$crashes")")
  if [ "$status" != 0 ] || [ "$crashes" != 0 ]; then
    failed=1
    grep -m1 -E '^==[0-9]+==ERROR|Fatal error|deadly signal|ERROR: libFuzzer' "$log" | sed 's/^/  /'
    find "$out" -type f -newer "$log.start" 2>/dev/null | sed "s|^|  artifact: |"
    echo "  reproduce: $bin/$exe ARTIFACT   (see $log)"
  fi
done <<<"$TARGETS"

echo
printf '%-16s %8s %12s %9s %8s\n' target seconds executions exec/s crashes
printf '%s\n' "${summary[@]}"
if [ "$failed" != 0 ]; then
  echo "crashing inputs are in $ARTIFACTS/" >&2
  exit 1
fi
