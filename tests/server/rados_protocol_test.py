#!/usr/bin/env python3
"""blobtune-server --store rados against a throwaway Ceph cluster (scripts/rados-cluster): the
protocol checks the LMDB server passes (PUT 201 then 200, GET, HEAD, 404, 400, 413, list with
paging, DELETE 204, /metrics, /healthz) and a clean exit on SIGTERM, with the cluster stopped
afterwards. Exits 77 (skipped) where ceph-mon or ceph-osd is not installed."""

import argparse
import re
import signal
import subprocess

from rados_test_cluster import ThrowawayCluster, skip_without_ceph
from server_test_client import Client, fail


def protocol_checks(client):
    client.expect("PUT", "/blobs/photos/cat-1", 201, b"meow")
    client.expect("PUT", "/blobs/photos/cat-1", 200, b"meow")  # Replaced.
    body, _ = client.expect("GET", "/blobs/photos/cat-1", 200)
    if body != b"meow":
        fail("GET returned %r" % body)
    _, headers = client.expect("HEAD", "/blobs/photos/cat-1", 200)
    if headers.get("Content-Length") != "4":
        fail("HEAD Content-Length %r" % headers.get("Content-Length"))
    # The ETag of a GET comes with its bytes from the one RADOS read; a HEAD's from a stat.
    _, got_headers = client.expect("GET", "/blobs/photos/cat-1", 200)
    if not headers.get("ETag") or got_headers.get("ETag") != headers.get("ETag"):
        fail("GET's ETag %r is not HEAD's %r" % (got_headers.get("ETag"), headers.get("ETag")))
    client.expect("PUT", "/blobs/photos/cat-2", 201, b"purr")
    client.expect("PUT", "/blobs/photos/dog-1", 201, b"woof")
    listed, _ = client.expect("GET", "/blobs/photos?prefix=cat-&limit=10", 200)
    if listed != b"cat-1\t4\ncat-2\t4\n":
        fail("list returned %r" % listed)
    page, _ = client.expect("GET", "/blobs/photos?limit=1&after=cat-1", 200)
    if page != b"cat-2\t4\n":
        fail("second page returned %r" % page)
    client.expect("GET", "/blobs/photos/nothing-here", 404)
    client.expect("GET", "/blobs/nowhere/cat-1", 404)
    big = b"x" * (64 * 1024 + 1)  # The server runs with --max-blob-size 64K.
    status, _, _ = client.send("PUT", "/blobs/photos/big", big)
    if status != 413:
        fail("an oversized PUT answered %d, expected 413" % status)
    client = Client(client.connection.port)  # A 413 may close the connection.
    client.expect("GET", "/blobs/photos/big", 404)
    blob = bytes(range(256)) * 200  # 51,200 bytes holding every byte value.
    client.expect("PUT", "/blobs/photos/bytes", 201, blob)
    got, _ = client.expect("GET", "/blobs/photos/bytes", 200)
    if got != blob:
        fail("a 50 KiB blob came back different (%d bytes)" % len(got))
    client.expect("DELETE", "/blobs/photos/cat-1", 204)
    client.expect("GET", "/blobs/photos/cat-1", 404)
    client.expect("DELETE", "/blobs/photos/cat-1", 404)
    metrics, _ = client.expect("GET", "/metrics", 200)
    for name in (b"blobtune_limiter_limit", b"blobtune_store_commits_total"):
        if name not in metrics:
            fail("/metrics lacks %s" % name.decode())
    # The RADOS store reports its operations and acknowledged writes like the LMDB store.
    for name, labels in (("blobtune_store_operations_total", ('op="put"', 'namespace="photos"')),
                         ("blobtune_store_operations_total", ('op="get"', 'namespace="photos"')),
                         ("blobtune_store_commits_total", ('result="ok"',))):
        if client.metric(name, *labels) < 1:
            fail("/metrics: %s%r is not above 0" % (name, labels))
    client.expect("GET", "/healthz", 200)
    return client


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", required=True)
    parser.add_argument("--cluster-script", required=True)
    args = parser.parse_args()
    skip_without_ceph()

    server = None
    with ThrowawayCluster(args.cluster_script) as cluster:
        try:
            server = subprocess.Popen([args.server, "--store", "rados", "--rados-conf",
                                       cluster.conf, "--rados-pool", "blobtune", "--namespaces",
                                       "photos", "--max-blob-size", "64K", "--listen",
                                       "127.0.0.1:0"],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            line = server.stdout.readline()
            match = re.search(r"listening on [^ ]*:(\d+) \(data rados pool blobtune", line)
            if not match:
                fail("no 'listening on ... rados pool' line from the server: %r" % line)
            protocol_checks(Client(int(match.group(1))))

            server.send_signal(signal.SIGTERM)
            try:
                code = server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                fail("the server did not exit within 60 s of SIGTERM")
            if code != 0:
                fail("the server exited %d after SIGTERM: %s" % (code,
                                                                 server.stdout.read()[-2000:]))
            server = None
        finally:
            if server is not None:
                server.kill()
                server.wait()
    print("rados_protocol_test: PASS", flush=True)


if __name__ == "__main__":
    main()
