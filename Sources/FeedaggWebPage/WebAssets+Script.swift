extension WebAssets {
    /// `app.js`: infinite scroll over the JSON API (a loading row while it waits, the end marked,
    /// no duplicates), the refresh control (progress shown only after a 0.5 s grace time, then the
    /// newest items and the feeds' state reloaded), the feeds panel. Remote text reaches the DOM
    /// through `textContent` only; links and images through `safeURL` (http/https).
    public static let script = #"""
        // feedagg's page script: infinite scroll over /api/items, the refresh control, the feeds panel.
        // No framework, no inline script (the page's CSP is script-src 'self'). Remote text only ever
        // reaches the DOM through textContent and attributes set one by one; links and images only through
        // safeURL (absolute http/https). The card built here is the one the server's template renders.
        (function () {
          'use strict';

          var stream = document.getElementById('stream');
          if (!stream || !window.fetch) { return; }

          // The page's own query decides what the API is asked for: the same feed= and source= filters
          // (each may repeat), the same search (q=) and saved view (view=), and the same page size.
          var pageQuery = new URLSearchParams(window.location.search);
          var perPage = parseInt(pageQuery.get('limit'), 10) || parseInt(stream.getAttribute('data-per-page'), 10) || 20;
          var itemsURL = stream.getAttribute('data-items');
          var feedsURL = stream.getAttribute('data-feeds');
          var refreshURL = stream.getAttribute('data-refresh');
          var refreshStatusURL = stream.getAttribute('data-refresh-status');
          var filters = [];
          ['feed', 'source', 'view', 'q'].forEach(function (name) {
            pageQuery.getAll(name).forEach(function (value) { if (value) { filters.push([name, value]); } });
          });
          var cursor = stream.getAttribute('data-next-cursor') || null;
          var loadingRow = document.getElementById('loading');
          var loadError = document.getElementById('load-error');
          var endMarker = document.getElementById('end');
          var pager = document.getElementById('pager');
          var sentinel = document.getElementById('sentinel');
          var refreshButton = document.getElementById('refresh');
          var refreshStatus = document.getElementById('refresh-status');
          var loading = false;
          var generation = 0;   // bumped by a refresh, so a page fetched before it is not appended after it
          var seen = new Set();
          Array.prototype.forEach.call(stream.querySelectorAll('li[data-id]'), function (li) {
            seen.add(li.getAttribute('data-id'));
          });

          // The progress of a refresh shows only once it has taken this long (a grace time: a quick
          // refresh never flashes a spinner).
          var REFRESH_GRACE_MS = 500;
          // How long a refresh is followed before the page reloads what is stored anyway.
          var REFRESH_WAIT_MS = 120000;

          // ---- URLs and text -------------------------------------------------------------------------

          // An absolute http/https URL, else null (the server's WebURL.safe rule).
          function safeURL(text) {
            if (typeof text !== 'string' || text.length === 0 || text.length > 4096) { return null; }
            if (/[\u0000-\u0020\u007f]/.test(text)) { return null; }
            if (!/^https?:\/\//i.test(text)) { return null; }
            try {
              var url = new URL(text);
              if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) { return null; }
            } catch (e) { return null; }
            return text;
          }

          // 2026-11-25T17:14:09Z -> 2026-11-25 17:14 UTC (the server's WebDate.short).
          function shortDate(iso) {
            return iso.slice(0, 10) + ' ' + iso.slice(11, 16) + ' UTC';
          }

          // Remote text without control characters but TAB and LF (the server's HTMLText rule).
          function clean(text) {
            return String(text).replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\uFFFE\uFFFF]/g, '');
          }

          function el(tag, className, text) {
            var node = document.createElement(tag);
            if (className) { node.className = className; }
            if (text !== undefined && text !== null) { node.textContent = clean(text); }
            return node;
          }

          function externalLink(href, text) {
            var a = el('a', null, text);
            a.href = href;
            a.rel = 'noopener noreferrer nofollow';
            return a;
          }

          // `?name=value&…` of [name, value] pairs, empty values left out.
          function query(pairs) {
            var parts = [];
            pairs.forEach(function (pair) {
              if (pair[1]) { parts.push(encodeURIComponent(pair[0]) + '=' + encodeURIComponent(pair[1])); }
            });
            return parts.length ? '?' + parts.join('&') : '';
          }

          // ---- Cards ---------------------------------------------------------------------------------

          function buildCard(item) {
            var link = safeURL(item.url);
            var author = item.author && typeof item.author === 'object' ? item.author : null;
            var avatar = author ? safeURL(author.avatar_url) : null;
            var image = safeURL(item.image_url);
            var photo = image === avatar ? null : image;

            var li = el('li', 'card' + (photo ? ' has-photo' : ''));
            li.setAttribute('data-id', String(item.id));
            var article = el('article');
            li.appendChild(article);
            if (photo) {
              var photoLink = el('a', 'photo');
              photoLink.href = link || photo;
              photoLink.rel = 'noopener noreferrer nofollow';
              photoLink.tabIndex = -1;
              photoLink.setAttribute('aria-hidden', 'true');
              var img = el('img');
              img.src = photo;
              img.alt = '';
              img.loading = 'lazy';
              photoLink.appendChild(img);
              article.appendChild(photoLink);
            }
            var body = el('div', 'card-body');
            article.appendChild(body);
            var title = el('h3', 'title');
            var titleText = String(item.title === undefined || item.title === null ? '' : item.title);
            if (link) { title.appendChild(externalLink(link, titleText)); } else { title.textContent = clean(titleText); }
            body.appendChild(title);
            if (item.summary) { body.appendChild(el('p', 'summary', item.summary)); }

            var meta = el('p', 'meta');
            if (author && author.name) {
              var who = el('span', 'author');
              if (avatar) {
                var face = el('img', 'avatar');
                face.src = avatar;
                face.alt = '';
                face.width = 24;
                face.height = 24;
                face.loading = 'lazy';
                who.appendChild(face);
              }
              var profile = safeURL(author.url);
              who.appendChild(profile ? externalLink(profile, author.name) : document.createTextNode(clean(author.name)));
              meta.appendChild(who);
            }
            var feeds = el('span', 'feeds-of');
            var names = Array.isArray(item.feeds) && item.feeds.length ? item.feeds : [item.feed];
            names.forEach(function (name) { feeds.appendChild(el('span', 'feed', name)); });
            meta.appendChild(feeds);
            (Array.isArray(item.tags) ? item.tags : []).forEach(function (label) { meta.appendChild(el('span', 'tag', label)); });
            meta.appendChild(el('span', 'source', item.source));
            var date = item.updated || item.published;
            if (typeof date === 'string' && date.length >= 16) {
              var time = el('time', null, shortDate(date));
              time.setAttribute('datetime', date);
              time.title = item.updated ? 'updated' : 'published';
              meta.appendChild(time);
            }
            body.appendChild(meta);
            return li;
          }

          // Appends the items not on the page yet; returns how many it added.
          function append(items) {
            var added = 0;
            var fragment = document.createDocumentFragment();
            items.forEach(function (item) {
              var key = String(item.id);
              if (seen.has(key)) { return; }
              seen.add(key);
              fragment.appendChild(buildCard(item));
              added += 1;
            });
            stream.appendChild(fragment);
            var empty = document.getElementById('empty');
            if (empty && stream.children.length > 0) { empty.hidden = true; }
            return added;
          }

          // ---- Infinite scroll -----------------------------------------------------------------------

          function markEnd() {
            cursor = null;
            endMarker.hidden = stream.children.length === 0;
            if (observer) { observer.unobserve(sentinel); }
          }

          function showLoadError(message) {
            loadError.textContent = '';
            loadError.appendChild(document.createTextNode(message + ' '));
            var retry = el('button', 'button', 'Try again');
            retry.type = 'button';
            retry.addEventListener('click', function () { loadError.hidden = true; loadMore(); });
            loadError.appendChild(retry);
            loadError.hidden = false;
          }

          function getJSON(url) {
            return fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' }).then(function (response) {
              if (!response.ok) { throw new Error('the server answered ' + response.status); }
              return response.json();
            });
          }

          function itemsPage(after) {
            return getJSON(itemsURL + query([['limit', String(perPage)], ['after', after || '']].concat(filters)));
          }

          function loadMore() {
            if (loading || !cursor) { return; }
            loading = true;
            var started = generation;
            loadingRow.hidden = false;
            loadError.hidden = true;
            var loaded = false;
            itemsPage(cursor).then(function (page) {
              if (started !== generation) { return; }
              append(Array.isArray(page.items) ? page.items : []);
              cursor = page.next_cursor || null;
              if (!cursor || !page.items || page.items.length === 0) { markEnd(); }
              loaded = true;
            }).catch(function (error) {
              if (started === generation) { showLoadError('Could not load older items: ' + error.message + '.'); }
            }).then(function () {
              loading = false;
              loadingRow.hidden = true;
              // Still near the end after a page arrived (a short page, a tall screen): load on without
              // waiting for a scroll. After a failure only "Try again" (or a refresh) loads again.
              if (loaded && started === generation && cursor && nearEnd()) { loadMore(); }
            });
          }

          function nearEnd() {
            var rect = sentinel.getBoundingClientRect();
            return rect.top < window.innerHeight + 800;
          }

          var observer = null;
          if ('IntersectionObserver' in window) {
            observer = new IntersectionObserver(function (entries) {
              if (entries.some(function (entry) { return entry.isIntersecting; })) { loadMore(); }
            }, { rootMargin: '0px 0px 800px 0px' });
            pager.hidden = true;   // the script pages on; the link stays for readers without it
            if (cursor) { observer.observe(sentinel); }
          }

          // ---- Feeds panel ---------------------------------------------------------------------------

          // Rebuilds the feeds panel from /api/feeds (`{"feeds": [...]}`), as the server renders it.
          function renderFeeds(listing) {
            var list = listing && Array.isArray(listing.feeds) ? listing.feeds : null;
            if (!list) { return; }
            var rows = document.getElementById('feed-rows');
            if (!rows) { return; }
            var fragment = document.createDocumentFragment();
            var failing = 0;
            list.forEach(function (feed) {
              var tr = el('tr');
              var name = el('th', null, feed.name);
              name.scope = 'row';
              tr.appendChild(name);
              tr.appendChild(el('td', null, feed.source));
              tr.appendChild(el('td', 'num', feed.items === null || feed.items === undefined ? 0 : feed.items));
              var updated = el('td');
              if (typeof feed.last_updated_at === 'string') {
                var time = el('time', null, shortDate(feed.last_updated_at));
                time.setAttribute('datetime', feed.last_updated_at);
                updated.appendChild(time);
              } else {
                updated.textContent = 'never';
              }
              tr.appendChild(updated);
              var error = el('td', 'feed-error');
              if (feed.last_error) { failing += 1; error.textContent = clean(feed.last_error); } else { error.appendChild(el('span', 'muted', 'none')); }
              tr.appendChild(error);
              fragment.appendChild(tr);
            });
            rows.textContent = '';
            rows.appendChild(fragment);
            var counts = document.querySelector('#feeds summary .muted');
            if (counts) {
              counts.textContent = '(' + list.length;
              if (failing) {
                counts.appendChild(document.createTextNode(', '));
                counts.appendChild(el('span', 'error-count', failing + ' failing'));
              }
              counts.appendChild(document.createTextNode(')'));
            }
            // Open when a feed fails, as the server renders it.
            var panel = document.getElementById('feeds');
            if (panel && failing) { panel.open = true; }
          }

          // ---- Refresh -------------------------------------------------------------------------------

          function setStatus(text, busy) {
            refreshStatus.textContent = '';
            if (busy) { refreshStatus.appendChild(el('span', 'spinner')); }
            if (text) { refreshStatus.appendChild(document.createTextNode(text)); }
            refreshStatus.classList.toggle('busy', !!busy);
          }

          function wait(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }

          // POST the refresh (only the page's feed= feeds, if it has any), then poll its status until
          // every feed asked for has finished a pull started after the request (`done`, docs/serve.md).
          function runRefresh() {
            var feeds = filters.filter(function (pair) { return pair[0] === 'feed'; });
            var deadline = Date.now() + REFRESH_WAIT_MS;
            // The JSON content type and X-Feedagg-Client make this a request no other site can send
            // (docs/security.md). A 429 (every feed asked for was pulled moments ago) is no failure:
            // its body is the current status, and the page shows what is stored.
            return fetch(refreshURL + query(feeds), {
              method: 'POST', body: '{}', credentials: 'same-origin',
              headers: { Accept: 'application/json', 'Content-Type': 'application/json', 'X-Feedagg-Client': 'page' }
            })
              .then(function (response) {
                if (!response.ok && response.status !== 429) { throw new Error('the server answered ' + response.status); }
                return response.json();
              })
              .then(function follow(status) {
                // A refresh still running after two minutes (a slow API, a long backoff) stops being
                // waited for: the page shows what is stored by then.
                if (status && status.done === false && Date.now() < deadline) {
                  return wait(250).then(function () { return getJSON(refreshStatusURL); }).then(follow);
                }
                return status;
              });
          }

          // How many of the feeds the refresh pulled failed (their last pull).
          function failedFeeds(status) {
            var feeds = status && Array.isArray(status.feeds) ? status.feeds : [];
            return feeds.filter(function (feed) { return feed.last_result === 'failed'; }).length;
          }

          // Replaces the stream with its newest page and the feeds panel with their state now.
          function reloadNewest() {
            var started = ++generation;
            return Promise.all([itemsPage(null), getJSON(feedsURL).catch(function () { return null; })]).then(function (results) {
              if (started !== generation) { return; }
              var page = results[0];
              stream.textContent = '';
              seen = new Set();
              loading = false;
              loadingRow.hidden = true;
              loadError.hidden = true;
              append(Array.isArray(page.items) ? page.items : []);
              var empty = document.getElementById('empty');
              if (empty) { empty.hidden = stream.children.length > 0; }
              var total = document.getElementById('total-items');
              if (total && typeof page.total_items === 'number') { total.textContent = String(page.total_items); }
              cursor = page.next_cursor || null;
              endMarker.hidden = true;
              if (cursor) {
                if (observer) { observer.unobserve(sentinel); observer.observe(sentinel); }
              } else {
                markEnd();
              }
              renderFeeds(results[1]);
            });
          }

          if (refreshButton && refreshURL) {
            refreshButton.hidden = false;
            refreshButton.addEventListener('click', function () {
              if (refreshButton.disabled) { return; }
              refreshButton.disabled = true;
              refreshButton.setAttribute('aria-busy', 'true');
              setStatus('', false);
              var done = false;
              var grace = setTimeout(function () {
                if (!done) { setStatus('Refreshing…', true); }
              }, REFRESH_GRACE_MS);
              runRefresh().then(function (status) {
                return reloadNewest().then(function () { return status; });
              }).then(function (status) {
                done = true;
                clearTimeout(grace);
                var failed = failedFeeds(status);
                var now = new Date().toISOString();
                var updated = (status && status.done === false ? 'Still refreshing; shown as of ' : 'Updated ') + now.slice(11, 16) + ' UTC';
                setStatus(failed ? updated + '; ' + failed + (failed === 1 ? ' feed failed' : ' feeds failed') : updated, false);
              }).catch(function (error) {
                done = true;
                clearTimeout(grace);
                setStatus('Refresh failed: ' + error.message, false);
              }).then(function () {
                refreshButton.disabled = false;
                refreshButton.removeAttribute('aria-busy');
              });
            });
          }
        })();

        """#
}
