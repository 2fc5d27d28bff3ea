#!/usr/bin/env python3
"""bench-serve.py - READ-SERVE (issue 26): reading a big store by `show` and by `serve`, SQLite and PostgreSQL.

Part of `make bench`; alone: `Scripts/bench.sh --workloads READ-SERVE` (BENCH_SERVE_ARGS passes more
arguments), or this script directly. For each engine (--engines, default sqlite,postgres) and each
size (--sizes FEEDSxITEMS, default 100x500,100x10000: 50,000 and 1,000,000 items):

  store   written by .build/release/feedagg-store-gen (seed --seed): SQLite into
          .build/bench-store/read-FxI-seedS-g2.sqlite (shared with READ, kept); PostgreSQL into a
          throwaway cluster this script starts (initdb in a temporary folder, 127.0.0.1, a free
          port), cached as a `pg_dump -Fc` in .build/bench-store/pg-FxI-seedS-DIGEST.dump (DIGEST: of
          the PostgreSQL store's sources, so a changed schema regenerates it) and restored next time.
  show    (--parts show) `feedagg show --format json --per-page 50`: page 1, after a cursor from
          the middle of the stream, the last page; --show-reps repetitions after a warm-up, each
          minus `feedagg --help` of the same repetition (median of the differences).
  serve   (--parts serve) `feedagg serve` on the store, with a feeds.yaml declaring the generated
          feeds (feed000…) as github.repos feeds of a loopback port nothing listens on and a 7d
          interval: serve's start-up pulls fail at once (items untouched; on SQLite the cached
          file then records the failed attempt), then nothing is due for a week. Cursors are collected by walking /api/items (limit = items / --cursors, at most 500)
          following next_cursor; then `wrk -t2 -c16 -d10s --latency` (--wrk-*):
            random  /api/items?limit=50&after=CURSOR, a random cursor per request (a wrk Lua script);
            first   /api/items?limit=50 and /stream.atom?limit=50, and each with the If-None-Match of
                    its ETag (taken from one GET first; every answer is then a 304);
            healthz /healthz, which reads no store (the server's own ceiling, for scale);
          req/s, p99, errors; then serve's VmHWM and VmRSS (/proc/PID/status).
  w5      (--parts w5) W5-PG: the first `feedagg pull` of one organisation of 50,000 repositories
          (ghserver.py --latency-ms 20 --org huge:50000 --orgs 0, as W5) into SQLite and into
          PostgreSQL, alternately, --reps times; the ratio of each pair (goal <= 1.5x).

Each figure is printed next to issue 26's goal (stated for 1,000,000 items; smaller sizes are shown
against the same goals for reference). Raw results go to OUT/serve.json, the report to OUT/serve.txt.
"""
import argparse
import glob
import hashlib
import http.client
import importlib.util
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from datetime import datetime

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Scripts"))
from bench_processes import Cluster, Worker, free_port  # noqa: E402

spec = importlib.util.spec_from_file_location("bench_scale", os.path.join(ROOT, "Scripts/bench-scale.py"))
scale = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scale)  # timed(), Server (ghserver.py), pull(), feeds_yaml(), sqlite_store(), median()
median = scale.median
ENGINES = {"sqlite": "SQLite", "postgres": "PostgreSQL"}
GENERATOR = os.path.join(ROOT, ".build/release/feedagg-store-gen")
CACHE = os.path.join(ROOT, ".build/bench-store")


def log(text):
    print("  " + text, file=sys.stderr, flush=True)


def postgres_digest():
    """A digest of the sources that decide what the PostgreSQL store writes (the dump's cache key)."""
    digest = hashlib.sha1()
    for path in sorted(glob.glob(os.path.join(ROOT, "Sources/PostgresFeedStore/*.swift"))
                       + glob.glob(os.path.join(ROOT, "Sources/FeedStorage/**/*.swift"), recursive=True)
                       + glob.glob(os.path.join(ROOT, "Sources/feedagg-store-gen/*.swift"))):
        with open(path, "rb") as f:
            digest.update(os.path.relpath(path, ROOT).encode() + b"\0" + f.read())
    return digest.hexdigest()[:12]


def postgres_store(cluster, feeds, items, seed):
    """A database of `feeds` x `items` (seed `seed`) in `cluster`: restored from the cached dump, or
    generated and dumped. Returns (URL, database name, how it was made, seconds)."""
    name = f"serve_{feeds}x{items}_s{seed}"
    url = cluster.create(name)
    dump = os.path.join(CACHE, f"pg-{feeds}x{items}-seed{seed}-{postgres_digest()}.dump")
    start = time.monotonic()
    if os.path.exists(dump):
        with open(dump, "rb") as f:  # read by this process: the server's account may not enter .build
            subprocess.run(cluster.command("pg_restore", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres",
                                           "-d", name, "--no-owner"), stdin=f, check=True, stdout=subprocess.DEVNULL)
        # A restore brings no planner statistics (PostgreSQL 15's dumps hold none), no hint bits and
        # no visibility map (every index-only scan visits the heap, the first reads write hint
        # bits); a database in use has them from autovacuum, which would otherwise run at some point
        # during the measurement (a one-shot `show` took 95 ms above `--help` right after a restore
        # and 30 ms once vacuumed).
        subprocess.run(cluster.command("psql", "-q", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres",
                                       "-d", name, "-c", "VACUUM ANALYZE"), check=True, stdout=subprocess.DEVNULL)
        return url, name, f"restored from {os.path.relpath(dump, ROOT)}", time.monotonic() - start
    subprocess.run([GENERATOR, "--db", url, "--feeds", str(feeds), "--items", str(items), "--seed", str(seed)],
                   check=True, stdout=sys.stderr)
    subprocess.run(cluster.command("psql", "-q", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres",
                                   "-d", name, "-c", "VACUUM ANALYZE"), check=True, stdout=subprocess.DEVNULL)
    generated = time.monotonic() - start
    os.makedirs(CACHE, exist_ok=True)
    with open(dump + ".tmp", "wb") as f:
        subprocess.run(cluster.command("pg_dump", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres", "-Fc",
                                       name), stdout=f, check=True)
    os.rename(dump + ".tmp", dump)
    for stale in glob.glob(os.path.join(CACHE, f"pg-{feeds}x{items}-seed{seed}-*.dump")):  # of older sources
        if stale != dump:
            os.unlink(stale)
    return url, name, "generated by feedagg-store-gen (dump cached)", generated


def show_latency(feedagg, db, cursor, reps):
    """`show` page 1, after `cursor`, and the last page, each minus `--help`, over `reps` repetitions."""
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-serve-show-") as cwd:  # no feeds.yaml: the stored feeds
        show = [feedagg, "show", "--db", db, "--format", "json", "--per-page", "50"]
        for rep in range(reps + 1):
            help_wall, help_rss, _ = scale.timed([feedagg, "--help"], cwd=cwd)
            first_wall, first_rss, out = scale.timed(show + ["--page", "1"], cwd=cwd)
            first = json.loads(out)
            after_wall, after_rss, _ = scale.timed(show + ["--after", cursor or first["next_cursor"]], cwd=cwd)
            last_wall, last_rss, out = scale.timed(show + ["--page", str(first["total_pages"])], cwd=cwd)
            if rep == 0:
                log(f"show warm-up: --help {help_wall * 1000:.1f}ms page1 {first_wall * 1000:.1f}ms after "
                    f"{after_wall * 1000:.1f}ms last(p{first['total_pages']}) {last_wall * 1000:.1f}ms, "
                    f"{len(json.loads(out)['items'])} items on the last page")
                continue
            runs.append({"help_s": help_wall, "help_rss_kb": help_rss, "page1_s": first_wall, "after_s": after_wall,
                         "last_s": last_wall, "rss_kb": max(first_rss, after_rss, last_rss),
                         "total_items": first["total_items"]})
    result = {"runs": runs, "help_ms": median([r["help_s"] for r in runs]) * 1000,
              "rss_mb": median([r["rss_kb"] for r in runs]) / 1024}
    for key in ("page1", "after", "last"):
        result[f"{key}_ms"] = median([r[f"{key}_s"] - r["help_s"] for r in runs]) * 1000
    log(f"show: --help {result['help_ms']:.1f}ms; above it: page1 {result['page1_ms']:+.1f}ms after "
        f"{result['after_ms']:+.1f}ms last {result['last_ms']:+.1f}ms; peak RSS {result['rss_mb']:.1f}MB")
    return result


class Client:
    """One keep-alive HTTP/1.1 connection to the server (what the cursor walk uses)."""

    def __init__(self, base):
        parsed = urllib.parse.urlsplit(base)
        self.connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=120)

    def get(self, path, headers=None):
        self.connection.request("GET", path, headers=headers or {})
        response = self.connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()


def wait_until_nothing_is_due(server, feeds, timeout=300):
    """Waits until no declared feed is pulling or due within the hour (serve's start-up pulls, if the
    store's last attempts made any due, have failed and backed off)."""
    deadline = time.monotonic() + timeout
    while True:
        listed = server.get("/api/refresh/status")["feeds"]
        later = time.time() + 3600
        quiet = sum(1 for feed in listed if feed["state"] != "pulling" and feed.get("next_pull_at")
                    and datetime.fromisoformat(feed["next_pull_at"].replace("Z", "+00:00")).timestamp() > later)
        if len(listed) == feeds and quiet == feeds:
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"serve's feeds did not settle within {timeout} s ({quiet} of {feeds} not due)")
        time.sleep(1)


def collect_cursors(base, total, wanted, seed):
    """Walks the stream through /api/items following next_cursor; returns (a sample of ~`wanted` cursors,
    the one in the middle of the stream, the walk's pages, seconds, the limit it used)."""
    limit = max(1, min(500, total // max(1, wanted)))
    client, cursors, pages, start = Client(base), [], 0, time.monotonic()
    path = f"/api/items?limit={limit}"
    while True:
        status, _, body = client.get(path)
        if status != 200:
            raise SystemExit(f"GET {path}: {status} {body[:300]!r}")
        pages += 1
        cursor = json.loads(body).get("next_cursor")
        if not cursor:
            break
        cursors.append(cursor)
        path = f"/api/items?limit={limit}&after={urllib.parse.quote(cursor, safe='')}"
    walked = time.monotonic() - start
    sample = random.Random(seed).sample(cursors, min(wanted, len(cursors)))
    return sample, cursors[len(cursors) // 2] if cursors else None, pages, walked, limit


RANDOM_LUA = """-- one random path of PATHS per request, each wrk thread seeded apart
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
end
function init(args)
  paths = {}
  for line in io.lines("PATHS") do paths[#paths + 1] = line end
  math.randomseed(os.time() * 1000 + id)
end
function request()
  return wrk.format("GET", paths[math.random(#paths)])
end
"""


def parse_duration_ms(text):
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]


def wrk(args, url, extra=()):
    """One wrk run: req/s, p50/p99 in ms, errors (non-2xx/3xx, socket errors)."""
    command = ["wrk", f"-t{args.wrk_threads}", f"-c{args.wrk_connections}", f"-d{args.wrk_duration}s", "--latency",
               *extra, url]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    result = {"req_s": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
              "requests": int(re.search(r"(\d+) requests in", out).group(1))}
    for percent in ("50", "99"):
        match = re.search(rf"^\s+{percent}%\s+([\d.]+\w+)", out, re.M)
        result[f"p{percent}_ms"] = parse_duration_ms(match.group(1)) if match else float("nan")
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sockets = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    result["errors"] = (int(bad.group(1)) if bad else 0) + (sum(map(int, sockets.groups())) if sockets else 0)
    return result


def quiet_server(feedagg, db, feeds, folder):
    """`feedagg serve` on `db` with a feeds.yaml (in `folder`) declaring the generated feeds as
    github.repos feeds of a loopback port nothing listens on, every 7 days: its start-up pulls fail
    at connect (the items stay) and nothing falls due again. Returns the Worker."""
    dead = free_port()
    os.makedirs(folder)
    config = os.path.join(folder, "feeds.yaml")
    with open(config, "w") as f:
        f.write("settings:\n  interval: 7d\nfeeds:\n")
        for n in range(feeds):
            f.write(f"  - name: feed{n:03d}\n    source: github.repos\n    org: feed{n:03d}\n"
                    f"    base_url: http://127.0.0.1:{dead}\n")
    return Worker(feedagg, config, db)


def serve_load(args, feedagg, db, feeds, work):
    """`feedagg serve` on `db` under wrk: random cursors, first pages, first pages revalidated; RSS after."""
    folder = os.path.join(work, f"serve-{os.path.basename(db)[:40]}-{time.monotonic_ns()}")
    server = quiet_server(feedagg, db, feeds, folder)
    result = {}
    try:
        start = time.monotonic()
        wait_until_nothing_is_due(server, feeds)
        result["startup_pulls_s"] = time.monotonic() - start
        status, _, body = Client(server.base).get("/api/items?limit=50")
        total = result["total_items"] = json.loads(body)["total_items"]  # fewer than feeds x items: duplicates
        cursors, middle, pages, walked, limit = collect_cursors(server.base, total, args.cursors, args.seed)
        result |= {"cursors": len(cursors), "walk_pages": pages, "walk_s": walked, "walk_limit": limit,
                   "middle_cursor": middle}
        log(f"serve {server.base}: nothing due after {result['startup_pulls_s']:.1f}s; walked {pages} pages "
            f"of {limit} in {walked:.1f}s ({walked / pages * 1000:.1f} ms a page), {len(cursors)} cursors")
        paths = os.path.join(folder, "paths.txt")
        with open(paths, "w") as f:
            for cursor in cursors:
                f.write(f"/api/items?limit=50&after={urllib.parse.quote(cursor, safe='')}\n")
        script = os.path.join(folder, "random.lua")
        with open(script, "w") as f:
            f.write(RANDOM_LUA.replace("PATHS", paths))
        runs = [("random", "/api/items?limit=50", ["-s", script])] if cursors else []
        for key, path in (("items", "/api/items?limit=50"), ("atom", "/stream.atom?limit=50")):
            status, headers, _ = Client(server.base).get(path)
            etag = {k.lower(): v for k, v in headers.items()}.get("etag")
            revalidated, _, _ = Client(server.base).get(path, {"If-None-Match": etag}) if etag else (None, None, None)
            if status != 200 or revalidated != 304:
                raise SystemExit(f"GET {path}: {status}, ETag {etag!r}, revalidated: {revalidated} (want 200, then 304)")
            runs += [(key, path, []), (f"{key}_304", path, ["-H", f"If-None-Match: {etag}"])]
        runs.append(("healthz", "/healthz", []))  # no store read, no rendering: the server's own floor
        for key, path, extra in runs:
            result[key] = wrk(args, server.base + path, extra)
            log(f"wrk {key}: {result[key]['req_s']:.0f} req/s, p50 {result[key]['p50_ms']:.2f}ms p99 "
                f"{result[key]['p99_ms']:.2f}ms, {result[key]['errors']} errors")
        result["vmhwm_kb"], result["vmrss_kb"] = server.memory_kb()
        log(f"serve RSS after the load: VmHWM {result['vmhwm_kb'] / 1024:.1f}MB, VmRSS {result['vmrss_kb'] / 1024:.1f}MB")
    finally:
        result["exit"] = server.stop()
    return result


def alternating_w5(args, feedagg, work, variants, prepare, done=None):
    """W5's first pull (ghserver.py --latency-ms 20, one organisation of 50,000 repos) in each of two
    `variants`, alternating which goes first, --reps times. `prepare(variant, rep, folder, config)`
    returns the store to pull into (after editing the feeds.yaml at `config` if it wants);
    `done(variant, rep, db)` cleans up after a pull (by default the folder goes). Returns one dict
    per repetition: variant -> wall_s, rss_kb, items, requests."""
    server = scale.Server([sys.executable, os.path.join(args.bench, "ghserver.py"), "--latency-ms", "20",
                           "--org", "huge:50000", "--orgs", "0"])
    runs = []
    try:
        for rep in range(args.reps):
            run = {}
            for variant in (variants if rep % 2 == 0 else variants[::-1]):
                folder = os.path.join(work, f"w5-{rep}-{variant}")
                os.mkdir(folder)
                config = os.path.join(folder, "feeds.yaml")
                scale.feeds_yaml(config, server.base, ["huge"])
                db = prepare(variant, rep, folder, config)
                server.reset()
                wall, rss, items = scale.pull(feedagg, config, db)
                run[variant] = {"wall_s": wall, "rss_kb": rss, "items": items, "requests": server.stats()["requests"]}
                if done:
                    done(variant, rep, db)
                shutil.rmtree(folder)
            runs.append(run)
    finally:
        server.stop()
    return runs


def w5_pg(args, feedagg, cluster, work):
    """The first pull of 50,000 repos into SQLite and into PostgreSQL, alternately, --reps times."""
    def prepare(engine, rep, folder, config):
        return os.path.join(folder, "feedagg.sqlite") if engine == "sqlite" else cluster.create(f"w5pg_{rep}")

    def done(engine, rep, db):
        if engine == "postgres":
            cluster.psql("postgres", f"DROP DATABASE w5pg_{rep}")

    runs = alternating_w5(args, feedagg, work, ("sqlite", "postgres"), prepare, done)
    for rep, run in enumerate(runs):
        run["ratio"] = run["postgres"]["wall_s"] / run["sqlite"]["wall_s"]
        log(f"W5-PG rep{rep + 1}: SQLite {run['sqlite']['wall_s']:.2f}s ({run['sqlite']['items']} items), "
            f"PostgreSQL {run['postgres']['wall_s']:.2f}s ({run['postgres']['items']} items): {run['ratio']:.2f}x")
    return runs


def report(results, args):
    width = 24
    lines = [f"== READ-SERVE (issue 26): show and serve on generated stores, both engines; wrk -t{args.wrk_threads} "
             f"-c{args.wrk_connections} -d{args.wrk_duration}s on the same {os.cpu_count()} cores; load average "
             f"{os.getloadavg()[0]:.1f} at the end",
             f"  {'':42s}" + "".join(f"{ENGINES[e]:>{width}s}" for e in args.engine_list) + "   goal (at 1,000,000 items)"]

    def row(name, cells, goal):
        lines.append(f"  {name:42s}" + "".join(f"{cell:>{width}s}" for cell in cells) + f"   {goal}")

    def cell(entry, value, fmt, ok):
        if entry is None or value is None or value != value:
            return "-"
        return f"{fmt.format(value)} {'met' if ok(value) else 'NOT MET'}"

    for size in args.size_list:
        feeds, items = size
        by_engine = [results["sizes"].get(f"{e}-{feeds}x{items}") for e in args.engine_list]
        shown = [r["serve"]["total_items"] if r and "serve" in r else r["show"]["runs"][0]["total_items"]
                 for r in by_engine if r and ("serve" in r or "show" in r)]
        lines.append(f"{feeds} feeds x {items:,} = {feeds * items:,} items (seed {args.seed}), "
                     f"{'/'.join(f'{n:,}' for n in sorted(set(shown)))} entries in the stream (shared URLs shown once)")
        row("store", [f"{r['store_s']:.0f} s, {r['store_how'].split()[0]}" if r else "-" for r in by_engine], "")
        shows = [r.get("show") if r else None for r in by_engine]
        if any(shows):
            row("feedagg --help", [f"{s['help_ms']:.1f} ms" if s else "-" for s in shows], "")
            for key, name in (("page1", "show page 1 above --help"), ("after", "show after a mid cursor above --help"),
                              ("last", "show last page above --help")):
                row(name, [cell(s, s and s[f"{key}_ms"], "{:+.1f} ms", lambda v: v <= 20) for s in shows], "<= 20 ms")
            row("show peak RSS", [f"{s['rss_mb']:.1f} MB" if s else "-" for s in shows], "")
        serves = [r.get("serve") if r else None for r in by_engine]
        if any(serves):
            row("cursor walk (limit, ms a page)", [f"{s['walk_limit']}, {s['walk_s'] / s['walk_pages'] * 1000:.1f} ms"
                                                   if s else "-" for s in serves], "")

            def load(key, field):
                return [s.get(key, {}).get(field) if s else None for s in serves]

            row("/api/items random cursor req/s", [cell(s, v, "{:,.0f}", lambda v: v >= 2000)
                                                  for s, v in zip(serves, load("random", "req_s"))], ">= 2,000 req/s")
            row("/api/items random cursor p99", [cell(s, v, "{:.1f} ms", lambda v: v <= 20)
                                                for s, v in zip(serves, load("random", "p99_ms"))], "<= 20 ms")
            for key, name in (("items", "/api/items?limit=50"), ("atom", "/stream.atom?limit=50")):
                row(f"{name} first page req/s", [cell(s, v, "{:,.0f}", lambda v: v >= 10000)
                                                 for s, v in zip(serves, load(key, "req_s"))], ">= 10,000 req/s")
                row(f"{name} If-None-Match req/s", [cell(s, v, "{:,.0f}", lambda v: v >= 20000)
                                                    for s, v in zip(serves, load(f"{key}_304", "req_s"))],
                    ">= 20,000 req/s")
            row("/healthz req/s (no store read, for scale)", [f"{v:,.0f}" if v else "-" for v in load("healthz", "req_s")],
                "")
            row("serve RSS after the load (VmHWM)", [cell(s, s and s["vmhwm_kb"] / 1024, "{:.1f} MB", lambda v: v <= 80)
                                                     for s in serves], "<= 80 MB")
            errors = [sum(s.get(k, {}).get("errors", 0) for k in ("random", "items", "items_304", "atom", "atom_304"))
                      if s else None for s in serves]
            row("wrk errors (non-2xx/3xx, socket)", [str(e) if e is not None else "-" for e in errors], "0")
    runs = results.get("w5_pg")
    if runs:
        sqlite, postgres = median([r["sqlite"]["wall_s"] for r in runs]), median([r["postgres"]["wall_s"] for r in runs])
        ratio = median([r["ratio"] for r in runs])
        lines.append(f"W5-PG: first pull of 50,000 repos (ghserver.py, 20 ms, 500 pages), {len(runs)} reps each, "
                     f"medians: SQLite {sqlite:.2f} s, PostgreSQL {postgres:.2f} s")
        lines.append(f"  {'PostgreSQL / SQLite (same rep)':42s}{ratio:>{width - 8}.2f}x {'met' if ratio <= 1.5 else 'NOT MET'}"
                     f"   goal <= 1.5x")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engines", default="sqlite,postgres")
    parser.add_argument("--sizes", default="100x500,100x10000", help="FEEDSxITEMS per feed, comma-separated")
    parser.add_argument("--parts", default="show,serve,w5")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reps", type=int, default=3, help="W5-PG repetitions")
    parser.add_argument("--show-reps", type=int, default=11)
    parser.add_argument("--cursors", type=int, default=2000)
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument("--wrk-connections", type=int, default=16)
    parser.add_argument("--wrk-duration", type=int, default=10)
    parser.add_argument("--bench", default=os.path.join(ROOT, "../shared/bench"))
    parser.add_argument("--out", default=os.path.join(ROOT, "bench-out"))
    args = parser.parse_args()
    args.engine_list = [e.strip().lower() for e in args.engines.split(",") if e.strip()]
    args.size_list = [tuple(int(n) for n in s.lower().split("x")) for s in args.sizes.split(",") if s.strip()]
    parts = {p.strip().lower() for p in args.parts.split(",") if p.strip()}
    if unknown := set(args.engine_list) - set(ENGINES):
        raise SystemExit(f"unknown engine(s) {', '.join(unknown)}: sqlite, postgres")
    feedagg = os.path.abspath(os.environ.get("FEEDAGG_BIN", os.path.join(ROOT, ".build/release/feedagg")))
    if not os.access(GENERATOR, os.X_OK):
        raise SystemExit("build first: make bench (it builds feedagg-store-gen)")
    if "serve" in parts and not shutil.which("wrk"):
        raise SystemExit("READ-SERVE's serve part needs wrk (Debian package 'wrk'; `make deps` installs it)")
    results = {"config": {k: v for k, v in vars(args).items()} | {"date": time.strftime("%Y-%m-%d %H:%M:%S")},
               "sizes": {}}
    cluster, work = None, tempfile.mkdtemp(prefix="bench-serve-")
    try:
        if "postgres" in args.engine_list:
            cluster = Cluster(tempfile.mkdtemp(prefix="bench-serve-pg-"))
        for feeds, items in args.size_list if parts & {"show", "serve"} else []:
            for engine in args.engine_list:
                start = time.monotonic()
                if engine == "sqlite":
                    db, generated = scale.sqlite_store(feeds, items, args.seed)
                    how = "generated by feedagg-store-gen" if generated else f"cached {os.path.relpath(db, ROOT)}"
                    spent, name = generated or (time.monotonic() - start), None
                else:
                    db, name, how, spent = postgres_store(cluster, feeds, items, args.seed)
                log(f"{ENGINES[engine]} {feeds}x{items}: {how} in {spent:.1f}s")
                entry = {"store": db if engine == "sqlite" else db.rsplit("/", 1)[1], "store_how": how, "store_s": spent}
                if "serve" in parts:
                    entry["serve"] = serve_load(args, feedagg, db, feeds, work)
                if "show" in parts:
                    if "serve" not in parts:  # a cursor from the middle: page total/2 of `show` itself
                        _, _, out = scale.timed([feedagg, "show", "--db", db, "--format", "json", "--per-page", "50",
                                                 "--page", str(max(1, feeds * items // 100))], cwd=work)
                        middle = json.loads(out)["next_cursor"]
                    else:
                        middle = entry["serve"].pop("middle_cursor", None)
                    entry["show"] = show_latency(feedagg, db, middle, args.show_reps)
                results["sizes"][f"{engine}-{feeds}x{items}"] = entry
                if name:
                    cluster.psql("postgres", f"DROP DATABASE {name}")
        if "w5" in parts and "postgres" in args.engine_list:
            results["w5_pg"] = w5_pg(args, feedagg, cluster, work)
    finally:
        if cluster:
            cluster.stop()
            shutil.rmtree(cluster.folder, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "serve.json"), "w") as f:
        json.dump(results, f, indent=1)
    text = report(results, args)
    with open(os.path.join(args.out, "serve.txt"), "w") as f:
        f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
