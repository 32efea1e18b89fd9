#!/usr/bin/env python3
"""blobtune-server on a full disk: its data directory on a 16 MiB tmpfs mounted for the test,
filled with 100 KB PUTs. Past full every PUT gets 507 naming the full disk and the directory,
without Retry-After; reads go on; /metrics counts the failures; a second server on the same
directory exits 1 naming it and the holder's pid; deletes make room and PUTs get 201 again;
after kill -9 at full, with PUTs in flight, a new server opens the directory and every
acknowledged blob reads back intact. Exits 77 (skipped) where a tmpfs cannot be mounted."""

import argparse
import http.client
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

from server_test_client import Client, fail

SKIPPED = 77
BLOB_BYTES = 100_000


def body_of(blob_id):
    seed = blob_id.encode()
    return (seed + b":" + bytes(range(256))) * (BLOB_BYTES // (len(seed) + 257)) + seed


class Server:
    """blobtune-server on `data_dir`, as a child process."""

    def __init__(self, binary, data_dir):
        self.process = subprocess.Popen(
            [binary, "--data-dir", data_dir, "--listen", "127.0.0.1:0"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if not match:
            fail("the server did not say it listens: %r" % (line + self.process.stdout.read()))
        self.port = int(match.group(1))
        # The rest of its output is drained, so that the server never blocks on a full pipe.
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)


def fill(client, acked, data_dir, prefix):
    """PUTs fresh blobs until one is refused; checks that the refusal is the full disk's."""
    for n in range(1000):
        blob_id = "%s-%d" % (prefix, n)
        status, payload, headers = client.send("PUT", "/blobs/default/" + blob_id, body_of(blob_id))
        if status in (200, 201):
            acked.add(blob_id)
            continue
        expect_full_disk(status, payload, headers, data_dir)
        return n
    fail("1000 PUTs of 100 KB fitted on a 16 MiB disk")


def expect_full_disk(status, payload, headers, data_dir):
    if status != 507:
        fail("a PUT on a full disk answered %d, expected 507: %r" % (status, payload[:300]))
    text = payload.decode("utf-8", "replace")
    if "disk full" not in text or "'%s'" % data_dir not in text:
        fail("the 507 does not name the full disk and '%s': %r" % (data_dir, text))
    if headers.get("Retry-After") is not None:
        fail("a 507 carries Retry-After: %r" % headers.get("Retry-After"))


def expect_intact(client, acked, deleted):
    for blob_id in sorted(acked):
        payload, _ = client.expect("GET", "/blobs/default/" + blob_id, 200)
        if payload != body_of(blob_id):
            fail("acknowledged blob %s came back different (%d bytes)" % (blob_id, len(payload)))
    for blob_id in sorted(deleted):
        client.expect("GET", "/blobs/default/" + blob_id, 404)


def second_server_is_refused(binary, data_dir, holder_pid):
    second = subprocess.run([binary, "--data-dir", data_dir, "--listen", "127.0.0.1:0"],
                            capture_output=True, text=True, timeout=30)
    said = second.stdout + second.stderr
    if second.returncode != 1:
        fail("a second server on the data directory exited %d: %r" % (second.returncode, said))
    if "'%s'" % data_dir not in said or "pid %d" % holder_pid not in said:
        fail("the second server's message does not name '%s' and pid %d: %r"
             % (data_dir, holder_pid, said))
    print("second server: " + said.strip(), flush=True)


def kill_with_puts_in_flight(server, acked):
    """Four writers PUT fresh blobs; the server is killed once each has had answers."""
    answered = [0] * 4
    progress = threading.Condition()

    def writer(index):
        client = Client(server.port)
        for n in range(100000):
            blob_id = "inflight-%d-%d" % (index, n)
            try:
                status, _, _ = client.send("PUT", "/blobs/default/" + blob_id, body_of(blob_id))
            except (OSError, http.client.HTTPException):
                return  # Killed: no answer, so not acknowledged.
            with progress:
                if status in (200, 201):
                    acked.add(blob_id)
                answered[index] += 1
                progress.notify_all()

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    with progress:
        if not progress.wait_for(lambda: min(answered) >= 5, timeout=60):
            fail("the writers had no answers within 60 s: %r" % answered)
    server.kill()
    for thread in threads:
        thread.join(timeout=60)
    print("killed the server at full after %d answers in flight" % sum(answered), flush=True)


def run(binary, data_dir):
    acked, deleted = set(), set()
    server = Server(binary, data_dir)
    try:
        client = Client(server.port)
        refused_at = fill(client, acked, data_dir, "first")
        print("full after %d PUTs of 100 KB" % refused_at, flush=True)
        if refused_at < 50:
            fail("only %d PUTs fitted on the 16 MiB disk" % refused_at)
        status, payload, headers = client.send("PUT", "/blobs/default/again", body_of("again"))
        expect_full_disk(status, payload, headers, data_dir)
        expect_intact(client, acked, deleted)  # Reads go on.
        for name, labels, least in (
                ("blobtune_store_errors_total", ('op="put"', 'code="RESOURCE_EXHAUSTED"'), 2),
                ("blobtune_store_commits_total", ('result="error"',), 2)):
            if client.metric(name, *labels) < least:
                fail("/metrics: %s%r is below %d" % (name, labels, least))
        second_server_is_refused(binary, data_dir, server.process.pid)

        for blob_id in sorted(acked)[:40]:
            client.expect("DELETE", "/blobs/default/" + blob_id, 204)
            acked.discard(blob_id)
            deleted.add(blob_id)
        refilled = fill(client, acked, data_dir, "second")
        print("after 40 deletes, %d more PUTs fitted" % refilled, flush=True)
        if refilled < 30:
            fail("40 deletes made room for only %d PUTs" % refilled)
        kill_with_puts_in_flight(server, acked)

        server = Server(binary, data_dir)  # Nothing left by the killed one blocks it.
        client = Client(server.port)
        expect_intact(client, acked, deleted)
        print("after kill -9 at full: %d acknowledged blobs intact, %d deleted ones absent"
              % (len(acked), len(deleted)), flush=True)
        status, payload, headers = client.send("PUT", "/blobs/default/third", body_of("third"))
        expect_full_disk(status, payload, headers, data_dir)
        # LMDB reuses the pages a delete frees from the second commit after it on.
        for blob_id in sorted(acked)[:3]:
            client.expect("DELETE", "/blobs/default/" + blob_id, 204)
        client.expect("PUT", "/blobs/default/third", 201, body_of("third"))
        server.process.send_signal(signal.SIGTERM)
        code = server.process.wait(timeout=60)
        server = None
        if code != 0:
            fail("the server exited %d after SIGTERM" % code)
    finally:
        if server is not None:
            server.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", required=True)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="blobtune-full-disk-")
    mount_point = os.path.join(work, "fs")
    os.mkdir(mount_point)
    mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m,mode=0755", "tmpfs",
                            mount_point], capture_output=True, text=True)
    if mount.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        print("skipped: cannot mount a tmpfs here (%s); the full-disk test needs root or "
              "CAP_SYS_ADMIN" % (mount.stderr.strip() or "mount exited %d" % mount.returncode))
        sys.exit(SKIPPED)
    try:
        run(args.server, os.path.join(mount_point, "data"))
        print("full_disk_test: PASS", flush=True)
    finally:
        subprocess.run(["umount", "-l", mount_point], check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
