#!/usr/bin/env python3
"""blobtune-server with many connections at once: started with a soft open-file limit of 128
(under prlimit) and --max-connections 400, it raises its own limit, accepts 300 connections
whose requests all arrive before any is answered, and answers every one of them (those past
the request gate wait their turn, none is refused). Started where the hard limit is 128 too, it
says that connections past the limit will wait in the kernel's backlog."""

import argparse
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

from server_test_client import fail

CONNECTIONS = 300


def start(binary, data_dir, nofile):
    process = subprocess.Popen(
        ["prlimit", "--nofile=" + nofile, binary, "--data-dir", data_dir,
         "--listen", "127.0.0.1:0", "--max-connections", "400", "--wait-deadline-ms", "10000",
         "--header-timeout-ms", "120000"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = []
    while True:
        line = process.stdout.readline()
        if not line:
            fail("the server exited before it listened: %r" % "".join(output))
        output.append(line)
        match = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if match:
            break
    threading.Thread(target=process.stdout.read, daemon=True).start()
    return process, int(match.group(1)), "".join(output)


def stop(process):
    process.terminate()
    if process.wait(timeout=60) != 0:
        fail("the server exited %d after SIGTERM" % process.returncode)


def answer_of(sock):
    """The status of the one answer `sock` gets, read until its body is whole."""
    data = b""
    while b"\r\n\r\n" not in data:
        try:
            chunk = sock.recv(4096)
        except socket.timeout:
            fail("no answer within 20 s: the server did not take the connection")
        if not chunk:
            fail("a connection closed before its answer: %r" % data)
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
    while len(body) < length:
        chunk = sock.recv(4096)
        if not chunk:
            fail("a connection closed inside its answer's body")
        body += chunk
    return int(head.split(b" ", 2)[1]), body


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    args = parser.parse_args()
    data_dir = tempfile.mkdtemp(prefix="blobtune-many-")
    try:
        process, port, _ = start(args.server, data_dir, "128:1024")
        sockets = []
        for n in range(CONNECTIONS):
            sock = socket.create_connection(("127.0.0.1", port), timeout=20)
            request = "GET /blobs/default/absent-%d HTTP/1.1\r\nHost: t\r\n\r\n" % n
            sock.sendall(request.encode())
            sockets.append(sock)
        # Newest first: a connection the server could not accept (no file left) would wait in the
        # kernel's backlog until an older one closes, which none does before it is answered.
        for n, sock in reversed(list(enumerate(sockets))):
            status, body = answer_of(sock)
            if status != 404:
                fail("connection %d answered %d, expected 404: %r" % (n, status, body[:200]))
            sock.close()
        stop(process)

        process, _, said = start(args.server, data_dir, "128:128")
        stop(process)
        if "open files are limited to 128" not in said:
            fail("with a hard limit of 128 files the server did not say so: %r" % said)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    print("many_connections_test: PASS")


if __name__ == "__main__":
    main()
