#!/usr/bin/env python3
"""What the dashboard and the rules use, a running blobtune-server exports.

Collects every metric name that metrics/dashboards/*.json and metrics/rules/*.yml use (names
starting with blobtune_ or process_; recording rules' own names, which hold a colon, and
Prometheus' `up` are not the server's). Starts blobtune-server on 127.0.0.1:0, drives it with
blobtune-load and a few requests of its own (a missing blob, so that the store counts an
error), and scrapes GET /metrics until every name has a sample, under a deadline. The last
scrape must pass `promtool check metrics`. Then runs the README's server example and checks that
it exports every family the server does, but the algorithm's estimates, which depend on the
algorithm (docs/METRICS.md). Prints "server metrics coverage: PASS" on success.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

# The server's test helpers (tests/server).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
from loaded_server import LoadedServer  # noqa: E402

NAME = re.compile(r"(?<![\w:])((?:blobtune|process)_[a-z0-9_]+)(?![\w:])")
SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{.*\})? \S+$")
# Exported only by the algorithms that estimate them (docs/METRICS.md, "Limiters").
ALGORITHM_ESTIMATES = {"blobtune_limiter_baseline_latency_seconds",
                       "blobtune_limiter_recent_latency_seconds",
                       "blobtune_limiter_max_throughput", "blobtune_limiter_algorithm_state"}


def fail(message):
    print("server metrics coverage: FAIL: " + message, flush=True)
    sys.exit(1)


def strings(value):
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def used_names(source_dir):
    names = {}
    for path in sorted(glob.glob(os.path.join(source_dir, "metrics", "dashboards", "*.json"))):
        for text in strings(json.load(open(path, encoding="utf-8"))):
            for name in NAME.findall(text):
                names.setdefault(name, os.path.basename(path))
    for path in sorted(glob.glob(os.path.join(source_dir, "metrics", "rules", "*.yml"))):
        if path.endswith(".test.yml"):
            continue
        for line in open(path, encoding="utf-8"):
            for name in NAME.findall(line.split("#", 1)[0]):
                names.setdefault(name, os.path.basename(path))
    return names


def sampled(exposition):
    """Names with at least one sample line."""
    out = set()
    for line in exposition.splitlines():
        match = SAMPLE.match(line)
        if match and not line.startswith("#"):
            out.add(match.group(1))
    return out


def families(exposition):
    return set(re.findall(r"^# TYPE (\S+) ", exposition, re.M))


def request(base, method, path, body=None):
    try:
        with urllib.request.urlopen(urllib.request.Request(base + path, data=body, method=method),
                                    timeout=10) as answer:
            return answer.status, answer.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, ""


def check_server(base, names, promtool, deadline_seconds):
    """Every name has a sample in `base`/metrics before the deadline; returns its families."""
    if request(base, "GET", "/blobs/default/no-such-blob")[0] != 404:
        fail("a missing blob is not 404")
    deadline = time.monotonic() + deadline_seconds
    while True:
        status, text = request(base, "GET", "/metrics")
        if status != 200:
            fail("GET /metrics answered %d" % status)
        missing = sorted(set(names) - sampled(text))
        if not missing:
            break
        if time.monotonic() > deadline:
            fail("no sample of: " + ", ".join("%s (%s)" % (n, names[n]) for n in missing))
        time.sleep(0.5)  # Between polls of an observable state, under a deadline.
    print("every one has a sample in the server's /metrics, min and max limit included",
          flush=True)
    check = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True,
                           text=True)
    if check.returncode != 0 or check.stdout or check.stderr:
        fail("promtool check metrics: %s%s" % (check.stdout, check.stderr))
    print("promtool check metrics: no problem", flush=True)
    return families(text)


def check_readme_example(program, directory, server_families):
    """The README's server example exports every family of the server but the estimates."""
    os.makedirs(directory, exist_ok=True)  # The example keeps its store in its working directory.
    example = subprocess.run([program], cwd=directory, capture_output=True, text=True,
                             timeout=60)
    if example.returncode != 0:
        fail("the README's server example exited %d: %s" % (example.returncode,
                                                             example.stderr[-2000:]))
    lacking = sorted(server_families - families(example.stdout) - ALGORITHM_ESTIMATES)
    if lacking:
        fail("the README's server example does not export: " + ", ".join(lacking))
    print("the README's server example exports all %d families of the server" %
          len(server_families - ALGORITHM_ESTIMATES), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", required=True)
    parser.add_argument("--load", required=True)
    parser.add_argument("--readme-example", required=True)
    parser.add_argument("--promtool", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--deadline-seconds", type=float, default=60)
    args = parser.parse_args()

    names = used_names(args.source_dir)
    for bound in ("blobtune_limiter_min_limit", "blobtune_limiter_max_limit"):
        if bound not in names:
            fail("the dashboard and rules no longer use %s" % bound)
    print("names used by the dashboard and rules: %d" % len(names), flush=True)

    try:
        load = ["--connections", "8", "--put-fraction", "0.5", "--size", "4096"]
        with LoadedServer(args.server, args.load, load) as server:
            server_families = check_server(server.base, names, args.promtool,
                                           args.deadline_seconds)
            check_readme_example(args.readme_example, os.path.join(server.work, "example"),
                                 server_families)
    except RuntimeError as e:
        fail(str(e))
    print("server metrics coverage: PASS", flush=True)


if __name__ == "__main__":
    main()
