"""What the Python tests of blobtune-server share: failing with a message, one keep-alive
HTTP connection to the server that checks the status of each answer, and reading one series of
its /metrics.

    from server_test_client import Client, fail
    client = Client(port)
    body, headers = client.expect("GET", "/blobs/default/a", 200)
    limit = client.metric("blobtune_limiter_limit", 'limiter="write"')
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

    def metric(self, name, *labels):
        """The value of the first series of `name` whose labels include every one of `labels`
        (such as 'limiter="write"'), from one scrape of /metrics; 0 if there is none."""
        text, _ = self.expect("GET", "/metrics", 200)
        for line in text.decode("utf-8").splitlines():
            if line.startswith(name + "{") and all(label in line for label in labels):
                return float(line.rsplit(" ", 1)[1])
        return 0.0
