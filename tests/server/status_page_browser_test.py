#!/usr/bin/env python3
"""The status page in a real browser.

Starts blobtune-server on 127.0.0.1:0, drives it with blobtune-load, waits (polling GET /status,
with a deadline) until every limiter's chart has a limit series of at least 5 points, then has
headless Chromium load /status and let its refresh script run: Chromium must report no console
message at all, the script must have swapped the charts in at least once, and the DOM it ends
with must hold one chart per limiter whose series have moved. Exits 0 and prints "status page browser test: PASS" on success.
"""
import argparse
import html.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

LIMITERS = ("read", "write")


class StatusDom(html.parser.HTMLParser):
    """Per limiter section: {series id: [(x, y), ...]} of the polylines in its chart."""

    def __init__(self):
        super().__init__()
        self.limiters = {}
        self.refreshes = 0  # How often the page's script swapped its charts in.
        self._section = None
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "div" and a.get("id") == "live":
            self.refreshes = int(a.get("data-refreshes") or 0)
        if tag == "section":
            self._depth += 1
            if "data-limiter" in a:
                self._section = a["data-limiter"]
                self.limiters[self._section] = {}
        elif tag == "polyline" and self._section is not None and "data-series" in a:
            points = []
            for pair in a.get("points", "").split():
                x, y = pair.split(",")
                points.append((float(x), float(y)))
            self.limiters[self._section][a["data-series"]] = points

    def handle_endtag(self, tag):
        if tag == "section":
            self._section = None


def parse(page, with_refreshes=False):
    dom = StatusDom()
    dom.feed(page)
    return (dom.limiters, dom.refreshes) if with_refreshes else dom.limiters


def moved(series):
    """A chart has moved when some series of it takes more than one value."""
    return any(len({y for _, y in points}) > 1 for points in series.values())


def ready(limiters):
    return all(len(limiters.get(name, {}).get("limit", [])) >= 5 for name in LIMITERS) and all(
        moved(limiters[name]) for name in LIMITERS)


def fail(message):
    print("status page browser test: FAIL: " + message, flush=True)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", required=True)
    parser.add_argument("--load", required=True)
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--deadline-seconds", type=float, default=90)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="blobtune-status-")
    server = subprocess.Popen([args.server, "--data-dir", os.path.join(work, "data"),
                               "--listen", "127.0.0.1:0"],
                              stdout=subprocess.PIPE, text=True)
    load = None
    try:
        line = server.stdout.readline()
        match = re.search(r"listening on [^ ]*:(\d+) ", line)
        if not match:
            fail("no 'listening on' line from the server: " + repr(line))
        port = int(match.group(1))
        url = "http://127.0.0.1:%d/status" % port
        load = subprocess.Popen([args.load, "--port", str(port), "--mode", "closed",
                                 "--connections", "16", "--put-fraction", "0.5",
                                 "--size", "4096", "--seconds", "600"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        deadline = time.monotonic() + args.deadline_seconds
        limiters = {}
        while True:
            with urllib.request.urlopen(url, timeout=10) as answer:
                if answer.status != 200:
                    fail("GET /status answered %d" % answer.status)
                if not answer.headers.get("Content-Type", "").startswith("text/html"):
                    fail("GET /status is not HTML: " + answer.headers.get("Content-Type", ""))
                limiters = parse(answer.read().decode("utf-8"))
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
        dom, refreshes = parse(browser.stdout, with_refreshes=True)
        if refreshes < 1:
            fail("the page's refresh script never swapped the charts in")
        for name in LIMITERS:
            if name not in dom:
                fail("no chart for limiter '%s' in the browser's DOM" % name)
            if len(dom[name].get("limit", [])) < 5 or not moved(dom[name]):
                fail("limiter '%s' in the browser: series %r" % (
                    name, {k: len(v) for k, v in dom[name].items()}))
        if browser.stdout.count("<svg") < len(LIMITERS):
            fail("fewer SVG charts than limiters in the browser's DOM")
        print("browser check: %d refreshes by the script; %s" % (refreshes, ", ".join(
            "%s: %d limit points" % (n, len(dom[n]["limit"])) for n in LIMITERS)), flush=True)
    finally:
        for process in (load, server):
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
        shutil.rmtree(work, ignore_errors=True)
    print("status page browser test: PASS", flush=True)


if __name__ == "__main__":
    main()
