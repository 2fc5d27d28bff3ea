extension WebAssets {
    /// `app.css`: one column of cards, sticky header, light and dark, down to phone width.
    public static let stylesheet = #"""
        /* feedagg's page: cards in one column, readable on a phone, light and dark. */
        :root {
          --bg: #f4f5f7; --card: #ffffff; --text: #1d2330; --muted: #5f6b7a; --line: #e1e4ea;
          --accent: #2458d6; --accent-text: #ffffff; --error: #b42318; --chip: #eef1f6; --shadow: 0 1px 2px rgba(16, 24, 40, .06), 0 1px 3px rgba(16, 24, 40, .08);
          color-scheme: light dark;
        }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #11151c; --card: #1a202a; --text: #e7eaf0; --muted: #9aa4b2; --line: #2a3240;
            --accent: #7aa2ff; --accent-text: #0b1020; --error: #ff8a80; --chip: #242c38; --shadow: none; }
        }
        * { box-sizing: border-box; }
        html { -webkit-text-size-adjust: 100%; }
        body { margin: 0; background: var(--bg); color: var(--text);
          font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
        a { color: var(--accent); }
        a:focus-visible, button:focus-visible, summary:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        [hidden] { display: none !important; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        .skip { position: absolute; left: -999px; top: 0; background: var(--card); padding: .5rem 1rem; z-index: 10; }
        .skip:focus { left: .5rem; }
        .muted { color: var(--muted); }

        .bar { position: sticky; top: 0; z-index: 5; background: var(--card); border-bottom: 1px solid var(--line); }
        .bar-inner { max-width: 46rem; margin: 0 auto; padding: .6rem 1rem; display: flex; flex-wrap: wrap; align-items: center; gap: .4rem 1rem; }
        .brand { margin: 0; font-size: 1.25rem; letter-spacing: -.01em; }
        .brand a { color: var(--text); text-decoration: none; }
        .counts { margin: 0; color: var(--muted); font-size: .9rem; flex: 1 1 auto; }
        .actions { display: flex; align-items: center; gap: .75rem; flex-wrap: wrap; }
        .subscribe { font-size: .9rem; }
        .button { font: inherit; font-size: .9rem; font-weight: 600; padding: .35rem .9rem; border-radius: 999px; border: 0;
          background: var(--accent); color: var(--accent-text); cursor: pointer; min-height: 2.25rem; }
        .button:disabled { opacity: .6; cursor: progress; }
        .refresh-status { font-size: .85rem; color: var(--muted); display: inline-flex; align-items: center; gap: .4rem; }

        .page { max-width: 46rem; margin: 0 auto; padding: 1rem; }
        .feeds { background: var(--card); border: 1px solid var(--line); border-radius: .75rem; margin-bottom: 1rem; box-shadow: var(--shadow); }
        .feeds summary { cursor: pointer; padding: .6rem 1rem; font-weight: 600; }
        .error-count { color: var(--error); }
        .table-wrap { overflow-x: auto; padding: 0 1rem .75rem; }
        .feeds table { border-collapse: collapse; width: 100%; font-size: .875rem; }
        .feeds th, .feeds td { text-align: left; padding: .35rem .5rem; border-top: 1px solid var(--line); vertical-align: top; }
        .feeds thead th { border-top: 0; color: var(--muted); font-weight: 600; }
        .feeds .num { text-align: right; font-variant-numeric: tabular-nums; }
        .feeds time { white-space: nowrap; }
        .feed-error { color: var(--error); overflow-wrap: anywhere; }
        .feed-error .muted { color: var(--muted); }
        .filter { color: var(--muted); font-size: .9rem; }
        .search { flex: 1 1 100%; display: flex; gap: .5rem; }
        .search input { flex: 1 1 auto; min-width: 0; font: inherit; font-size: .95rem; padding: .35rem .75rem; border-radius: 999px;
          border: 1px solid var(--line); background: var(--bg); color: var(--text); min-height: 2.25rem; }
        .search-error { color: var(--error); background: var(--card); border: 1px solid var(--line); border-radius: .75rem; padding: .25rem 1rem; margin-bottom: 1rem; }
        .search-error pre { overflow-x: auto; white-space: pre; font-size: .875rem; }
        .views { color: var(--muted); font-size: .9rem; margin-bottom: 1rem; display: flex; flex-wrap: wrap; gap: .25rem .9rem; }
        .view { white-space: nowrap; }

        .stream { list-style: none; margin: 0; padding: 0; display: grid; gap: .75rem; }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: .75rem; overflow: hidden; box-shadow: var(--shadow); }
        .card article { display: flex; flex-direction: column; }
        .photo { display: block; background: var(--chip); }
        .photo img { display: block; width: 100%; aspect-ratio: 16 / 9; max-height: 18rem; object-fit: cover; }
        .card-body { padding: .8rem 1rem .9rem; min-width: 0; }
        .title { margin: 0 0 .25rem; font-size: 1.05rem; line-height: 1.35; overflow-wrap: anywhere; }
        .title a { color: var(--text); text-decoration: none; }
        .title a:hover { color: var(--accent); text-decoration: underline; }
        .summary { margin: 0 0 .5rem; color: var(--muted); overflow-wrap: anywhere;
          display: -webkit-box; -webkit-line-clamp: 3; -webkit-box-orient: vertical; overflow: hidden; }
        .meta { margin: 0; display: flex; flex-wrap: wrap; align-items: center; gap: .35rem .6rem; font-size: .825rem; color: var(--muted); }
        .author { display: inline-flex; align-items: center; gap: .35rem; font-weight: 600; color: var(--text); }
        .author a { color: inherit; text-decoration: none; }
        .author a:hover { text-decoration: underline; }
        .avatar { width: 24px; height: 24px; border-radius: 50%; background: var(--chip); object-fit: cover; }
        .feeds-of { display: inline-flex; flex-wrap: wrap; gap: .25rem; }
        .feed, .source { background: var(--chip); border-radius: 999px; padding: .05rem .55rem; }
        .source { background: transparent; border: 1px solid var(--line); }
        .tag { background: var(--accent); color: var(--accent-text); border-radius: 999px; padding: .05rem .55rem; font-weight: 600; }
        .meta time { margin-left: auto; white-space: nowrap; }

        .loading, .end, .empty, .load-error, .pager { text-align: center; color: var(--muted); margin: 1.25rem 0; }
        .loading { display: flex; justify-content: center; align-items: center; gap: .5rem; }
        .end::before, .end::after { content: ""; display: inline-block; width: 3rem; height: 1px; background: var(--line); vertical-align: middle; margin: 0 .75rem; }
        .load-error { color: var(--error); }
        .pager a { display: inline-block; padding: .5rem 1.25rem; border: 1px solid var(--line); border-radius: 999px; background: var(--card); text-decoration: none; }
        .sentinel { height: 1px; }
        .spinner { width: 1rem; height: 1rem; border: 2px solid var(--line); border-top-color: var(--accent); border-radius: 50%;
          display: inline-block; animation: spin .8s linear infinite; }
        @keyframes spin { to { transform: rotate(360deg); } }
        @media (prefers-reduced-motion: reduce) { .spinner { animation-duration: 2.4s; } }

        @media (max-width: 30rem) {
          .bar-inner { padding: .5rem .75rem; }
          .page { padding: .75rem .5rem; }
          .feeds th:nth-child(2), .feeds td:nth-child(2) { display: none; }
        }

        """#
}
