#!/usr/bin/env python3
"""blobtune-server behind Debian's nginx, configured by the README's block (section "Behind a
reverse proxy"; the test builds its nginx.conf from that block, changing only the two ports).
Sends the request-smuggling and framing cases through the proxy on raw sockets: Transfer-Encoding
gzip without and with Content-Length, Content-Length and Transfer-Encoding in both orders, a bad
chunk, a duplicate Transfer-Encoding, Transfer-Encoding in HTTP/1.0, no Host, an obs-fold, bare
LFs, a PUT without length, pipelined requests; then plain PUT, GET and DELETE. Each case hides
"DELETE /blobs/default/victim" and "PUT /blobs/default/smuggled" where a server that framed the
request differently from the proxy would take them for requests. Checks that every request
nginx forwarded (its access log's $upstream_status) was answered exactly once by the server (its
/metrics, blobtune_http_requests_total, before and after), that nginx never sent one twice, that
the victim is intact and no smuggled id exists, and that Retry-After and ETag pass through.
Exits 77 (skipped) where nginx is not installed."""

import argparse
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from server_test_client import Client, fail

SKIPPED = 77
VICTIM = b"still here"
SMUGGLED = (b"DELETE /blobs/default/victim HTTP/1.1\r\nHost: x\r\n\r\n"
            b"PUT /blobs/default/smuggled HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nbad")


def readme_nginx_block(readme):
    """The nginx block of the README's reverse-proxy section, as written there."""
    text = open(readme).read()
    match = re.search(r"<!-- nginx-config:[^>]*-->\n```nginx\n(.*?)```", text, re.S)
    if not match:
        fail("README.md has no nginx block marked nginx-config")
    return match.group(1)


def nginx_conf(block, temp, server_port, proxy_port):
    """The README's block on these ports, inside a main config that keeps every file in `temp`."""
    if "server 127.0.0.1:8080;" not in block or "listen 127.0.0.1:8081;" not in block:
        fail("the README's nginx block no longer names 127.0.0.1:8080 and 127.0.0.1:8081")
    block = block.replace("server 127.0.0.1:8080;", "server 127.0.0.1:%d;" % server_port)
    block = block.replace("listen 127.0.0.1:8081;", "listen 127.0.0.1:%d;" % proxy_port)
    paths = {name: os.path.join(temp, name) for name in
             ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for path in paths.values():
        os.makedirs(path, exist_ok=True)
    return """
worker_processes 1;
daemon off;
pid {temp}/nginx.pid;
error_log {temp}/error.log info;
events {{ worker_connections 256; }}
http {{
    log_format upstreams '$request_method $status "$upstream_status"';
    access_log {temp}/access.log upstreams;
    client_body_temp_path {client_body};
    proxy_temp_path {proxy};
    fastcgi_temp_path {fastcgi};
    uwsgi_temp_path {uwsgi};
    scgi_temp_path {scgi};
{block}
}}
""".format(temp=temp, block=block, **paths)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, process, what):
    for _ in range(200):
        if process.poll() is not None:
            fail("%s exited with %d" % (what, process.returncode))
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    fail("%s does not listen on %d" % (what, port))


def read_answers(sock, quiet=1.0):
    """Every HTTP answer that comes on `sock` until it closes or stays quiet `quiet` seconds:
    a list of (status, headers dict with lower-case names, body)."""
    sock.settimeout(quiet)
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    answers = []
    while data:
        end = data.find(b"\r\n\r\n")
        if end < 0:
            fail("a partial answer: %r" % data[:300])
        lines = data[:end].decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        data = data[end + 4:]
        body = b""
        if headers.get("transfer-encoding", "").lower() == "chunked":
            while True:
                line_end = data.find(b"\r\n")
                size = int(data[:line_end].split(b";")[0], 16)
                body += data[line_end + 2:line_end + 2 + size]
                data = data[line_end + 2 + size + 2:]
                if size == 0:
                    break
        elif "content-length" in headers and status not in (204, 304) and status >= 200:
            length = int(headers["content-length"])
            body, data = data[:length], data[length:]
        answers.append((status, headers, body))
    return answers


def exchange(port, raw):
    """Sends `raw` on a new connection to `port`; the answers (read_answers)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        return read_answers(sock)


def server_answers(server_port):
    """The server's blobtune_http_requests_total, all methods and codes, read directly."""
    connection = http.client.HTTPConnection("127.0.0.1", server_port, timeout=10)
    connection.request("GET", "/metrics")
    text = connection.getresponse().read().decode()
    connection.close()
    return sum(float(v) for v in
               re.findall(r"^blobtune_http_requests_total\{[^}]*\} (\S+)$", text, re.M))


def access_log_lines(path):
    with open(path) as f:
        return f.read().splitlines()


CASES = [
    # (name, bytes sent through the proxy)
    ("Transfer-Encoding gzip",
     b"PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n" + SMUGGLED),
    ("Transfer-Encoding gzip with Content-Length",
     b"PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n"
     b"Content-Length: %d\r\n\r\n" % len(SMUGGLED) + SMUGGLED),
    ("Content-Length then Transfer-Encoding",
     b"PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + SMUGGLED),
    ("Transfer-Encoding then Content-Length",
     b"PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
     b"Content-Length: %d\r\n\r\n0\r\n\r\n" % (5 + len(SMUGGLED)) + SMUGGLED),
    ("a bad chunk",
     b"PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
     b"3\r\nabcdef\r\n0\r\n\r\n" + SMUGGLED),
    ("a duplicate Transfer-Encoding",
     b"PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + SMUGGLED),
    ("Transfer-Encoding in HTTP/1.0",
     b"PUT /blobs/default/a HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + SMUGGLED),
    ("no Host", b"GET /blobs/default/victim HTTP/1.1\r\n\r\n" + SMUGGLED),
    ("an obs-fold",
     b"PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip,\r\n chunked\r\n"
     b"Content-Length: %d\r\n\r\n" % len(SMUGGLED) + SMUGGLED),
    # A body that reads as requests, framed by its Content-Length: stored, never executed.
    ("bare LFs",
     b"PUT /blobs/default/carrier HTTP/1.1\nHost: x\nContent-Length: %d\n\n" % len(SMUGGLED)
     + SMUGGLED),
    ("a PUT without length", b"PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("a chunked PUT whose body reads as requests",
     b"PUT /blobs/default/carrier2 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
     b"%x\r\n" % len(SMUGGLED) + SMUGGLED + b"\r\n0\r\n\r\n"),
    ("pipelined requests",
     b"PUT /blobs/default/p HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
     b"GET /blobs/default/p HTTP/1.1\r\nHost: x\r\n\r\n"
     b"DELETE /blobs/default/p HTTP/1.1\r\nHost: x\r\n\r\n"
     b"GET /blobs/default/p HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", required=True)
    parser.add_argument("--readme", required=True)
    parser.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    args = parser.parse_args()
    if not os.access(args.nginx, os.X_OK):
        print("reverse_proxy_test: SKIP: no nginx at %s" % args.nginx)
        return SKIPPED

    temp = tempfile.mkdtemp(prefix="blobtune-proxy-")
    server = nginx = None
    try:
        server = subprocess.Popen(
            [args.server, "--data-dir", os.path.join(temp, "data"), "--listen", "127.0.0.1:0",
             "--durability", "nosync", "--max-connections", "8"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = server.stdout.readline()
        match = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if not match:
            fail("the server did not say it listens: %r" % (line + server.stdout.read()))
        server_port = int(match.group(1))
        threading.Thread(target=server.stdout.read, daemon=True).start()

        proxy_port = free_port()
        conf = os.path.join(temp, "nginx.conf")
        with open(conf, "w") as f:
            f.write(nginx_conf(readme_nginx_block(args.readme), temp, server_port, proxy_port))
        nginx = subprocess.Popen([args.nginx, "-p", temp, "-c", conf],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        wait_for_port(proxy_port, nginx, "nginx")

        direct = Client(server_port)
        direct.expect("PUT", "/blobs/default/victim", 201, VICTIM)
        log = os.path.join(temp, "access.log")

        for name, raw in CASES:
            before = server_answers(server_port)
            logged = len(access_log_lines(log))
            answers = exchange(proxy_port, raw)
            time.sleep(0.2)  # nginx writes its log line once the request is done.
            after = server_answers(server_port)
            lines = access_log_lines(log)[logged:]
            if not answers:
                fail("%s: the proxy gave no answer" % name)
            if len(answers) != len(lines):
                fail("%s: the client got %d answers for %d requests the proxy logged: %r"
                     % (name, len(answers), len(lines), lines))
            forwarded = 0
            for entry in lines:
                upstream = entry.split('"')[1]
                if upstream == "-":
                    continue
                if "," in upstream or ":" in upstream:
                    fail("%s: nginx sent a request to the server twice: %s" % (name, entry))
                forwarded += 1
            # The scrape before counts itself in the scrape after.
            answered = after - before - 1
            if answered != forwarded:
                fail("%s: the proxy forwarded %d requests, the server answered %d (log: %r)"
                     % (name, forwarded, answered, lines))
            print("%-45s %s; forwarded %d" % (name, " ".join(str(a[0]) for a in answers),
                                              forwarded), flush=True)
            body, _ = direct.expect("GET", "/blobs/default/victim", 200)
            if body != VICTIM:
                fail("%s: the victim blob changed: %r" % (name, body))
            direct.expect("GET", "/blobs/default/smuggled", 404)

        # The bodies that read as requests were stored as bodies.
        for carrier in ("carrier", "carrier2"):
            body, _ = direct.expect("GET", "/blobs/default/" + carrier, 200)
            if body != SMUGGLED:
                fail("%s holds %r, not the body sent" % (carrier, body))

        # Plain requests through the proxy, ETags passed through.
        proxied = Client(proxy_port)
        _, headers = proxied.expect("PUT", "/blobs/default/plain", 201, b"hello")
        etag = headers.get("ETag")
        _, got = proxied.expect("GET", "/blobs/default/plain", 200)
        if not etag or got.get("ETag") != etag:
            fail("the PUT's ETag %r is not the GET's %r through the proxy" % (etag, got.get("ETag")))
        proxied.expect("DELETE", "/blobs/default/plain", 204)
        proxied.expect("GET", "/blobs/default/plain", 404)

        # Retry-After passes through: the server's connection cap refuses with 503. nginx's idle
        # upstream connections close first (keepalive_timeout), so that it opens a new one.
        time.sleep(5.5)
        held = [socket.create_connection(("127.0.0.1", server_port)) for _ in range(8)]
        time.sleep(0.2)
        status, payload, headers = Client(proxy_port).send("GET", "/healthz")
        for sock in held:
            sock.close()
        if status != 503 or headers.get("Retry-After") is None:
            fail("over the cap through the proxy: %d, Retry-After %r: %r"
                 % (status, headers.get("Retry-After"), payload))
        print("reverse_proxy_test: PASS")
        return 0
    finally:
        for process in (nginx, server):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM if process is server else signal.SIGQUIT)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
        shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
