"""A throwaway Ceph cluster (scripts/rados-cluster) for the Python tests of blobtune-server
--store rados: started in a scratch directory, stopped and removed when the `with` block ends.
A test run where Ceph's daemons are not installed exits 77 (ctest's skip) instead.

    from rados_test_cluster import ThrowawayCluster, skip_without_ceph
    skip_without_ceph()
    with ThrowawayCluster(args.cluster_script) as cluster:
        cluster.create_pool("shared")       # or the pool it starts with, "blobtune"
        server = [args.server, "--store", "rados", "--rados-conf", cluster.conf, ...]
"""
import os
import shutil
import subprocess
import sys
import tempfile

from server_test_client import fail

SKIPPED = 77


def skip_without_ceph():
    if not (shutil.which("ceph-mon") and shutil.which("ceph-osd")):
        print("skipped: ceph-mon or ceph-osd is not installed (scripts/bootstrap installs them)")
        sys.exit(SKIPPED)


class ThrowawayCluster:
    def __init__(self, script):
        self.script = script
        self.work = tempfile.mkdtemp(prefix="blobtune-rados-test-")
        self.dir = os.path.join(self.work, "cluster")
        self.conf = None

    def __enter__(self):
        start = subprocess.run([self.script, "start", self.dir], capture_output=True, text=True,
                               timeout=120)
        if start.returncode != 0:
            shutil.rmtree(self.work, ignore_errors=True)
            fail("rados-cluster start exited %d:\n%s%s" % (start.returncode, start.stdout,
                                                            start.stderr))
        self.conf = start.stdout.strip().splitlines()[-1]
        return self

    def create_pool(self, name):
        """A new pool of one copy, like the cluster's own (scripts/rados-cluster)."""
        for command in (["osd", "pool", "create", name, "8", "8"],
                        ["osd", "pool", "set", name, "size", "1", "--yes-i-really-mean-it"],
                        ["osd", "pool", "application", "enable", name, "blobtune"]):
            done = subprocess.run(["ceph", "-c", self.conf] + command, capture_output=True,
                                  text=True, timeout=60)
            if done.returncode != 0:
                fail("ceph %s exited %d: %s" % (" ".join(command), done.returncode, done.stderr))

    def __exit__(self, *exception):
        stop = subprocess.run([self.script, "stop", self.dir], capture_output=True, text=True,
                              timeout=60)
        shutil.rmtree(self.work, ignore_errors=True)
        if stop.returncode != 0:
            print("rados-cluster stop exited %d: %s" % (stop.returncode, stop.stderr),
                  file=sys.stderr)
            sys.exit(1)
        return False
