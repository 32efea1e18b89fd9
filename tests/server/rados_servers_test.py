#!/usr/bin/env python3
"""Two blobtune-servers on one Ceph pool, each with its own data directory (where its limiters'
state is kept) and its own blobtune-load: both are served; every PUT either load had
acknowledged reads back byte for byte through the OTHER server; and once server A's clients have
stopped, server B takes the capacity they leave, before B's load ends: the store operations B
serves alone (its writes, and the reads of A's read-back, which go through B) reach most of the
writes both servers served together. Served operations are the rates of
blobtune_limiter_permits_total{outcome="success"} in each server's /metrics. B's write limit
(blobtune_limiter_limit) is reported, not judged: with A's clients gone each access is faster, so
B may carry A's share at the limit it had, or even a lower one (Little's law), and a limit that
fell while B served more is not a failure to take the capacity.

A throwaway cluster (scripts/rados-cluster) with a pool made for the test; exits 77 (skipped)
where ceph-mon or ceph-osd is not installed."""

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import time

from rados_test_cluster import ThrowawayCluster, skip_without_ceph
from server_test_client import Client, fail

POOL = "shared"
# More connections than the limits take, so that a limit, not the clients, holds each server.
CONNECTIONS = 64
# Both loads run SHARED_S measured seconds after a 1 s warm-up; B's goes on for ALONE_S more,
# the deadline for A's clients to stop and B to take their share.
SHARED_S = 4
ALONE_S = 12
# B alone must serve this fraction of the pair's writes, over a window of WINDOW_S.
TAKEOVER = 0.75
WINDOW_S = 1.5
POLL_S = 0.25


def start_server(binary, conf, data_dir):
    os.makedirs(data_dir)
    server = subprocess.Popen([binary, "--store", "rados", "--rados-conf", conf, "--rados-pool",
                               POOL, "--data-dir", data_dir, "--listen", "127.0.0.1:0"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = server.stdout.readline()
    match = re.search(r"listening on [^ ]*:(\d+) \(data rados pool %s" % POOL, line)
    if not match:
        server.kill()
        fail("no 'listening on ... rados pool %s' line from the server: %r" % (POOL, line))
    return server, int(match.group(1))


def start_load(binary, port, other_port, name, seconds):
    return subprocess.Popen([binary, "--port", str(port), "--verify-port", str(other_port),
                             "--connections", str(CONNECTIONS), "--put-fraction", "1", "--size",
                             "4K", "--warmup", "1", "--seconds", str(seconds), "--id-prefix",
                             name, "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


class ServedSeries:
    """A server's write limit and its successful writes and reads, scraped from /metrics over
    time."""

    def __init__(self, port):
        self.client = Client(port)
        self.points = []  # (time, write limit, writes, writes + reads)

    def scrape(self):
        scrape = self.client.metrics()
        writes, reads = (scrape.value("blobtune_limiter_permits_total", 'limiter="%s"' % name,
                                      'outcome="success"') for name in ("write", "read"))
        limit = scrape.value("blobtune_limiter_limit", 'limiter="write"')
        self.points.append((time.monotonic(), limit, writes, writes + reads))

    def rate(self, since, until=None, reads=False):
        """Successful writes (and reads, if `reads`) per second between the first scrape at or
        after `since` and the last one at or before `until` (the latest without one); None with
        fewer than two."""
        inside = [p for p in self.points if p[0] >= since and (until is None or p[0] <= until)]
        if len(inside) < 2 or inside[-1][0] <= inside[0][0]:
            return None
        column = 3 if reads else 2
        return (inside[-1][column] - inside[0][column]) / (inside[-1][0] - inside[0][0])

    def limits(self, since, until=None):
        return [p[1] for p in self.points if p[0] >= since and (until is None or p[0] <= until)]


def finish_load(load, name, port, other_port):
    """The load's JSON line, after checking it exited 0 having been served and having read every
    acknowledged PUT back intact through the other server."""
    output, _ = load.communicate(timeout=120)
    if load.returncode != 0:
        fail("load %s exited %d:\n%s" % (name, load.returncode, output[-3000:]))
    lines = [line for line in output.splitlines() if line.startswith("{")]
    if not lines:
        fail("load %s printed no JSON line:\n%s" % (name, output[-3000:]))
    result = json.loads(lines[-1])
    if result["ok"] == 0:
        fail("server %s (port %d) served no PUT of load %s" % (name, port, name))
    if result["verified_checked"] != result["acknowledged"] or result["acknowledged"] == 0:
        fail("load %s checked %d of %d acknowledged PUTs" % (name, result["verified_checked"],
                                                              result["acknowledged"]))
    if result["verified_intact"] != result["verified_checked"]:
        fail("load %s: %d of %d acknowledged PUTs read back intact through port %d:\n%s"
             % (name, result["verified_intact"], result["verified_checked"], other_port,
                output[-3000:]))
    print("load %s: %.0f PUTs/s acknowledged on port %d, %d read back intact through port %d"
          % (name, result["ok_per_s"], port, result["verified_intact"], other_port), flush=True)
    return result


def describe(limits):
    if not limits:
        return "-"
    return "%g..%g (median %g)" % (min(limits), max(limits), sorted(limits)[len(limits) // 2])


def scrape_until(series, done, deadline):
    """Scrapes every series each POLL_S, asking done() after each scrape, until it is true
    (True) or `deadline` passes (False)."""
    while True:
        for s in series:
            s.scrape()
        if done():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(POLL_S)


def run(args, cluster, work):
    cluster.create_pool(POOL)
    servers = {}
    loads = {}
    try:
        for name in ("a", "b"):
            servers[name] = start_server(args.server, cluster.conf, os.path.join(work, name))
        port = {name: servers[name][1] for name in servers}
        series = {name: ServedSeries(port[name]) for name in servers}
        loads["a"] = start_load(args.load, port["a"], port["b"], "a", SHARED_S)
        loads["b"] = start_load(args.load, port["b"], port["a"], "b", SHARED_S + ALONE_S)
        started = time.monotonic()
        b_ends = started + 1 + SHARED_S + ALONE_S

        # Both loads at once, over A's measured window (after the warm-up and first connections),
        # until A serves no more writes: its clients have stopped (its load now reads its blobs
        # back through B).
        shared_from, shared_until = started + 1.5, started + 1 + SHARED_S - 0.25

        def a_stopped():
            points = series["a"].points
            return (points and points[-1][0] > shared_until + 0.5 and len(points) >= 2 and
                    points[-1][2] == points[-2][2])

        if not scrape_until(series.values(), a_stopped, b_ends - 2 * WINDOW_S):
            fail("server A was still serving writes %.0f s after its load's window ended"
                 % (b_ends - 2 * WINDOW_S - shared_until))
        shared = {name: series[name].rate(shared_from, shared_until) for name in series}
        if None in shared.values() or min(shared.values()) <= 0:
            fail("not both servers served writes while both loads ran: %r" % shared)
        pair = sum(shared.values())
        shared_limits = series["b"].limits(shared_from, shared_until)
        print("both loads: A %.0f and B %.0f writes/s (%.0f together); write limit A %s, B %s"
              % (shared["a"], shared["b"], pair,
                 describe(series["a"].limits(shared_from, shared_until)),
                 describe(shared_limits)), flush=True)

        # A's clients have stopped: before its load ends, B alone must serve most of what the
        # pair served.
        shared_median = statistics.median(shared_limits)
        alone_from = time.monotonic()
        reached = {}  # "served": (seconds after A's clients stopped, operations per second).

        def took_over():
            now = time.monotonic()
            served = (series["b"].rate(now - WINDOW_S, reads=True)
                      if now - alone_from >= WINDOW_S else None)
            if served is not None and served >= TAKEOVER * pair:
                reached["served"] = (now - alone_from, served)
            return "served" in reached

        if not scrape_until([series["b"]], took_over, b_ends):
            best = max([series["b"].rate(p[0], p[0] + WINDOW_S, reads=True) or 0.0
                        for p in series["b"].points if p[0] >= alone_from] or [0.0])
            fail("B alone did not take A's share before its load ended: at best %.0f operations/s "
                 "over %.1f s, against %.0f%% of the pair's %.0f writes/s; write limit %s alone, "
                 "%s shared" % (best, WINDOW_S, 100 * TAKEOVER, pair,
                                describe(series["b"].limits(alone_from)), describe(shared_limits)))
        print("B alone: %.0f operations/s (%.0f%% of the pair's writes) %.1f s after A's clients "
              "stopped; write limit %s alone, median %g shared"
              % (reached["served"][1], 100 * reached["served"][1] / pair, reached["served"][0],
                 describe(series["b"].limits(alone_from)), shared_median), flush=True)

        for name, other in (("a", "b"), ("b", "a")):
            finish_load(loads.pop(name), name, port[name], port[other])
        for name in ("a", "b"):
            server, _ = servers.pop(name)
            server.send_signal(signal.SIGTERM)
            output, _ = server.communicate(timeout=60)
            if server.returncode != 0:
                fail("server %s exited %d after SIGTERM: %s" % (name, server.returncode,
                                                                output[-2000:]))
            # Each server saved its own limiters' state in its own data directory.
            for limiter in ("read", "write"):
                if not os.path.exists(os.path.join(work, name, "limiter-%s.state" % limiter)):
                    fail("server %s left no limiter-%s.state in its data directory"
                         % (name, limiter))
    finally:
        for child in list(loads.values()) + [s for s, _ in servers.values()]:
            if child.poll() is None:
                child.kill()
                child.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", required=True)
    parser.add_argument("--load", required=True)
    parser.add_argument("--cluster-script", required=True)
    args = parser.parse_args()
    skip_without_ceph()
    with ThrowawayCluster(args.cluster_script) as cluster:
        run(args, cluster, cluster.work)
    print("rados_servers_test: PASS", flush=True)


if __name__ == "__main__":
    main()
