#!/usr/bin/env bash
# Re-records Fixtures/ for every feed of feeds.yaml with `feedagg record`, from the bench
# server (../shared/bench/ghserver.py), a loopback imitation of GitHub REST and 500px.
# The exchanges are written as if from each feed's own base_url (api.github.com,
# api.500px.com), with credentials and cookies scrubbed. No internet is used.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release/feedagg}
SERVER=${SERVER:-../shared/bench/ghserver.py}
[ -x "$BIN" ] || { echo "build first: make release" >&2; exit 2; }
[ -f "$SERVER" ] || { echo "missing $SERVER" >&2; exit 2; }

work=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
cat >"$work/sizes.json" <<'JSON'
{"seed": 2014, "orgs": {"facebook": {"repos": 75, "members": 0}, "xebia-france": {"repos": 0, "members": 45}},
 "public_gists": 300, "gists_per_user": 40, "photos": 120}
JSON
python3 "$SERVER" --port 0 --port-file "$work/port" --config "$work/sizes.json" >"$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(head -n1 "$work/port" | tr -dc 0-9)
echo "bench server on 127.0.0.1:$port"

feeds=$(grep -E '^  - name: ' feeds.yaml | sed 's/.*name: //')
for feed in $feeds; do
  rm -rf "Fixtures/$feed"
  "$BIN" record --config feeds.yaml --feed "$feed" --out "Fixtures/$feed" --base-url "http://127.0.0.1:$port"
done
# The generator spreads each feed's dates over 2010-2022 in its own way (repositories never
# later than 2016), so a newest-first stream of the raw recording would show one or two feeds
# only. Shift every date of a feed by one offset (order and spacing kept) so that each feed's
# newest item falls on the recording's reference day, as on the live APIs.
python3 - $feeds <<'PY'
import datetime as dt, json, pathlib, re, sys
KEYS = {"created_at", "updated_at", "pushed_at", "taken_at"}
REF = dt.datetime(2026, 11, 20, 9, 0, tzinfo=dt.timezone.utc)
def parse(s): return dt.datetime.fromisoformat(s.replace("Z", "+00:00"))
def fmt(d, like):
    if like.endswith("Z"): return d.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return d.astimezone(parse(like).tzinfo).isoformat()
def walk(v, f):
    if isinstance(v, dict): return {k: (f(x) if k in KEYS and isinstance(x, str) else walk(x, f)) for k, x in v.items()}
    if isinstance(v, list): return [walk(x, f) for x in v]
    return v
for i, feed in enumerate(sys.argv[1:]):
    files = sorted(p for p in pathlib.Path("Fixtures", feed).glob("*.json") if p.name != "feed.json")
    docs = [json.loads(p.read_text()) for p in files]
    dates = []
    walk([d["response"].get("body") for d in docs], lambda s: dates.append(parse(s)) or s)
    if not dates: continue
    offset = (REF - dt.timedelta(hours=3 * i)) - max(dates)
    for p, d in zip(files, docs):
        d["response"]["body"] = walk(d["response"].get("body"), lambda s: fmt(parse(s) + offset, s))
        p.write_text(json.dumps(d, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"{feed}: dates shifted by {offset.days} days")
PY
echo "recorded: $(find Fixtures -name '*.json' ! -name feed.json | wc -l) exchanges"
