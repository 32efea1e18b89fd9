"""What the Python tests of blobtune-server share: failing with a message, one keep-alive
HTTP connection to the server that checks the status of each answer, and reading series of its
/metrics.

    from server_test_client import Client, fail
    client = Client(port)
    body, headers = client.expect("GET", "/blobs/default/a", 200)
    limit = client.metric("blobtune_limiter_limit", 'limiter="write"')
    scrape = client.metrics()          # several series of one scrape
    reads = scrape.value("blobtune_limiter_permits_total", 'limiter="read"', 'outcome="success"')
"""

import http.client
import sys


def fail(message):
    print("FAIL: " + message, file=sys.stderr, flush=True)
    sys.exit(1)


class Client:
    """One keep-alive HTTP connection to the server."""

    def __init__(self, port):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def send(self, method, path, body=None):
        self.connection.request(method, path, body=body)
        answer = self.connection.getresponse()
        return answer.status, answer.read(), answer.headers

    def expect(self, method, path, status, body=None):
        got, payload, headers = self.send(method, path, body)
        if got != status:
            fail("%s %s answered %d, expected %d: %r" % (method, path, got, status, payload[:300]))
        return payload, headers

    def metrics(self):
        """One scrape of /metrics."""
        text, _ = self.expect("GET", "/metrics", 200)
        return Metrics(text.decode("utf-8"))

    def metric(self, name, *labels):
        """The value of one series in a scrape of its own (Metrics.value)."""
        return self.metrics().value(name, *labels)


class Metrics:
    """The series of one /metrics scrape."""

    def __init__(self, text):
        self.lines = text.splitlines()

    def value(self, name, *labels):
        """The value of the first series of `name` whose labels include every one of `labels`
        (such as 'limiter="write"'); 0 if there is none."""
        for line in self.lines:
            if line.startswith(name + "{") and all(label in line for label in labels):
                return float(line.rsplit(" ", 1)[1])
        return 0.0
