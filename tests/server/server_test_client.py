"""What the Python tests of blobtune-server share: failing with a message, and one keep-alive
HTTP connection to the server that checks the status of each answer.

    from server_test_client import Client, fail
    client = Client(port)
    body, headers = client.expect("GET", "/blobs/default/a", 200)
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
