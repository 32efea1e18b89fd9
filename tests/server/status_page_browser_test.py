#!/usr/bin/env python3
"""The status page in a real browser.

Starts blobtune-server on 127.0.0.1:0 with two partitions, drives it with one blobtune-load of two
classes (one per partition), waits (polling GET /status, with a deadline) until every limiter's
chart has a limit series of at least 5 points and each partition's goodput line has points, then
has headless Chromium load /status and let its refresh script run: Chromium must report no
console message at all, the script must have swapped the charts in at least once, and the DOM it
ends with must hold one chart per limiter whose series have moved, a queue-wait chart, per
partition a row of the partition table and its lines (in flight with at least 5 points, goodput),
the wall-clock time of the latest sample (within a minute of this test's clock), the server's
version and uptime, and a fixed five-minute window: every time axis is ticked at whole minutes
(HH:MM), a fifth of the axis apart, however little history there is. With --screenshot FILE,
Chromium also saves the page as a PNG. Exits 0 and prints "status page browser test: PASS" on
success.
"""
import argparse
import datetime
import html.parser
import os
import re
import subprocess
import sys
import time
import urllib.request

from loaded_server import LoadedServer

LIMITERS = ("read", "write")
PARTITIONS = ("interactive", "bulk")


class StatusDom(html.parser.HTMLParser):
    """Per limiter section: {series id: [(x, y), ...]} of the polylines in its chart (a series
    broken by gaps is several polylines: their points together); the page's facts
    (data-fact); and per limiter section, the x positions of its time-axis tick labels by
    label."""

    def __init__(self):
        super().__init__()
        self.limiters = {}
        self.facts = {}
        self.ticks = {}  # limiter -> [(x, "HH:MM"), ...]
        self.refreshes = 0  # How often the page's script swapped its charts in.
        self.partition_rows = {}  # limiter -> [partition, ...] of its partition table
        self._section = None
        self._fact = None
        self._tick_x = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "div" and a.get("id") == "live":
            self.refreshes = int(a.get("data-refreshes") or 0)
        if tag == "dd" and "data-fact" in a:
            self._fact = a["data-fact"]
            self.facts[self._fact] = ""
        if tag == "section":
            if "data-limiter" in a:
                self._section = a["data-limiter"]
                self.limiters[self._section] = {}
                self.ticks[self._section] = []
                self.partition_rows[self._section] = []
        elif tag == "tr" and self._section is not None and "data-partition" in a:
            self.partition_rows[self._section].append(a["data-partition"])
        elif tag == "polyline" and self._section is not None and "data-series" in a:
            points = self.limiters[self._section].setdefault(a["data-series"], [])
            for pair in a.get("points", "").split():
                x, y = pair.split(",")
                points.append((float(x), float(y)))
        elif tag == "text" and self._section is not None and a.get("text-anchor") == "middle":
            self._tick_x = float(a.get("x", "nan"))

    def handle_data(self, data):
        if self._fact is not None:
            self.facts[self._fact] += data
        if self._tick_x is not None and re.fullmatch(r"\d\d:\d\d", data):
            self.ticks[self._section].append((self._tick_x, data))

    def handle_endtag(self, tag):
        if tag == "section":
            self._section = None
        if tag == "dd":
            self._fact = None
        if tag == "text":
            self._tick_x = None


def parse(page):
    dom = StatusDom()
    dom.feed(page)
    return dom


def check_page_facts(dom, version):
    """The time, version, uptime and fixed window a page shows."""
    facts = dom.facts
    shown = facts.get("time", "")
    try:
        at = datetime.datetime.strptime(shown, "%Y-%m-%d %H:%M:%S UTC").replace(
            tzinfo=datetime.timezone.utc)
    except ValueError:
        fail("the page shows no wall-clock time of the form YYYY-MM-DD HH:MM:SS UTC: %r" % shown)
    off = abs((datetime.datetime.now(datetime.timezone.utc) - at).total_seconds())
    if off > 60:
        fail("the page's time %s is %.0f s away from this clock" % (shown, off))
    if facts.get("version") != version:
        fail("the page shows version %r, the server says %r" % (facts.get("version"), version))
    if not re.fullmatch(r"\d+ (s|min \d+ s)", facts.get("uptime", "")):
        fail("the page shows no uptime of a young server: %r" % facts.get("uptime"))
    if facts.get("window") != "the last 5 minutes":
        fail("the page's window is %r, not the last 5 minutes" % facts.get("window"))
    for name in LIMITERS:
        ticks = dom.ticks.get(name, [])
        # Five charts per limiter, each ticked at every whole minute it spans (5 or 6).
        per_chart = {}
        for x, label in ticks:
            per_chart.setdefault(label, []).append(x)
        if not 5 <= len(per_chart) <= 6:
            fail("limiter %s: time ticks %r are not the 5 or 6 whole minutes of 5 minutes" % (
                name, sorted(per_chart)))
        xs = sorted({x for x, _ in ticks})
        gaps = {round(b - a) for a, b in zip(xs, xs[1:])}
        if len(gaps) != 1:
            fail("limiter %s: ticks are not one minute apart on a fixed axis: %r" % (name, xs))
    return shown


def moved(series):
    """A chart has moved when some series of it takes more than one value."""
    return any(len({y for _, y in points}) > 1 for points in series.values())


def partition_line(series, partition, what):
    return series.get("partition:%s:%s" % (partition, what), [])


def ready(limiters):
    return all(len(limiters.get(name, {}).get("limit", [])) >= 5 for name in LIMITERS) and all(
        moved(limiters[name]) and all(partition_line(limiters[name], p, "goodput")
                                      for p in PARTITIONS) for name in LIMITERS)


def fail(message):
    print("status page browser test: FAIL: " + message, flush=True)
    sys.exit(1)


def check_in_browser(args, url, version, work):
    """Waits for charts with history at `url`, then checks the page in Chromium."""
    deadline = time.monotonic() + args.deadline_seconds
    limiters = {}
    while True:
        with urllib.request.urlopen(url, timeout=10) as answer:
            if answer.status != 200:
                fail("GET /status answered %d" % answer.status)
            if not answer.headers.get("Content-Type", "").startswith("text/html"):
                fail("GET /status is not HTML: " + answer.headers.get("Content-Type", ""))
            limiters = parse(answer.read().decode("utf-8")).limiters
        if ready(limiters):
            break
        if time.monotonic() > deadline:
            fail("the series did not reach 5 points and move in time: %r" % {
                name: {k: len(v) for k, v in s.items()} for name, s in limiters.items()})
        time.sleep(0.25)  # Between polls of an observable state, under a deadline.
    print("curl-level check: %s" % ", ".join(
        "%s: %d limit points" % (n, len(limiters[n]["limit"])) for n in LIMITERS), flush=True)

    # The virtual time budget lets the refresh script run twice (every 2 s), so the DOM
    # dumped is the one the script swapped in.
    profile = os.path.join(work, "chromium-profile")
    browser = subprocess.run(
        [args.chromium, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + profile,
         "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000",
         "--dump-dom", url],
        capture_output=True, text=True, timeout=120)
    if browser.returncode != 0:
        fail("chromium exited %d: %s" % (browser.returncode, browser.stderr[-2000:]))
    console = [l for l in browser.stderr.splitlines() if "CONSOLE" in l]
    if console:
        fail("console messages:\n" + "\n".join(console))
    page = parse(browser.stdout)
    dom, refreshes = page.limiters, page.refreshes
    if refreshes < 1:
        fail("the page's refresh script never swapped the charts in")
    for name in LIMITERS:
        if name not in dom:
            fail("no chart for limiter '%s' in the browser's DOM" % name)
        if len(dom[name].get("limit", [])) < 5 or not moved(dom[name]):
            fail("limiter '%s' in the browser: series %r" % (
                name, {k: len(v) for k, v in dom[name].items()}))
        if "wait_p99" not in dom[name]:
            fail("limiter '%s' has no queue-wait chart in the browser" % name)
        if page.partition_rows.get(name) != list(PARTITIONS):
            fail("limiter '%s': the partition table's rows are %r, not %r" % (
                name, page.partition_rows.get(name), list(PARTITIONS)))
        for p in PARTITIONS:
            if len(partition_line(dom[name], p, "inflight")) < 5 or not partition_line(
                    dom[name], p, "goodput"):
                fail("limiter '%s', partition %s in the browser: series %r" % (
                    name, p, {k: len(v) for k, v in dom[name].items() if p in k}))
    if browser.stdout.count("<svg") < len(LIMITERS):
        fail("fewer SVG charts than limiters in the browser's DOM")
    if "map use, % of the maximum map size" not in browser.stdout:
        fail("the store's map use is not charted against the map's maximum")
    shown = check_page_facts(page, version)
    print("browser check: %d refreshes by the script; %s; time %s, version %s, uptime %s, "
          "window %s" % (refreshes, ", ".join(
              "%s: %d limit points" % (n, len(dom[n]["limit"])) for n in LIMITERS), shown,
              page.facts["version"], page.facts["uptime"], page.facts["window"]), flush=True)

    if args.screenshot:
        shot = subprocess.run(
            [args.chromium, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + profile,
             "--hide-scrollbars", "--window-size=1000,5000",
             "--screenshot=" + os.path.abspath(args.screenshot), url],
            capture_output=True, text=True, timeout=120)
        with open(args.screenshot, "rb") as png:
            if shot.returncode != 0 or png.read(8) != b"\x89PNG\r\n\x1a\n":
                fail("chromium saved no PNG (exit %d): %s" % (shot.returncode,
                                                               shot.stderr[-2000:]))
        print("screenshot: " + args.screenshot, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", required=True)
    parser.add_argument("--load", required=True)
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--deadline-seconds", type=float, default=90)
    parser.add_argument("--screenshot", help="save the page as a PNG here")
    args = parser.parse_args()
    version_line = subprocess.run([args.server, "--version"], capture_output=True, text=True,
                                  check=True).stdout.strip()
    version = version_line.split()[-1]

    try:
        partitions = ["--partition", "interactive=0.3:1", "--partition", "bulk=0.7"]
        load = ["--size", "4096", "--put-fraction", "0.5",
                "--class", "interactive: mode=open rate=50 partition=interactive",
                "--class", "bulk: mode=closed connections=16 partition=bulk"]
        with LoadedServer(args.server, args.load, load, partitions) as server:
            check_in_browser(args, server.base + "/status", version, server.work)
    except RuntimeError as e:
        fail(str(e))
    print("status page browser test: PASS", flush=True)


if __name__ == "__main__":
    main()
