#!/usr/bin/env python3
"""bench-workers.py - W6 (issue 13): `feedagg serve` workers sharing 2,000 feeds, part of `make bench`.

2,000 github.repos feeds over 10 loopback ghserver.py instances (--latency-ms 50; 200 organisations
each, of 8, 18 or 28 repositories: 1, 2 or 3 pages of per_page 10). For each setting
(--settings, default sqlite,1,2,4):
  sqlite  one `feedagg serve` on a SQLite store;
  N       N `feedagg serve` workers on one PostgreSQL database (a throwaway cluster this script
          starts with initdb in a temporary directory, the test harness's settings: fsync off).
The workers start on an empty store and pull every feed (the first full pull, timed too); then,
--reps times, one refresh cycle: the servers' counters are zeroed, `POST /api/refresh` goes to the
first worker (on PostgreSQL it makes every feed due in the database, and any worker may take
them), and the cycle ends when that worker's `GET /api/refresh/status` says `done` (every feed
finished a pull leased after the request). Reported per setting (median over the cycles): cycle
wall time, requests, 304s (goal: one 304 per unchanged feed, so 2,000 requests), feeds whose first
page was requested more than once in the cycle (pulled twice; goal 0), and the CPU time the
workers used in the cycle (user + system, from /proc).

BENCH_PG_STATEMENTS=1 loads pg_stat_statements and prints, after each PostgreSQL setting, the
statements that took the database longest.

Settings are the product's defaults (interval 1h, lease_timeout 2m, max_connections_per_host 16
for all workers together); only the listen address and the store differ.
"""
import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Scripts"))
from bench_processes import Cluster, Worker  # noqa: E402 (the throwaway cluster and `feedagg serve`, shared with bench-serve.py)

SERVERS, PER_PAGE, REPOS = 10, 10, (8, 18, 28)
ORGS_PER_SERVER = 200  # --orgs-per-server (a smaller run checks the script)


def start_servers(bench, load):
    servers = []
    for s in range(SERVERS):
        orgs = {f"s{s}o{i}": {"repos": REPOS[i % 3], "members": 1} for i in range(ORGS_PER_SERVER)}
        path = os.path.join(tempfile.gettempdir(), f"bench-w6-server{s}-{os.getpid()}.json")
        with open(path, "w") as f:
            json.dump({"seed": s + 1, "orgs": orgs}, f)
        servers.append(load.Server([sys.executable, os.path.join(bench, "ghserver.py"), "--latency-ms", "50",
                                    "--config", path]))
    return servers


def write_config(folder, servers):
    path = os.path.join(folder, "feeds.yaml")
    with open(path, "w") as f:
        f.write("settings:\n  interval: 1h\n  min_refresh: 0\nfeeds:\n")
        for s, server in enumerate(servers):
            for i in range(ORGS_PER_SERVER):
                f.write(f"  - name: s{s}o{i}\n    source: github.repos\n    org: s{s}o{i}\n    per_page: {PER_PAGE}\n"
                        f"    base_url: {server.base}\n")
    return path


def totals(servers):
    stats = [server.stats() for server in servers]
    firsts = {}
    for stat in stats:
        for path, count in stat["by_path"].items():
            if path.startswith("/orgs/") and path.endswith("/repos"):
                firsts[path] = firsts.get(path, 0) + count
    return {"requests": sum(s["requests"] for s in stats), "not_modified": sum(s["not_modified_304"] for s in stats),
            "twice": sum(1 for count in firsts.values() if count > 1), "feeds_requested": len(firsts),
            "max_in_flight": max(s["max_in_flight"] for s in stats)}


def run_setting(setting, args, feedagg, servers, cluster, work):
    folder = os.path.join(work, setting)
    os.mkdir(folder)
    config = write_config(folder, servers)
    count = 1 if setting == "sqlite" else int(setting)
    db = os.path.join(folder, "feedagg.sqlite") if setting == "sqlite" else cluster.create(f"w6_{count}_{os.getpid()}")
    for server in servers:
        server.reset()
    started = time.monotonic()
    workers = [Worker(feedagg, config, db) for _ in range(count)]
    feeds = SERVERS * ORGS_PER_SERVER
    try:
        while True:  # the first full pull: every feed stored once
            listed = workers[0].get("/api/feeds")["feeds"]
            if sum(1 for feed in listed if feed.get("last_updated_at")) >= feeds:
                break
            if time.monotonic() - started > args.timeout:
                raise SystemExit(f"W6 {setting}: the first pull did not finish within {args.timeout} s")
            time.sleep(2)  # reading every feed's summary is work for the store too: not too often
        first = time.monotonic() - started
        first_totals = totals(servers)
        print(f"  W6 {setting}: first full pull {first:.1f}s, {first_totals['requests']} requests", file=sys.stderr,
              flush=True)
        if cluster and setting != "sqlite" and os.environ.get("BENCH_PG_STATEMENTS"):
            print("  the first pull's statements:\n" + cluster.statements(db.rsplit("/", 1)[1]), file=sys.stderr, flush=True)
        cycles = []
        for rep in range(args.reps):
            for server in servers:
                server.reset()
            cpu = sum(worker.cpu_seconds() for worker in workers)
            start = time.monotonic()
            workers[0].get("/api/refresh", b"")
            while not workers[0].get("/api/refresh/status")["done"]:
                if time.monotonic() - start > args.timeout:
                    raise SystemExit(f"W6 {setting}: a refresh cycle did not finish within {args.timeout} s")
                time.sleep(0.2)  # each status read on PostgreSQL reads the whole schedule: not too often
            wall = time.monotonic() - start
            cycle = totals(servers) | {"wall_s": wall, "workers_cpu_s": sum(w.cpu_seconds() for w in workers) - cpu}
            cycles.append(cycle)
            print(f"  W6 {setting} cycle {rep + 1}: {wall:.3f}s, {cycle['requests']} requests, "
                  f"{cycle['not_modified']} x 304, {cycle['twice']} feeds requested twice, "
                  f"{cycle['feeds_requested']} feeds requested, max in flight {cycle['max_in_flight']}, "
                  f"workers' CPU {cycle['workers_cpu_s']:.2f}s",
                  file=sys.stderr, flush=True)
            time.sleep(1)
    finally:
        statuses = [worker.stop() for worker in workers]
        if cluster and setting != "sqlite" and os.environ.get("BENCH_PG_STATEMENTS"):
            print("  the cycles' statements:\n" + cluster.statements(db.rsplit("/", 1)[1]), file=sys.stderr, flush=True)
    crashed = [status for status in statuses if status not in (0, None)]
    return {"setting": setting, "workers": count, "first_pull_s": first, "first_requests": first_totals["requests"],
            "cycles": cycles, "exit_statuses": statuses, "unclean_exits": len(crashed)}


def report(results, reps):
    lines = [f"== W6 (issue 13): {SERVERS * ORGS_PER_SERVER:,} feeds over {SERVERS} loopback servers (50 ms per request, 1-3 pages each), "
             f"one refresh cycle after a first full pull; medians of {reps} cycles; {os.cpu_count()} cores",
             f"  {'store, workers':22s} {'first pull':>10s} {'cycle':>9s} {'requests':>9s} {'304s':>6s} "
             f"{'pulled twice':>12s} {'CPU':>7s} {'exits':>8s}"]
    for result in results:
        cycles = result["cycles"]
        name = "SQLite, 1 process" if result["setting"] == "sqlite" else f"PostgreSQL, {result['workers']} worker" + (
            "s" if result["workers"] > 1 else "")
        wall = statistics.median(c["wall_s"] for c in cycles)
        requests = statistics.median(c["requests"] for c in cycles)
        not_modified = statistics.median(c["not_modified"] for c in cycles)
        twice = max(c["twice"] for c in cycles)
        cpu = statistics.median(c["workers_cpu_s"] for c in cycles)
        exits = "clean" if not result["unclean_exits"] else f"{result['unclean_exits']} not 0"
        lines.append(f"  {name:22s} {result['first_pull_s']:9.1f}s {wall:8.3f}s {requests:9.0f} {not_modified:6.0f} "
                     f"{twice:12d} {cpu:6.2f}s {exits:>8s}")
    four = [r for r in results if r["setting"] == "4"]
    if four and SERVERS * ORGS_PER_SERVER == 2000:
        wall = statistics.median(c["wall_s"] for c in four[0]["cycles"])
        lines.append(f"  goal: 4 workers refresh 2,000 unchanged feeds in <= 3 s: {wall:.3f} s, "
                     f"{'met' if wall <= 3 else 'NOT MET'}; goal: one 304 per feed, none pulled twice")
    return "\n".join(lines)


def main():
    global ORGS_PER_SERVER
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--settings", default="sqlite,1,2,4")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--bench", default=os.path.join(ROOT, "../shared/bench"))
    parser.add_argument("--out", default=os.path.join(ROOT, "bench-out"))
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--orgs-per-server", type=int, default=ORGS_PER_SERVER,
                        help="feeds per server (200: the issue's 2,000 feeds)")
    args = parser.parse_args()
    ORGS_PER_SERVER = args.orgs_per_server
    feedagg = os.path.abspath(os.environ.get("FEEDAGG_BIN", os.path.join(ROOT, ".build/release/feedagg")))
    # bench-scale.py's ghserver.py launcher (free port, counters).
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_scale", os.path.join(ROOT, "Scripts/bench-scale.py"))
    load = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(load)
    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    work = tempfile.mkdtemp(prefix="bench-w6-")
    cluster = None
    servers = start_servers(args.bench, load)
    results = []
    try:
        if any(s != "sqlite" for s in settings):
            # A folder of its own (the server's account cannot enter `work`, which is root's, mode 700).
            cluster = Cluster(tempfile.mkdtemp(prefix="bench-w6-pg-"))
        for setting in settings:
            results.append(run_setting(setting, args, feedagg, servers, cluster, work))
    finally:
        for server in servers:
            server.stop()
        if cluster:
            cluster.stop()
            shutil.rmtree(cluster.folder, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "workers.json"), "w") as f:
        json.dump(results, f, indent=1)
    text = report(results, args.reps)
    with open(os.path.join(args.out, "workers.txt"), "w") as f:
        f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
