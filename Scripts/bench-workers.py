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
import glob
import json
import os
import pwd
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVERS, PER_PAGE, REPOS = 10, 10, (8, 18, 28)
ORGS_PER_SERVER = 200  # --orgs-per-server (a smaller run checks the script)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A throwaway PostgreSQL cluster on 127.0.0.1 (as the test harness starts one)."""

    def __init__(self, folder):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            raise SystemExit("W6 needs PostgreSQL (Debian package 'postgresql'; `make deps` installs it)")
        self.bin = os.path.dirname(bins[-1])
        self.folder, self.data = folder, os.path.join(folder, "data")
        self.account = None
        if os.geteuid() == 0:  # the server refuses to run as root: run it as the package's account
            self.account = pwd.getpwnam("postgres")
            os.chown(folder, self.account.pw_uid, self.account.pw_gid)
        self.run("initdb", "-D", self.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync",
                 "--no-instructions")
        with open(os.path.join(self.data, "postgresql.conf"), "a") as conf:
            conf.write(f"\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{folder}'\nmax_connections = 300\n"
                       "shared_buffers = 64MB\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                       "log_min_messages = warning\n")
            if os.environ.get("BENCH_PG_STATEMENTS"):  # where the database's time goes (reported per setting)
                conf.write("shared_preload_libraries = 'pg_stat_statements'\n")
        self.port = free_port()
        self.run("pg_ctl", "start", "-w", "-s", "-D", self.data, "-l", os.path.join(folder, "postgres.log"),
                 "-o", f"-p {self.port}")

    def run(self, program, *arguments):
        command = [os.path.join(self.bin, program), *arguments]
        if self.account:
            command = ["setpriv", f"--reuid={self.account.pw_uid}", f"--regid={self.account.pw_gid}", "--init-groups",
                       "--"] + command
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=self.folder)

    def create(self, name):
        self.run("psql", "-q", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-c", f"CREATE DATABASE {name}")
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def psql(self, database, sql):
        command = [os.path.join(self.bin, "psql"), "-q", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                   "-d", database, "-c", sql]
        return subprocess.run(command, check=True, capture_output=True, text=True).stdout

    def statements(self, database):
        """The 12 statements that took the database longest since the last call (BENCH_PG_STATEMENTS=1)."""
        self.psql(database, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        top = self.psql(database, "SELECT calls, round(total_exec_time::numeric, 1) AS total_ms, "
                        "round(mean_exec_time::numeric, 3) AS mean_ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) "
                        "AS query FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 12")
        self.psql(database, "SELECT pg_stat_statements_reset()")
        return top

    def stop(self):
        self.run("pg_ctl", "stop", "-s", "-m", "fast", "-D", self.data)


class Worker:
    """One `feedagg serve --listen 127.0.0.1:0`; its standard error is kept."""

    def __init__(self, feedagg, config, db):
        self.process = subprocess.Popen([feedagg, "serve", "--listen", "127.0.0.1:0", "--config", config, "--db", db],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        text=True, cwd=os.path.dirname(config))
        self.lines, self.base = [], None
        ready = threading.Event()

        def read():
            for line in self.process.stderr:
                self.lines.append(line.rstrip("\n"))
                if line.startswith("serving http://"):
                    self.base = line.split()[1]
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(120) or not self.base:
            self.process.kill()
            raise SystemExit("feedagg serve did not start:\n" + "\n".join(self.lines[-20:]))

    def get(self, path, body=None):
        # A POST says it is a program, not a cross-site form (feedagg serve refuses simple state changes).
        headers = {"X-Feedagg-Client": "bench-workers"} if body is not None else {}
        request = urllib.request.Request(self.base + path, data=body, method="POST" if body is not None else "GET",
                                         headers=headers)
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read())

    def cpu_seconds(self):
        """User and system CPU the process used so far."""
        with open(f"/proc/{self.process.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self.process.returncode


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
