#!/usr/bin/env python3
"""Drives feedagg's web page in headless Chromium (selenium + chromedriver) and prints one JSON
object with what it saw; the Swift test (ServePageBrowserTests) asserts on it.

    page_driver.py --url http://127.0.0.1:PORT/ --screenshot .build/screenshots/serve.png \
        [--scrolls 3] [--add-item-url URL] [--new-id ID]
    page_driver.py --url http://127.0.0.1:PORT/ --stop-server-pid PID
    page_driver.py --url http://127.0.0.1:PORT/ --search QUERY [--bad-search QUERY]

Steps:
  1. open the page; record the server-rendered cards (ids, per_page, whether an alert fired);
  2. scroll to the end `--scrolls` times, each time waiting until the page grew or the end marker
     showed; record the card ids in page order, how often the loading row was shown, the end marker;
  3. hostile text: count elements a hostile title could have injected (img[src=x], script without
     src, any on* attribute outside the page's own markup), and javascript: links;
  4. screenshots: the top of the page at desktop width (--screenshot) and at phone width (…-phone.png);
  5. refresh (with --add-item-url): POST that URL (the test's loopback API adds an item and makes
     its next answer slow), click Refresh, wait for `--new-id` to appear; record when the progress
     indicator first showed, relative to the click, and the card ids afterwards.
With --stop-server-pid, only this: open the page, stop the server, scroll; record the error row.
With --search, only this: type QUERY into the search box and submit it; record the URL, the
server-rendered results, then scroll to the end and record every card and the /api/items URLs the
script fetched; the same URL with JavaScript off (its first page and the Older link's page); with
--bad-search, submit that too and record the error the page shows.
Nothing here reaches beyond 127.0.0.1.
"""
import argparse
import json
import os
import signal
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException, UnexpectedAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = os.environ.get("FEEDAGG_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("FEEDAGG_CHROMEDRIVER", "/usr/bin/chromedriver")

# Records, in the page, when the loading row and the refresh progress became visible (a
# MutationObserver on their attributes), and whether anything called alert/confirm/prompt.
INSTRUMENT = """
window.__feedagg = {loadingShown: 0, progressAt: [], dialogs: 0, clickAt: null};
['alert', 'confirm', 'prompt'].forEach(function (name) {
  var original = window[name];
  window[name] = function () { window.__feedagg.dialogs += 1; };
});
var loading = document.getElementById('loading');
new MutationObserver(function () {
  if (!loading.hidden) { window.__feedagg.loadingShown += 1; }
}).observe(loading, {attributes: true, attributeFilter: ['hidden']});
var status = document.getElementById('refresh-status');
new MutationObserver(function () {
  if (status.classList.contains('busy')) { window.__feedagg.progressAt.push(performance.now()); }
}).observe(status, {attributes: true, childList: true, subtree: true});
"""

# Each card's elements in document order (tag, class, link, image, date, leaf text): the same item
# must come out the same from the server's template and from app.js's buildCard.
CARD_SIGNATURES = """
var out = {};
document.querySelectorAll('#stream > li[data-id]').forEach(function (li) {
  var parts = [li.className];
  li.querySelectorAll('*').forEach(function (el) {
    parts.push([el.tagName.toLowerCase(), el.className, el.getAttribute('href') || '', el.getAttribute('src') || '',
      el.getAttribute('datetime') || '', el.getAttribute('title') || '', el.getAttribute('rel') || '',
      el.children.length ? '' : el.textContent.trim()].join('|'));
  });
  out[li.getAttribute('data-id')] = parts.join('\\n');
});
return out;
"""

# The feeds panel's rows: cells' text, the last update's datetime, and the elements' shape.
FEED_ROWS = """
return Array.from(document.querySelectorAll('#feed-rows > tr'), function (tr) {
  return {
    cells: Array.from(tr.children, function (cell) { return cell.textContent.trim(); }),
    updated: (tr.querySelector('time') || {getAttribute: function () { return null; }}).getAttribute('datetime'),
    shape: Array.from(tr.querySelectorAll('*'), function (el) { return el.tagName.toLowerCase() + '.' + el.className; }).join(' ')
  };
});
"""

CARD_IDS = "return Array.from(document.querySelectorAll('#stream > li[data-id]'), li => li.getAttribute('data-id'));"

# What hostile text could have injected, outside the page's own markup.
INJECTED = """
var report = {imgX: 0, scripts: 0, handlers: [], javascriptLinks: 0};
document.querySelectorAll('img').forEach(function (img) {
  var src = img.getAttribute('src') || '';
  if (src === 'x' || /\\/x$/.test(img.src)) { report.imgX += 1; }
});
document.querySelectorAll('script').forEach(function (s) { if (!s.src) { report.scripts += 1; } });
document.querySelectorAll('*').forEach(function (el) {
  Array.from(el.attributes).forEach(function (a) {
    if (a.name.toLowerCase().indexOf('on') === 0) { report.handlers.push(el.tagName + ' ' + a.name); }
  });
});
document.querySelectorAll('a[href], img[src]').forEach(function (el) {
  var value = (el.getAttribute('href') || el.getAttribute('src') || '').trim().toLowerCase();
  if (value.indexOf('javascript:') === 0 || value.indexOf('data:') === 0) { report.javascriptLinks += 1; }
});
report.titles = Array.from(document.querySelectorAll('#stream .title'), h => h.textContent);
report.authors = Array.from(document.querySelectorAll('#stream .author'), a => a.textContent);
report.summaries = Array.from(document.querySelectorAll('#stream .summary'), p => p.textContent);
return report;
"""


def start_browser(width, height, profile, javascript=True):
    options = webdriver.ChromeOptions()
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    options.binary_location = CHROMIUM
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--user-data-dir=" + profile, "--window-size=%d,%d" % (width, height),
                     "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                     "--disable-background-networking", "--disable-sync", "--disable-component-update",
                     "--hide-scrollbars", "--force-color-profile=srgb"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def state(driver):
    return driver.execute_script("return window.__feedagg;")


def end_visible(driver):
    return driver.execute_script("var e = document.getElementById('end'); return !!e && !e.hidden;")


def scroll_to_end(driver, before, timeout):
    """Scrolls to the bottom and waits until more cards arrived or the end marker shows."""
    driver.execute_script("window.scrollTo(0, document.documentElement.scrollHeight);")
    try:
        WebDriverWait(driver, timeout, poll_frequency=0.1).until(
            lambda d: len(d.execute_script(CARD_IDS)) > before or end_visible(d))
    except TimeoutException:
        pass
    # Let a request already in flight (the sentinel can still be in view) settle.
    WebDriverWait(driver, timeout, poll_frequency=0.1).until(
        lambda d: d.execute_script("return document.getElementById('loading').hidden;"))


def console_errors(driver):
    try:
        return [entry["message"] for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
    except Exception as error:  # not every driver keeps the log
        return ["(console log unavailable: %s)" % error]


def without_javascript(url):
    """The page with JavaScript off: the server-rendered cards, the Older link, and the cards of
    the page it leads to."""
    profile = tempfile.mkdtemp(prefix="feedagg-chromium-nojs-")
    driver = start_browser(1280, 1000, profile, javascript=False)
    seen = {}
    try:
        driver.get(url)
        seen["first_page"] = [li.get_attribute("data-id") for li in driver.find_elements(By.CSS_SELECTOR, "#stream > li[data-id]")]
        seen["refresh_hidden"] = not driver.find_element(By.ID, "refresh").is_displayed()
        older = driver.find_elements(By.CSS_SELECTOR, "#pager a[rel=next]")
        seen["older_visible"] = bool(older) and older[0].is_displayed()
        if older:
            older[0].click()
            seen["second_url"] = driver.current_url
            seen["second_page"] = [li.get_attribute("data-id") for li in driver.find_elements(By.CSS_SELECTOR, "#stream > li[data-id]")]
            seen["back_links"] = [a.get_attribute("href") for a in driver.find_elements(By.LINK_TEXT, "Back to the newest items")]
    finally:
        driver.quit()
    return seen


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def server_down(url, pid, timeout, restart_signal):
    """Opens the page, then stops the server (SIGTERM to `pid`) and scrolls to the end: the page
    must say the older items could not be loaded and offer to try again. With `restart_signal` (a
    file path), creates that file once the page shows the error (the test restarts the server only
    then: a server back before the page asked for page 2 would leave nothing to fail), waits until
    the server answers again and clicks "Try again"."""
    profile = tempfile.mkdtemp(prefix="feedagg-chromium-down-")
    driver = start_browser(1280, 1000, profile)
    seen = {}
    try:
        driver.get(url)
        seen["first_page"] = driver.execute_script(CARD_IDS)
        os.kill(pid, signal.SIGTERM)
        # Gone means exited (the test reaps it), not "one request failed": under load a request
        # can time out while the server still serves, and the page would then load page 2.
        deadline = time.time() + timeout
        while alive(pid) and time.time() < deadline:
            time.sleep(0.05)
        driver.execute_script("window.scrollTo(0, document.documentElement.scrollHeight);")
        try:
            WebDriverWait(driver, timeout, poll_frequency=0.1).until(
                lambda d: d.find_element(By.ID, "load-error").is_displayed())
        except TimeoutException:
            pass
        error = driver.find_element(By.ID, "load-error")
        seen["error_visible"] = error.is_displayed()
        seen["error_text"] = error.text
        seen["retry_buttons"] = len(error.find_elements(By.TAG_NAME, "button"))
        seen["loading_hidden"] = not driver.find_element(By.ID, "loading").is_displayed()
        seen["end_visible"] = end_visible(driver)
        seen["ids"] = driver.execute_script(CARD_IDS)
        seen["server_alive"] = alive(pid)
        if restart_signal:
            # The test starts the server again on the same port; then "Try again" loads page 2.
            with open(restart_signal, "w") as marker:
                marker.write("restart\n")
            deadline = time.time() + 60
            while time.time() < deadline:
                try:
                    urllib.request.urlopen(url, timeout=2).read()
                    break
                except Exception:
                    time.sleep(0.1)
            error.find_element(By.TAG_NAME, "button").click()
            try:
                WebDriverWait(driver, timeout, poll_frequency=0.1).until(
                    lambda d: len(d.execute_script(CARD_IDS)) > len(seen["first_page"]))
            except TimeoutException:
                pass
            seen["ids_after_retry"] = driver.execute_script(CARD_IDS)
            seen["error_visible_after_retry"] = driver.find_element(By.ID, "load-error").is_displayed()
    finally:
        driver.quit()
    return seen


# Run in every new document before the page's own script (DevTools' addScriptToEvaluateOnNewDocument):
# records the URLs the page's script fetches (app.js calls the global fetch at each request), and
# the cards the server rendered (at DOMContentLoaded, before a page fetched by app.js can arrive).
RECORD_FETCHES = """
window.__fetched = [];
var original = window.fetch;
window.fetch = function (url, options) { window.__fetched.push(String(url)); return original.apply(this, arguments); };
document.addEventListener('DOMContentLoaded', function () {
  window.__serverCards = Array.from(document.querySelectorAll('#stream > li[data-id]'), function (li) { return li.getAttribute('data-id'); });
});
"""


def submit_search(driver, query, timeout):
    """Types `query` into the search box and submits the form; waits for the new page."""
    box = driver.find_element(By.ID, "search-input")
    box.clear()
    box.send_keys(query)
    before = driver.current_url
    driver.find_element(By.CSS_SELECTOR, "#search button[type=submit]").click()
    WebDriverWait(driver, timeout, poll_frequency=0.1).until(
        lambda d: d.current_url != before and d.execute_script("return document.readyState;") == "complete")


def search(url, query, bad_query, timeout):
    """The search box: typed, submitted, scrolled to the end; then the result URL without
    JavaScript; then a query that does not parse."""
    seen = {}
    profile = tempfile.mkdtemp(prefix="feedagg-chromium-search-")
    driver = start_browser(1280, 1000, profile)
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_FETCHES})
        driver.get(url)
        seen["before"] = driver.execute_script("return window.__serverCards;")
        submit_search(driver, query, timeout)
        seen["url"] = driver.current_url
        seen["box_value"] = driver.find_element(By.ID, "search-input").get_attribute("value")
        seen["filter_line"] = " ".join(p.text for p in driver.find_elements(By.CSS_SELECTOR, "p.filter"))
        seen["first_page"] = driver.execute_script("return window.__serverCards;")
        counts = []
        for _ in range(10):
            if end_visible(driver):
                break
            scroll_to_end(driver, len(driver.execute_script(CARD_IDS)), timeout)
            counts.append(len(driver.execute_script(CARD_IDS)))
        seen["counts_after_scrolls"] = counts
        seen["ids"] = driver.execute_script(CARD_IDS)
        seen["end_visible"] = end_visible(driver)
        seen["fetched"] = driver.execute_script("return window.__fetched;")
        seen["total"] = driver.execute_script(
            "var t = document.getElementById('total-items'); return t ? t.textContent : null;")
        seen["console_errors"] = console_errors(driver)
        result_url = driver.current_url
        if bad_query:
            submit_search(driver, bad_query, timeout)
            seen["bad_url"] = driver.current_url
            errors = driver.find_elements(By.ID, "search-error")
            seen["bad_error"] = errors[0].text if errors else None
            seen["bad_cards"] = len(driver.execute_script(CARD_IDS))
            seen["bad_box_value"] = driver.find_element(By.ID, "search-input").get_attribute("value")
    finally:
        driver.quit()
    seen["no_js"] = without_javascript(result_url)
    return seen


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--screenshot", help="required unless --stop-server-pid")
    parser.add_argument("--scrolls", type=int, default=3)
    parser.add_argument("--add-item-url")
    parser.add_argument("--new-id")
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--stop-server-pid", type=int,
                        help="only the server-down check: open the page, SIGTERM this pid, scroll")
    parser.add_argument("--search", help="only the search check: type this query into the search box")
    parser.add_argument("--bad-search", help="with --search: then submit this query, which does not parse")
    parser.add_argument("--restart-signal",
                        help="with --stop-server-pid: create this file once the error shows, wait for "
                             "the server to answer again, click Try again")
    args = parser.parse_args()
    if args.stop_server_pid:
        report = server_down(args.url, args.stop_server_pid, args.timeout, args.restart_signal)
        json.dump({"server_down": report}, sys.stdout)
        sys.stdout.write("\n")
        return
    if args.search is not None:
        json.dump({"search": search(args.url, args.search, args.bad_search, args.timeout)}, sys.stdout)
        sys.stdout.write("\n")
        return
    if not args.screenshot:
        parser.error("--screenshot is required")

    report = {"no_js": without_javascript(args.url)}
    profile = tempfile.mkdtemp(prefix="feedagg-chromium-")
    driver = start_browser(1280, 1000, profile)
    try:
        driver.get(args.url)
        driver.execute_script(INSTRUMENT)
        report["title"] = driver.title
        report["per_page"] = int(driver.find_element(By.ID, "stream").get_attribute("data-per-page"))
        report["first_page"] = driver.execute_script(CARD_IDS)
        report["cards_server"] = driver.execute_script(CARD_SIGNATURES)
        report["feeds_server"] = driver.execute_script(FEED_ROWS)
        report["refresh_visible"] = driver.find_element(By.ID, "refresh").is_displayed()
        report["older_link_hidden"] = not driver.find_element(By.ID, "pager").is_displayed()

        after_scrolls = []
        for _ in range(args.scrolls):
            scroll_to_end(driver, len(driver.execute_script(CARD_IDS)), args.timeout)
            after_scrolls.append(len(driver.execute_script(CARD_IDS)))
        report["counts_after_scrolls"] = after_scrolls
        report["ids"] = driver.execute_script(CARD_IDS)
        report["end_visible"] = end_visible(driver)
        report["end_text"] = driver.find_element(By.ID, "end").text
        report["loading_shown"] = state(driver)["loadingShown"]
        report["injected"] = driver.execute_script(INJECTED)
        report["dialogs"] = state(driver)["dialogs"]

        # Screenshots: the top of the page, desktop and phone width.
        driver.execute_script("window.scrollTo(0, 0);")
        os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
        time.sleep(0.3)  # let lazy images near the top paint
        driver.save_screenshot(args.screenshot)
        phone = args.screenshot[:-4] + "-phone.png" if args.screenshot.endswith(".png") else args.screenshot + "-phone.png"
        driver.set_window_size(390, 844)
        time.sleep(0.3)
        driver.save_screenshot(phone)
        report["phone_overflow"] = driver.execute_script(
            "return document.documentElement.scrollWidth > document.documentElement.clientWidth;")
        driver.set_window_size(1280, 1000)
        report["screenshots"] = [args.screenshot, phone]

        if args.add_item_url:
            request = urllib.request.Request(args.add_item_url, data=b"", method="POST")
            urllib.request.urlopen(request, timeout=10).read()
            driver.execute_script(
                "window.__feedagg.progressAt = [];"
                "window.__feedagg.clickAt = performance.now();"
                "document.getElementById('refresh').click();")
            try:
                WebDriverWait(driver, max(args.timeout, 60), poll_frequency=0.1).until(
                    lambda d: args.new_id in d.execute_script(CARD_IDS))
                WebDriverWait(driver, args.timeout, poll_frequency=0.1).until(
                    lambda d: not d.find_element(By.ID, "refresh").get_attribute("disabled"))
                report["refreshed"] = True
            except TimeoutException:
                report["refreshed"] = False
            after = state(driver)
            report["progress_delays_ms"] = [at - after["clickAt"] for at in after["progressAt"]]
            report["ids_after_refresh"] = driver.execute_script(CARD_IDS)
            report["cards_script"] = driver.execute_script(CARD_SIGNATURES)
            report["feeds_script"] = driver.execute_script(FEED_ROWS)
            report["refresh_status"] = driver.find_element(By.ID, "refresh-status").text
            report["injected_after_refresh"] = driver.execute_script(INJECTED)
            report["dialogs"] = state(driver)["dialogs"]
        try:
            driver.switch_to.alert
            report["alert_open"] = True
        except NoAlertPresentException:
            report["alert_open"] = False
        report["console_errors"] = console_errors(driver)
    except UnexpectedAlertPresentException as error:
        report["alert_open"] = True
        report["error"] = "unexpected alert: %s" % error
    finally:
        driver.quit()
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
