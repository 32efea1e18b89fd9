"""blobtune-server on 127.0.0.1:0 with blobtune-load driving it, as children of a Python test.

    with LoadedServer(args.server, args.load, ["--connections", "8"]) as server:
        urllib.request.urlopen(server.base + "/metrics")

`server_flags` go on the server's command line (its partitions, say). The server keeps its blobs
in a scratch directory, `work` (the test may use it too); the load runs (for up to ten minutes)
until the `with` block ends, when both get SIGTERM (SIGKILL after 30 s) and the directory is
removed. A server that does not say it listens raises RuntimeError.
"""
import os
import re
import shutil
import subprocess
import tempfile


class LoadedServer:
    def __init__(self, server, load, load_flags, server_flags=()):
        self.work = tempfile.mkdtemp(prefix="blobtune-loaded-")
        self._command = [server, "--data-dir", os.path.join(self.work, "data"),
                         "--listen", "127.0.0.1:0"] + list(server_flags)
        self._load = [load] + list(load_flags) + ["--seconds", "600"]
        self._children = []
        self.port = None
        self.base = None

    def __enter__(self):
        server = subprocess.Popen(self._command, stdout=subprocess.PIPE, text=True)
        self._children.append(server)
        match = re.search(r"listening on [^ ]*:(\d+) ", server.stdout.readline())
        if not match:
            self.__exit__(None, None, None)
            raise RuntimeError("no 'listening on' line from the server")
        self.port = int(match.group(1))
        self.base = "http://127.0.0.1:%d" % self.port
        self._children.append(subprocess.Popen(
            self._load + ["--port", str(self.port)], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL))
        return self

    def __exit__(self, *exception):
        for child in reversed(self._children):  # The load first.
            if child.poll() is None:
                child.terminate()
                try:
                    child.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    child.kill()
        self._children = []
        shutil.rmtree(self.work, ignore_errors=True)
        return False
