#!/usr/bin/env python3
"""Soak test of blobtune-server (tests/server/soak.sh runs it): ROUNDS times, start the server on
one data directory, check what earlier rounds were told, run concurrent PUT and DELETE writers
and kill -9 the server at a random moment in the middle of their writes. Every other round the
server starts with a 1 MiB map, so that its map grows while the writers write (LMDB opens a
store at the size asked for or at the size its data needs, whichever is larger). At the end,
every id is read back. Reports acknowledged writes, lost ones (an acknowledged PUT missing, or
an acknowledged DELETE undone) and corrupt ones (bytes that differ from what was acknowledged).
A write without an answer (the server died first) may have been applied or not: either is
accepted, and what the next round reads decides."""

import argparse
import http.client
import random
import re
import signal
import subprocess
import sys
import threading
import time

ABSENT = ("absent",)


def body_of(blob_id, version):
    rng = random.Random("%s:%d" % (blob_id, version))
    return rng.randbytes(rng.choice((512, 4096, 30000, 65536, 200000)))


class Server:
    def __init__(self, binary, data_dir, extra):
        self.process = subprocess.Popen([binary, "--data-dir", data_dir, "--listen", "127.0.0.1:0"]
                                        + extra, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if not match:
            sys.exit("soak: the server did not start: %r" % (line + self.process.stdout.read()))
        self.port = int(match.group(1))
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=60)


class IdPool:
    """A set with a uniformly random pick in O(1)."""

    def __init__(self):
        self.ids, self.at = [], {}

    def __len__(self):
        return len(self.ids)

    def add(self, blob_id):
        if blob_id not in self.at:
            self.at[blob_id] = len(self.ids)
            self.ids.append(blob_id)

    def discard(self, blob_id):
        index = self.at.pop(blob_id, None)
        if index is not None:
            last = self.ids.pop()
            if index < len(self.ids):
                self.ids[index] = last
                self.at[last] = index

    def pick(self, rng):
        return self.ids[rng.randrange(len(self.ids))]


class Ledger:
    """What the server acknowledged about each id: ("present", version) or ABSENT, or, for an
    id whose last write got no answer, the set of states it may be in. `idle` holds the ids
    known present with no write in flight: the ones a writer may overwrite or delete."""

    def __init__(self):
        self.lock = threading.Condition()
        self.state = {}          # id -> state, or a frozenset of possible states
        self.idle = IdPool()
        self.touched = set()     # ids written since they were last read back
        self.acknowledged = self.lost = self.corrupt = self.unanswered = 0
        self.answers = 0         # answers in the current round
        self.next_id = 0

    def set_state(self, blob_id, state):
        self.state[blob_id] = state
        if state != ABSENT and not isinstance(state, frozenset):
            self.idle.add(blob_id)
        else:
            self.idle.discard(blob_id)

    def settle(self, blob_id, before, after, answered):
        with self.lock:
            self.touched.add(blob_id)
            if answered:
                self.set_state(blob_id, after)
                self.acknowledged += 1
                self.answers += 1
                self.lock.notify_all()
            else:
                old = before if isinstance(before, frozenset) else frozenset([before])
                self.set_state(blob_id, old | {after})
                self.unanswered += 1


def send(connection, method, path, body=None):
    connection.request(method, path, body=body)
    answer = connection.getresponse()
    return answer.status, answer.read()


def writer(port, ledger, rng, deletes, live, stop):
    """PUTs new ids and new versions of present ones, or (deletes) DELETEs present ids while
    more than `live` are present."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while not stop.is_set():
        with ledger.lock:
            if deletes and len(ledger.idle) <= live:
                ledger.lock.wait(timeout=0.1)  # Until PUTs land.
                continue
            if deletes or (len(ledger.idle) > 0 and rng.random() < 0.25):
                blob_id = ledger.idle.pick(rng)
                ledger.idle.discard(blob_id)  # In flight: no other writer takes it.
            else:
                ledger.next_id += 1
                blob_id = "b%d" % ledger.next_id
            before = ledger.state.get(blob_id, ABSENT)
        version = before[1] + 1 if before != ABSENT else 1
        after = ABSENT if deletes else ("present", version)
        try:
            if deletes:
                status, _ = send(connection, "DELETE", "/blobs/default/" + blob_id)
            else:
                status, _ = send(connection, "PUT", "/blobs/default/" + blob_id,
                                 body_of(blob_id, version))
        except (OSError, http.client.HTTPException):
            ledger.settle(blob_id, before, after, answered=False)
            return  # The server is gone.
        if status in (200, 201, 204):
            ledger.settle(blob_id, before, after, answered=True)
        elif deletes and status == 404:  # An acknowledged PUT the server no longer has.
            print("LOST: %s (DELETE answered 404)" % blob_id, flush=True)
            with ledger.lock:
                ledger.lost += 1
            ledger.settle(blob_id, before, ABSENT, answered=True)
        else:  # Refused (503 under load): not applied, but checked like an unanswered write.
            ledger.settle(blob_id, before, after, answered=False)


def check(port, ledger, ids):
    """Reads `ids` back and holds them against the ledger; resolves unanswered writes."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for blob_id in ids:
        for _ in range(100):
            status, payload = send(connection, "GET", "/blobs/default/" + blob_id)
            if status != 503:
                break
        expected = ledger.state[blob_id]
        allowed = expected if isinstance(expected, frozenset) else frozenset([expected])
        if status == 404:
            seen = ABSENT
        elif status == 200:
            seen = next((s for s in allowed if s != ABSENT and payload == body_of(blob_id, s[1])),
                        None)
        else:
            seen = None  # 500 DATA_LOSS: a checksum that does not match.
        if seen in allowed:
            ledger.set_state(blob_id, seen)
        elif status == 404:
            ledger.lost += 1
            print("LOST: %s, acknowledged as %r, is missing" % (blob_id, expected), flush=True)
            ledger.set_state(blob_id, ABSENT)
        elif status == 200 and ABSENT in allowed and len(allowed) == 1:
            ledger.lost += 1  # An acknowledged DELETE undone.
            print("LOST: %s, deleted with an acknowledgement, is back" % blob_id, flush=True)
        else:
            ledger.corrupt += 1
            print("CORRUPT: %s answered %d (%d bytes), expected %r"
                  % (blob_id, status, len(payload), expected), flush=True)
        ledger.touched.discard(blob_id)


def map_growths(port):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    _, text = send(connection, "GET", "/metrics")
    match = re.search(rb"^blobtune_store_map_growths_total\{[^}]*\} (\S+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


def soak_round(args, ledger, rng, round_index):
    grow = round_index % 2 == 1
    server = Server(args.server, args.data_dir, ["--initial-map-size", "1M"] if grow else [])
    sample = rng.sample(sorted(ledger.state), min(args.sample, len(ledger.state)))
    check(server.port, ledger, sorted(ledger.touched | set(sample)))
    ledger.answers = 0
    stop = threading.Event()
    threads = [threading.Thread(target=writer,
                                args=(server.port, ledger, random.Random(rng.random()),
                                      i >= args.writers, args.live, stop))
               for i in range(args.writers + args.deleters)]
    for thread in threads:
        thread.start()
    kill_after = rng.randint(1, args.max_answers)
    with ledger.lock:
        if not ledger.lock.wait_for(lambda: ledger.answers >= kill_after, timeout=60):
            sys.exit("soak: round %d: %d answers in 60 s" % (round_index, ledger.answers))
    grew = map_growths(server.port) > 0
    server.kill()
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    return grew


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", required=True)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--writers", type=int, default=4, help="threads that PUT")
    parser.add_argument("--deleters", type=int, default=2, help="threads that DELETE")
    parser.add_argument("--live", type=int, default=1000,
                        help="DELETE writers delete while more blobs than this are present")
    parser.add_argument("--max-answers", type=int, default=400,
                        help="each round kills after a random 1..N acknowledged writes")
    parser.add_argument("--sample", type=int, default=100,
                        help="ids not written since the last check read back each round")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ledger = Ledger()
    start = time.monotonic()
    grew = 0
    for round_index in range(args.rounds):
        grew += soak_round(args, ledger, rng, round_index)
        if (round_index + 1) % 10 == 0 or round_index + 1 == args.rounds:
            print("round %d/%d, %.0f s: %d acknowledged, %d unanswered, %d lost, %d corrupt, "
                  "map grew in %d rounds" % (round_index + 1, args.rounds,
                                             time.monotonic() - start, ledger.acknowledged,
                                             ledger.unanswered, ledger.lost, ledger.corrupt, grew),
                  flush=True)
    server = Server(args.server, args.data_dir, [])
    check(server.port, ledger, sorted(ledger.state))
    live = sum(1 for s in ledger.state.values() if s != ABSENT)
    server.process.send_signal(signal.SIGTERM)
    code = server.process.wait(timeout=60)
    print("soak: %d rounds in %.0f s: %d writes acknowledged, %d unanswered (killed in flight), "
          "%d lost, %d corrupt; map grew in %d rounds; %d ids, %d present at the end, all read "
          "back; server exit %d after SIGTERM"
          % (args.rounds, time.monotonic() - start, ledger.acknowledged, ledger.unanswered,
             ledger.lost, ledger.corrupt, grew, len(ledger.state), live, code), flush=True)
    sys.exit(0 if ledger.lost == 0 and ledger.corrupt == 0 and code == 0 else 1)


if __name__ == "__main__":
    main()
