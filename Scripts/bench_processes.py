"""bench_processes.py - what the benchmarks start: a throwaway PostgreSQL cluster and `feedagg serve`.

Shared by Scripts/bench-workers.py (W6) and Scripts/bench-serve.py (READ-SERVE); not a script.
"""
import glob
import json
import os
import pwd
import socket
import subprocess
import threading
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A throwaway PostgreSQL cluster on 127.0.0.1 (as the test harness starts one)."""

    def __init__(self, folder):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            raise SystemExit("this workload needs PostgreSQL (Debian package 'postgresql'; `make deps` installs it)")
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

    def command(self, program, *arguments):
        command = [os.path.join(self.bin, program), *arguments]
        if self.account:
            command = ["setpriv", f"--reuid={self.account.pw_uid}", f"--regid={self.account.pw_gid}", "--init-groups",
                       "--"] + command
        return command

    def run(self, program, *arguments):
        subprocess.run(self.command(program, *arguments), check=True, stdout=subprocess.DEVNULL, cwd=self.folder)

    def url(self, name):
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def create(self, name):
        self.run("psql", "-q", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-c", f"CREATE DATABASE {name}")
        return self.url(name)

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

    def memory_kb(self):
        """The process's peak and current resident set (VmHWM, VmRSS) in KiB, from /proc."""
        with open(f"/proc/{self.process.pid}/status") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        return int(fields["VmHWM"].split()[0]), int(fields["VmRSS"].split()[0])

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self.process.returncode
