/// The page's Mustache template (swift-mustache). Every `{{name}}` is HTML-escaped; the template
/// has no `{{{…}}}` (unescaped) tag, and a test checks it stays so. No inline script, style or
/// event handler: the script and stylesheet are separate files (``WebAssets``), so the page runs
/// under a `script-src 'self'` policy.
///
/// The card markup here and the one `app.js` builds (`buildCard`) are the same; change both.
enum PageTemplate {
    static let text = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>feedagg</title>
        <link rel="stylesheet" href="{{stylesheetPath}}">
        <link rel="alternate" type="application/atom+xml" title="feedagg (Atom)" href="{{atomLink}}">
        <link rel="alternate" type="application/feed+json" title="feedagg (JSON Feed)" href="{{jsonFeedLink}}">
        <script src="{{scriptPath}}" defer></script>
        </head>
        <body>
        <a class="skip" href="#stream">Skip to the stream</a>
        <header class="bar">
          <div class="bar-inner">
            <h1 class="brand"><a href="{{#newestLink}}{{newestLink}}{{/newestLink}}{{^newestLink}}/{{/newestLink}}">feedagg</a></h1>
            <p class="counts">{{#totalItems}}<span id="total-items">{{totalItems}}</span> items · {{/totalItems}}{{feedCount}} feeds</p>
            <div class="actions">
              <span id="refresh-status" class="refresh-status" role="status" aria-live="polite"></span>
              <button id="refresh" class="button" type="button" hidden>Refresh</button>
              <a class="subscribe" href="{{atomLink}}">Atom</a>
              <a class="subscribe" href="{{jsonFeedLink}}">JSON&nbsp;Feed</a>
            </div>
            <form id="search" class="search" role="search" method="get" action="{{pagePath}}">
              <input id="search-input" type="search" name="q" value="{{search}}" placeholder="Search: swift -beta newer:7d" aria-label="Search the stream" autocomplete="off" spellcheck="false">
              {{#hiddenFields}}<input type="hidden" name="{{fieldName}}" value="{{fieldValue}}">{{/hiddenFields}}
              <button class="button" type="submit">Search</button>
            </form>
          </div>
        </header>
        <main class="page">
          <details id="feeds" class="feeds"{{#feedsOpen}} open{{/feedsOpen}}>
            <summary>Feeds <span class="muted">({{feedCount}}{{#feedsOpen}}, <span class="error-count">{{errorCount}} failing</span>{{/feedsOpen}})</span></summary>
            <div class="table-wrap">
              <table>
                <thead><tr><th scope="col">Feed</th><th scope="col">Source</th><th scope="col" class="num">Items</th><th scope="col">Last updated</th><th scope="col">Last error</th></tr></thead>
                <tbody id="feed-rows">
                  {{#rows}}
                  <tr>
                    <th scope="row">{{feedName}}</th>
                    <td>{{feedSource}}</td>
                    <td class="num">{{itemCount}}</td>
                    <td>{{#updatedMachine}}<time datetime="{{updatedMachine}}">{{updatedShort}}</time>{{/updatedMachine}}{{^updatedMachine}}{{updatedShort}}{{/updatedMachine}}</td>
                    <td class="feed-error">{{#lastError}}{{lastError}}{{/lastError}}{{^lastError}}<span class="muted">none</span>{{/lastError}}</td>
                  </tr>
                  {{/rows}}
                </tbody>
              </table>
            </div>
          </details>
          {{#hasViews}}<nav class="views" aria-label="Saved views"><span class="muted">Views:</span>{{#views}} <span class="view"><a href="{{viewPage}}" title="{{viewQuery}}">{{viewName}}</a> <a class="subscribe" href="{{viewAtom}}" title="{{viewName}} as Atom">Atom</a> <a class="subscribe" href="{{viewJSON}}" title="{{viewName}} as JSON Feed">JSON</a></span>{{/views}}</nav>{{/hasViews}}
          {{#searchError}}<div id="search-error" class="search-error" role="alert"><p>The search does not parse:</p><pre>{{searchError}}</pre></div>{{/searchError}}
          {{#filterLine}}<p class="filter">{{filterLine}} · <a href="/">all items</a></p>{{/filterLine}}
          {{#newestLink}}<p class="filter"><a href="{{newestLink}}">Back to the newest items</a></p>{{/newestLink}}
          <h2 class="visually-hidden">Stream</h2>
          <ol id="stream" class="stream" data-next-cursor="{{nextCursor}}" data-per-page="{{perPage}}" data-items="{{itemsEndpoint}}" data-feeds="{{feedsEndpoint}}" data-refresh="{{refreshEndpoint}}" data-refresh-status="{{refreshStatusEndpoint}}">
            {{#cards}}
            <li class="card{{#photo}} has-photo{{/photo}}" data-id="{{itemID}}">
              <article>
                {{#photo}}<a class="photo" href="{{#link}}{{link}}{{/link}}{{^link}}{{photo}}{{/link}}" rel="noopener noreferrer nofollow" tabindex="-1" aria-hidden="true"><img src="{{photo}}" alt="" loading="lazy"></a>{{/photo}}
                <div class="card-body">
                  <h3 class="title">{{#link}}<a href="{{link}}" rel="noopener noreferrer nofollow">{{title}}</a>{{/link}}{{^link}}{{title}}{{/link}}</h3>
                  {{#summary}}<p class="summary">{{summary}}</p>{{/summary}}
                  <p class="meta">
                    {{#authorName}}<span class="author">{{#avatar}}<img class="avatar" src="{{avatar}}" alt="" width="24" height="24" loading="lazy">{{/avatar}}{{#authorLink}}<a href="{{authorLink}}" rel="noopener noreferrer nofollow">{{authorName}}</a>{{/authorLink}}{{^authorLink}}{{authorName}}{{/authorLink}}</span>{{/authorName}}
                    <span class="feeds-of">{{#feedNames}}<span class="feed">{{.}}</span>{{/feedNames}}</span>
                    {{#tagLabels}}<span class="tag">{{.}}</span>{{/tagLabels}}
                    <span class="source">{{sourceType}}</span>
                    {{#dateMachine}}<time datetime="{{dateMachine}}" title="{{dateKind}}">{{dateShort}}</time>{{/dateMachine}}
                  </p>
                </div>
              </article>
            </li>
            {{/cards}}
          </ol>
          {{^cards}}<p id="empty" class="empty">{{emptyMessage}}</p>{{/cards}}
          <p id="loading" class="loading" role="status" hidden><span class="spinner" aria-hidden="true"></span> Loading older items…</p>
          <p id="load-error" class="load-error" role="alert" hidden></p>
          <p id="end" class="end"{{#endHidden}} hidden{{/endHidden}}>You’ve reached the end.</p>
          <nav id="pager" class="pager" aria-label="Pages">{{#olderLink}}<a href="{{olderLink}}" rel="next">Older items</a>{{/olderLink}}</nav>
          <div id="sentinel" class="sentinel" aria-hidden="true"></div>
        </main>
        </body>
        </html>

        """#
}
