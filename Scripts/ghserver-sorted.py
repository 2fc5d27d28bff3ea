#!/usr/bin/env python3
"""ghserver-sorted.py - ../shared/bench/ghserver.py with every org's repositories listed by
updated_at, newest first: the order GitHub returns for `?sort=updated` (direction desc).

ghserver.py ignores `sort` and `direction` and lists repositories in generation order, whose
updated_at dates are random. A feed declared with `sort: updated` (date-ordered, so feedagg may
stop early) needs a server that really lists newest first: this wrapper builds the same data set
(same seed, same repositories, same pages, same bodies) and sorts each org's list once at start-up,
so every listing, with or without `sort=updated`, is in that order. Everything else is ghserver.py.

Usage: ghserver-sorted.py PATH/TO/ghserver.py [ghserver.py arguments…]
"""
import importlib.util
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    spec = importlib.util.spec_from_file_location("ghserver", path)
    ghserver = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ghserver)
    build = ghserver.Data.__init__

    def sorted_data(self, cfg):
        build(self, cfg)
        for org in self.orgs.values():
            # ISO 8601 UTC strings of one format sort chronologically; the sort is stable.
            org["repos"].sort(key=lambda repo: repo["updated_at"], reverse=True)

    ghserver.Data.__init__ = sorted_data
    return ghserver.main(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
