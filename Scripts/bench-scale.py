#!/usr/bin/env python3
"""bench-scale.py - how feedagg's cost grows (issue 15), part of `make bench`.

Workloads (`--workloads`, comma-separated; Scripts/bench.sh --workloads W5,READ,GROWTH runs them alone):
  W5      one big feed: ghserver.py --latency-ms 20 --org huge:50000 --orgs 0 (500 pages of 100).
          First `feedagg pull` (wall, peak RSS, requests) next to `curl -s --parallel --parallel-max 16`
          fetching the same 500 pages in the same run; the store's bytes after the pull and a
          checkpoint (TRUNCATE), bytes per item and where they go (dbstat); a second pull of the
          unchanged feed (wall, requests, 304s).
  READ    read latency on a generated store of --read-feeds x --read-items items (default 100 x
          10,000), written by .build/release/feedagg-store-gen through FeedStore's real commit path
          and kept in .build/bench-store/ for later runs: `show --page 1`, `show --after CURSOR`
          (the cursor of page 1) and the last page, each minus `feedagg --help` in the same
          repetition, with peak RSS.
  GROWTH  disk growth: a W1-sized store (5 orgs x 1,000 repos) refreshed --growth-refreshes times
          (default 30), 1 % of the repositories changing before each refresh
          (Scripts/ghserver-churn.py), store bytes after each refresh and a checkpoint.

Every wall time is the whole process (`/usr/bin/time -v`, which also gives the peak RSS); the table
gives medians over --reps repetitions after one discarded warm-up. Results also go to OUT/scale.json.
"""
import argparse
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd, cwd=None):
    """Runs `cmd` under /usr/bin/time -v: (wall seconds, peak RSS in KiB, stdout)."""
    with tempfile.NamedTemporaryFile(mode="r", suffix=".time") as report:
        start = time.monotonic()
        done = subprocess.run(["/usr/bin/time", "-v", "-o", report.name] + cmd, cwd=cwd, capture_output=True, text=True)
        wall = time.monotonic() - start
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stderr[-3000:]}")
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", report.read()).group(1))
    return wall, rss, done.stdout


class Server:
    """ghserver.py (or a wrapper of it) on 127.0.0.1, on a free port."""

    def __init__(self, command):
        self.portfile = tempfile.mktemp(prefix="ghserver-port-")
        self.process = subprocess.Popen(command + ["--port", "0", "--port-file", self.portfile],
                                        stderr=subprocess.DEVNULL)
        for _ in range(1200):
            if os.path.exists(self.portfile) and open(self.portfile).read().strip():
                break
            if self.process.poll() is not None:
                raise SystemExit(f"the server exited: {' '.join(command)}")
            time.sleep(0.05)
        self.base = f"http://127.0.0.1:{int(open(self.portfile).read().split()[0])}"

    def control(self, path, body=None):
        request = urllib.request.Request(self.base + path, data=body, method="POST" if body is not None else "GET")
        with urllib.request.urlopen(request) as response:
            return json.loads(response.read())

    def reset(self):
        self.control("/__reset", b"{}")

    def stats(self):
        return self.control("/__stats")

    def stop(self):
        self.process.terminate()
        self.process.wait()
        os.unlink(self.portfile)


def store_bytes(path):
    """Checkpoints the store's WAL (TRUNCATE) and returns the bytes of the file and its WAL."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))


def dbstat(path):
    """Bytes per table and index (dbstat), largest first, and the item columns' payload bytes."""
    db = sqlite3.connect(path)
    try:
        tables = db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    except sqlite3.OperationalError as error:
        tables = [("dbstat unavailable: " + str(error), 0)]
    columns = db.execute(
        "SELECT COUNT(*), SUM(LENGTH(raw)), SUM(LENGTH(title) + IFNULL(LENGTH(summary), 0) + IFNULL(LENGTH(url), 0)"
        " + IFNULL(LENGTH(author_name), 0) + IFNULL(LENGTH(author_url), 0) + IFNULL(LENGTH(author_avatar), 0)"
        " + IFNULL(LENGTH(image_url), 0)), SUM(LENGTH(dedup_key) + LENGTH(id) + LENGTH(feed)) FROM item").fetchone()
    settings = {name: db.execute(f"PRAGMA {name}").fetchone()[0] for name in ("page_size", "auto_vacuum", "freelist_count")}
    db.close()
    return {"tables": tables, "items": columns[0], "raw_bytes": columns[1] or 0, "text_bytes": columns[2] or 0,
            "key_bytes": columns[3] or 0, **settings}


def feeds_yaml(path, base, orgs):
    with open(path, "w") as f:
        f.write("feeds:\n")
        for org in orgs:
            f.write(f"  - name: {org}-repos\n    source: github.repos\n    base_url: {base}\n    org: {org}\n"
                    "    per_page: 100\n")


def pull(feedagg, config, db):
    wall, rss, out = timed([feedagg, "pull", "--config", config, "--db", db, "--quiet", "--format", "json",
                            "--per-page", "1"], cwd=os.path.dirname(config))
    return wall, rss, json.loads(out)["total_items"]


def median(values):
    return statistics.median(values) if values else float("nan")


def w5(args, feedagg, results):
    pages = 500
    server = Server([sys.executable, os.path.join(args.bench, "ghserver.py"), "--latency-ms", "20",
                     "--org", "huge:50000", "--orgs", "0"])
    runs = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-w5-") as work:
            curl_config = os.path.join(work, "curl.conf")
            with open(curl_config, "w") as f:
                for page in range(1, pages + 1):
                    f.write(f'url = "{server.base}/orgs/huge/repos?per_page=100&page={page}"\noutput = "/dev/null"\n')
            for rep in range(args.reps + 1):
                folder = os.path.join(work, f"rep{rep}")
                os.mkdir(folder)
                config, db = os.path.join(folder, "feeds.yaml"), os.path.join(folder, "feedagg.sqlite")
                feeds_yaml(config, server.base, ["huge"])
                server.reset()
                wall, rss, items = pull(feedagg, config, db)
                first = server.stats()
                server.reset()
                start = time.monotonic()
                subprocess.run(["curl", "-s", "--parallel", "--parallel-max", "16", "-K", curl_config], check=True,
                               stderr=subprocess.DEVNULL)
                curl_wall = time.monotonic() - start
                curl_requests = server.stats()["requests"]
                size = store_bytes(db)
                server.reset()
                second_wall, _, _ = pull(feedagg, config, db)
                second = server.stats()
                run = {"wall_s": wall, "rss_kb": rss, "items": items, "requests": first["requests"],
                       "curl_wall_s": curl_wall, "curl_requests": curl_requests, "store_bytes": size,
                       "bytes_per_item": size / max(1, items), "second_wall_s": second_wall,
                       "second_requests": second["requests"], "second_304": second["not_modified_304"]}
                if rep == args.reps:
                    run["dbstat"] = dbstat(db)
                print(f"  W5 rep{rep}{' (warm-up)' if rep == 0 else ''}: pull {wall:.3f}s rss={rss // 1024}MB "
                      f"req={first['requests']} items={items} | curl {curl_wall:.3f}s req={curl_requests} | "
                      f"store {size / 1e6:.1f}MB {size / max(1, items):.0f}B/item | second {second_wall:.3f}s "
                      f"req={second['requests']} 304={second['not_modified_304']}", file=sys.stderr, flush=True)
                if rep > 0:
                    runs.append(run)
    finally:
        server.stop()
    results["W5"] = runs


def sqlite_store(feeds, items, seed=1):
    """The SQLite store feedagg-store-gen writes for `feeds` x `items` and `seed`, generated once into
    .build/bench-store/ (READ and READ-SERVE share it): (path, seconds generating it took now, or None)."""
    generator = os.path.join(ROOT, ".build/release/feedagg-store-gen")
    if not os.access(generator, os.X_OK):
        raise SystemExit("build first: make bench (it builds feedagg-store-gen)")
    folder = os.path.join(ROOT, ".build/bench-store")
    os.makedirs(folder, exist_ok=True)
    # g2: titles and summaries with search topics (issue 28); older stores are not reused.
    store = os.path.join(folder, f"read-{feeds}x{items}-seed{seed}-g2.sqlite")
    generated = None
    if not os.path.exists(store):
        for suffix in ("", "-wal", "-shm"):  # what an interrupted run left
            if os.path.exists(store + ".tmp" + suffix):
                os.unlink(store + ".tmp" + suffix)
        start = time.monotonic()
        subprocess.run([generator, "--out", store + ".tmp", "--feeds", str(feeds), "--items", str(items),
                        "--seed", str(seed)], check=True, stdout=sys.stderr)
        store_bytes(store + ".tmp")
        for suffix in ("-wal", "-shm"):
            if os.path.exists(store + ".tmp" + suffix):
                os.unlink(store + ".tmp" + suffix)
        os.rename(store + ".tmp", store)
        generated = time.monotonic() - start
        print(f"  generated {store} in {generated:.1f}s", file=sys.stderr, flush=True)
    return store, generated


def read(args, feedagg, results):
    store, generated = sqlite_store(args.read_feeds, args.read_items)
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-read-") as cwd:  # no feeds.yaml here: show lists the stored feeds
        show = [feedagg, "show", "--db", store, "--format", "json"]
        for rep in range(args.read_reps + 1):
            help_wall, help_rss, _ = timed([feedagg, "--help"], cwd=cwd)
            first_wall, first_rss, out = timed(show + ["--page", "1"], cwd=cwd)
            first = json.loads(out)
            after_wall, after_rss, out = timed(show + ["--after", first["next_cursor"]], cwd=cwd)
            after = json.loads(out)
            last_wall, last_rss, out = timed(show + ["--page", str(first["total_pages"])], cwd=cwd)
            last = json.loads(out)
            run = {"help_s": help_wall, "help_rss_kb": help_rss, "page1_s": first_wall, "page1_rss_kb": first_rss,
                   "after_s": after_wall, "after_rss_kb": after_rss, "last_s": last_wall, "last_rss_kb": last_rss,
                   "total_items": first["total_items"], "total_pages": first["total_pages"],
                   "entries": [len(first["items"]), len(after["items"]), len(last["items"])]}
            print(f"  READ rep{rep}{' (warm-up)' if rep == 0 else ''}: --help {help_wall * 1000:.1f}ms "
                  f"page1 {first_wall * 1000:.1f}ms after {after_wall * 1000:.1f}ms last(p{first['total_pages']}) "
                  f"{last_wall * 1000:.1f}ms rss {first_rss // 1024}/{after_rss // 1024}/{last_rss // 1024}MB "
                  f"total_items={first['total_items']}", file=sys.stderr, flush=True)
            if rep > 0:
                runs.append(run)
    results["READ"] = {"store": store, "store_bytes": os.path.getsize(store), "generated_s": generated, "runs": runs}


def growth(args, feedagg, results):
    churn = os.path.join(ROOT, "Scripts/ghserver-churn.py")
    server = Server([sys.executable, churn, os.path.join(args.bench, "ghserver.py"), "--orgs", "5", "--repos", "1000"])
    sizes = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-growth-") as work:
            config, db = os.path.join(work, "feeds.yaml"), os.path.join(work, "feedagg.sqlite")
            feeds_yaml(config, server.base, [f"org{i}" for i in range(1, 6)])
            _, _, items = pull(feedagg, config, db)
            base = store_bytes(db)
            sizes.append(base)
            for refresh in range(1, args.growth_refreshes + 1):
                changed = server.control("/__churn", json.dumps({"fraction": 0.01}).encode())["changed"]
                wall, rss, items = pull(feedagg, config, db)
                sizes.append(store_bytes(db))
                print(f"  GROWTH refresh {refresh}: {changed} repos changed, pull {wall:.3f}s, store "
                      f"{sizes[-1] / 1e6:.2f}MB ({(sizes[-1] / base - 1) * 100:+.1f}%)", file=sys.stderr, flush=True)
            results["GROWTH"] = {"items": items, "sizes": sizes, "dbstat": dbstat(db)}
    finally:
        server.stop()


def report(results, args):
    lines = [f"== Scale (issue 15): medians of {args.reps} reps after one warm-up; machine: {os.cpu_count()} cores, "
             f"load average {os.getloadavg()[0]:.1f} at the end"]

    def row(name, value, target, met):
        lines.append(f"  {name:44s} {value:>22s}   target {target:34s} {'met' if met else 'NOT MET'}")

    if "W5" in results and results["W5"]:
        runs = results["W5"]
        wall, curl = median([r["wall_s"] for r in runs]), median([r["curl_wall_s"] for r in runs])
        ratio = median([r["wall_s"] / r["curl_wall_s"] for r in runs])
        size, per_item = median([r["store_bytes"] for r in runs]), median([r["bytes_per_item"] for r in runs])
        rss = median([r["rss_kb"] for r in runs]) / 1024
        second = median([r["second_wall_s"] for r in runs])
        lines.append(f"W5 one big feed (50,000 repos, 500 pages, 20 ms): {runs[0]['items']} items, "
                     f"{runs[0]['requests']} requests; curl --parallel-max 16: {curl:.3f}s")
        row("first pull wall", f"{wall:.3f} s", "<= 2.0 s", wall <= 2.0)
        row("first pull / curl (same rep)", f"{ratio:.2f}x", "<= 2x", ratio <= 2.0)
        row("store after pull + checkpoint", f"{size / 1e6:.1f} MB", "<= 75 MB", size <= 75e6)
        row("bytes per item", f"{per_item:.0f} B", "<= 1536 B", per_item <= 1536)
        row("peak RSS", f"{rss:.1f} MB", "<= 45 MB", rss <= 45)
        row("second pull (unchanged) wall", f"{second:.3f} s", "<= 0.1 s", second <= 0.1)
        requests, not_modified = runs[0]["second_requests"], runs[0]["second_304"]
        row("second pull requests", f"{requests} ({not_modified} x 304)", "1, a 304", requests == 1 and not_modified == 1)
        stat = runs[-1].get("dbstat")
        if stat:
            items = max(1, stat["items"])
            lines.append(f"  where the bytes go (dbstat, page_size {stat['page_size']}): " + ", ".join(
                f"{name} {size / items:.0f}" for name, size in stat["tables"][:8]) + " B/item; item payload: raw JSON "
                f"{stat['raw_bytes'] / items:.0f}, text columns {stat['text_bytes'] / items:.0f}, keys "
                f"{stat['key_bytes'] / items:.0f} B/item")
    if "READ" in results:
        read = results["READ"]
        runs = read["runs"]
        lines.append(f"READ ({len(runs)} reps) on {read['store']} ({runs[0]['total_items']} entries, {read['store_bytes'] / 1e6:.0f} MB); "
                     f"feedagg --help: {median([r['help_s'] for r in runs]) * 1000:.1f} ms, "
                     f"{median([r['help_rss_kb'] for r in runs]) / 1024:.1f} MB")
        for key, name in (("page1", "show --page 1"), ("after", "show --after CURSOR"), ("last", "show (last page)")):
            delta = median([r[f"{key}_s"] - r["help_s"] for r in runs]) * 1000
            rss = median([r[f"{key}_rss_kb"] for r in runs]) / 1024
            row(f"{name} minus --help", f"{delta:+.1f} ms", "<= 20 ms", delta <= 20)
            row(f"{name} peak RSS", f"{rss:.1f} MB", "<= 40 MB", rss <= 40)
    if "GROWTH" in results:
        sizes = results["GROWTH"]["sizes"]
        grown = sizes[-1] / sizes[0] - 1
        lines.append(f"GROWTH: W1 store ({results['GROWTH']['items']} items) {sizes[0] / 1e6:.2f} MB, after "
                     f"{len(sizes) - 1} refreshes with 1 % changed each: {sizes[-1] / 1e6:.2f} MB")
        row("growth over the refreshes", f"{grown * 100:+.1f} %", "<= 10 %", grown <= 0.10)
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", default="W5,READ,GROWTH")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--bench", default=os.path.join(ROOT, "../shared/bench"))
    parser.add_argument("--out", default=os.path.join(ROOT, "bench-out"))
    parser.add_argument("--read-feeds", type=int, default=100)
    parser.add_argument("--read-items", type=int, default=10_000)
    parser.add_argument("--read-reps", type=int, default=11,
                        help="repetitions of READ (each a fraction of a second; more of them steady the medians)")
    parser.add_argument("--growth-refreshes", type=int, default=30)
    args = parser.parse_args()
    feedagg = os.environ.get("FEEDAGG_BIN", os.path.join(ROOT, ".build/release/feedagg"))
    workloads = [w.strip().upper() for w in args.workloads.split(",") if w.strip()]
    results = {"config": vars(args) | {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "nproc": os.cpu_count()}}
    for workload in workloads:
        {"W5": w5, "READ": read, "GROWTH": growth}[workload](args, feedagg, results)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "scale.json"), "w") as f:
        json.dump(results, f, indent=1)
    text = report(results, args)
    with open(os.path.join(args.out, "scale.txt"), "w") as f:
        f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
