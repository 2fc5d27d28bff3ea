#!/usr/bin/env python3
"""Parses one Atom document with feedparser and prints, as JSON on standard output, what a feed
reader sees: bozo (and its exception), the feed's id, title and updated, and per entry its id,
title, alternate link, updated, published, author, summary, enclosures and tags.

Usage: feedparser-dump.py FILE.atom  (run by FeedFormatsTests through .build/venv/bin/python,
which `make pytools` creates). The Swift test makes the assertions; this script only reports.
"""
import json
import sys
import time

import feedparser


def stamp(parsed):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", parsed) if parsed else None


def main():
    with open(sys.argv[1], "rb") as handle:
        document = handle.read()
    parsed = feedparser.parse(document)
    entries = []
    for entry in parsed.entries:
        entries.append({
            "id": entry.get("id"),
            "title": entry.get("title"),
            "link": entry.get("link"),
            "updated": stamp(entry.get("updated_parsed")),
            "published": stamp(entry.get("published_parsed")),
            "author": entry.get("author"),
            "summary": entry.get("summary"),
            "enclosures": [enclosure.get("href") for enclosure in entry.get("enclosures", [])],
            "tags": [tag.get("term") for tag in entry.get("tags", [])],
        })
    json.dump({
        "bozo": bool(parsed.bozo),
        "bozo_exception": str(parsed.get("bozo_exception", "")),
        "version": parsed.get("version"),
        "feed": {
            "id": parsed.feed.get("id"),
            "title": parsed.feed.get("title"),
            "updated": stamp(parsed.feed.get("updated_parsed")),
        },
        "entries": entries,
    }, sys.stdout)


if __name__ == "__main__":
    main()
