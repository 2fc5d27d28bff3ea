#!/usr/bin/env python3
"""Prints the entries feedparser reads from a feed file, as JSON, for WebFeedSourceTests.

Usage: feedparser-entries.py FILE URL   (URL: where the document came from, for relative links)
Each entry: id, title (plain text), link, published (Unix seconds of the published date, else
the updated one, or null).
"""
import calendar
import json
import sys

import feedparser


def main():
    path, url = sys.argv[1], sys.argv[2]
    with open(path, "rb") as handle:
        body = handle.read()
    parsed = feedparser.parse(body, response_headers={"content-location": url})
    out = []
    for entry in parsed.entries:
        when = entry.get("published_parsed") or entry.get("updated_parsed")
        out.append({
            "id": entry.get("id"),
            "title": entry.get("title"),
            "link": entry.get("link"),
            "published": calendar.timegm(when) if when else None,
        })
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
