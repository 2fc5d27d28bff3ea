#!/bin/sh
# feedagg as a contender of ../shared/bench/bench.py: writes a feeds.yaml for the BENCH_* job
# into $BENCH_STATE_DIR and runs the real `feedagg pull` on it (store and cache in the same
# folder), then prints items=N (the merged stream's total) as the harness expects.
# The feeds use the product's default settings; FEEDAGG_MAX_CONNECTIONS, when set, adds
# `settings: max_connections_per_host` (to compare other limits by hand).
set -eu
: "${FEEDAGG_BIN:?set FEEDAGG_BIN to the release feedagg binary}"
state=${BENCH_STATE_DIR:?}
config="$state/feeds.yaml"
{
  if [ -n "${FEEDAGG_MAX_CONNECTIONS:-}" ]; then
    echo "settings:"
    echo "  max_connections_per_host: $FEEDAGG_MAX_CONNECTIONS"
  fi
  echo "feeds:"
  if [ "${BENCH_WORKLOAD:-repos}" = photos ]; then
    echo "  - name: photos"
    echo "    source: photos.500px"
    echo "    base_url: $BENCH_BASE_URL"
    echo "    feature: ${BENCH_FEATURE:-editors}"
    echo "    per_page: ${BENCH_RPP:-100}"
  else
    for org in $(echo "${BENCH_ORGS:-org1}" | tr ',' ' '); do
      echo "  - name: $org-repos"
      echo "    source: github.repos"
      echo "    base_url: $BENCH_BASE_URL"
      echo "    org: $org"
      echo "    per_page: ${BENCH_PER_PAGE:-100}"
    done
  fi
} >"$config"
passes=${BENCH_PASSES:-1}
i=0
while [ "$i" -lt "$passes" ]; do
  i=$((i + 1))
  out=$("$FEEDAGG_BIN" pull --config "$config" --db "$state/feedagg.sqlite" --quiet --format json --per-page 1)
  total=$(printf '%s' "$out" | sed -n 's/.*"total_items":\([0-9]*\).*/\1/p')
done
echo "items=${total:-0}"
