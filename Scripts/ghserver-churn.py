#!/usr/bin/env python3
"""ghserver-churn.py - ../shared/bench/ghserver.py plus one control endpoint that changes repositories,
for the disk-growth benchmark (Scripts/bench-scale.py, workload GROWTH).

  POST /__churn   {"fraction": 0.01, "seed": N}  changes that fraction of every org's repositories
                  (picked at random, seeded by the number of calls so far unless "seed" is given):
                  a later updated_at / pushed_at, one more star, a new description. Cached bodies are
                  dropped, so the pages holding them get new ETags. Answers {"changed": count}.

Everything else is ghserver.py (same data for the same arguments). Never delayed, never counted.

Usage: ghserver-churn.py PATH/TO/ghserver.py [ghserver.py arguments…]
"""
import importlib.util
import json
import random
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    spec = importlib.util.spec_from_file_location("ghserver", sys.argv[1])
    ghserver = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ghserver)
    control = ghserver.Handler._control
    calls = [0]

    def churn_control(self, path):
        if path != "/__churn" or self.command != "POST":
            return control(self, path)
        body = json.loads(self._read_body() or b"{}")
        fraction = float(body.get("fraction", 0.01))
        calls[0] += 1
        rnd = random.Random(body.get("seed", calls[0]))
        state, data = self.server.state, self.server.data
        changed = 0
        with state.lock:
            # One hour later per call: the changed repositories become the newest.
            stamp = 1_767_225_600 + calls[0] * 3600
            for org in data.orgs.values():
                repos = org["repos"]
                for repo in rnd.sample(repos, max(1, round(len(repos) * fraction))):
                    repo["updated_at"] = repo["pushed_at"] = ghserver.iso(stamp)
                    repo["stargazers_count"] += 1
                    repo["watchers_count"] = repo["watchers"] = repo["stargazers_count"]
                    repo["description"] = f"changed in churn {calls[0]}"
                    changed += 1
            state.body_cache.clear()
        self._send(200, json.dumps({"changed": changed}).encode())

    ghserver.Handler._control = churn_control
    return ghserver.main(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
