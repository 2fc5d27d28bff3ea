#!/usr/bin/env python3
"""feedagg exec plugin: stories from a Hacker News-style paged search API (Algolia's HN API shape).

Standard library only. feeds.yaml:

    - name: hn-swift
      source: exec
      command: [python3, Examples/plugins/hn_stories.py]
      env: { PATH: /usr/bin:/bin }
      params: { api: "https://hn.algolia.com/api/v1", query: swift }

Protocol (docs/sources-exec.md): one JSON request line on stdin; on stdout one JSON object per
line: {"item": {...}}, then {"next": cursor} when there is another page, {"etag": ...} to be
handed back next time, or {"not_modified": true}.
"""
import json
import sys
import urllib.error
import urllib.parse
import urllib.request


def main():
    request = json.loads(sys.stdin.readline())
    params = request.get("params") or {}
    api = params.get("api")
    if not api:
        print("params.api (the API root) is required", file=sys.stderr)
        return 2
    page = int(request.get("cursor") or 0)
    query = urllib.parse.urlencode({
        "query": params.get("query", ""), "tags": "story", "page": page,
        "hitsPerPage": request.get("per_page") or 30,
    })
    http = urllib.request.Request(f"{api.rstrip('/')}/search_by_date?{query}",
                                  headers={"User-Agent": "feedagg-hn-plugin/1"})
    if request.get("etag") and page == 0:
        http.add_header("If-None-Match", request["etag"])
    try:
        with urllib.request.urlopen(http, timeout=20) as response:
            body = json.load(response)
            etag = response.headers.get("ETag")
    except urllib.error.HTTPError as error:
        if error.code == 304:
            print(json.dumps({"not_modified": True}))
            return 0
        print(f"GET {http.full_url}: HTTP {error.code}", file=sys.stderr)
        return 1
    out = sys.stdout
    for hit in body.get("hits", []):
        item = {
            "id": str(hit["objectID"]),
            "title": hit.get("title") or "(untitled)",
            "url": hit.get("url") or f"https://news.ycombinator.com/item?id={hit['objectID']}",
            "author": hit.get("author"),
            "published": hit.get("created_at"),
        }
        out.write(json.dumps({"item": {k: v for k, v in item.items() if v is not None}}) + "\n")
    if etag and page == 0:
        out.write(json.dumps({"etag": etag}) + "\n")
    if page + 1 < int(body.get("nbPages", 0)):
        out.write(json.dumps({"next": str(page + 1)}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
