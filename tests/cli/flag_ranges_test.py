#!/usr/bin/env python3
"""Every flag range README.md states is the range the program has.

README.md states flag ranges in one table, the one after the line `<!-- flag-ranges: ... -->`,
a row for each flag: | `PROGRAM` | `--FLAG` | RANGE |. RANGE is `A..B` (both bounds taken) or
an interval whose parenthesis leaves a bound out: `(A, B]`, `[A, B)`. A bound is a number, or a
size with a K, M or G suffix. For each row this checks that:

  1. the flag's entry in `PROGRAM --help` states exactly one range, and the same one;
  2. the value just past each bound is refused: exit status 2, with a message naming the flag;
  3. each bound itself is taken, where that is cheap to see: when the program checks the range
     before it answers --version (a flag table, examples/common/command_line.h), so that
     `PROGRAM --FLAG PAST --version` exits 2 saying "--FLAG: must be ...",
     `PROGRAM --FLAG BOUND --version` must exit 0.

It also fails where the page's prose writes a range right after a flag ("`--size` from 1K to
64M", "`--messages` up to 10,000"): a flag's range belongs in the table.

Usage: flag_ranges_test.py --readme README.md --bin-dir build/bin
Prints a line per row and "flag ranges: N rows match their programs: PASS", or each mismatch and
exits 1.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile

BOUND = r"-?\d+(?:\.\d+)?[KMG]?"
DOTS = re.compile(r"(?<![\w.])(%s)\.\.(%s)(?![\w.])" % (BOUND, BOUND))
INTERVAL = re.compile(r"([\[(])(%s), (%s)([\])])" % (BOUND, BOUND))
MARKER = re.compile(r"^<!-- flag-ranges: .* -->$")
# A range written next to a flag in prose: the flag, then within a few words a range.
PROSE_RANGE = re.compile(r"`(--[a-z0-9-]+)`[^;,.()`]{0,20}?\b(from \S+ to \S+|up to \S+|"
                         r"\d[\d,.]*[KMG]? to \d|\d[\d.]*[KMG]?\.\.\d)")
SUFFIX = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


class Range:
    """[low, high] with either end open; bounds as written."""

    def __init__(self, low, high, low_open=False, high_open=False):
        self.low, self.high, self.low_open, self.high_open = low, high, low_open, high_open

    def key(self):
        return (value(self.low), value(self.high), self.low_open, self.high_open)

    def __str__(self):
        if not self.low_open and not self.high_open:
            return "%s..%s" % (self.low, self.high)
        return "%s%s, %s%s" % ("(" if self.low_open else "[", self.low, self.high,
                                ")" if self.high_open else "]")


def value(bound):
    if bound[-1] in SUFFIX:
        return float(bound[:-1]) * SUFFIX[bound[-1]]
    return float(bound)


def ranges_in(text):
    found = [Range(m.group(1), m.group(2)) for m in DOTS.finditer(text)]
    found += [Range(m.group(2), m.group(3), m.group(1) == "(", m.group(4) == ")")
              for m in INTERVAL.finditer(text)]
    return found


def past(bound, upper):
    """The value just past `bound`: a byte or 1 past a whole number, one step of its last digit
    past a decimal."""
    if bound[-1] in SUFFIX:
        return str(int(value(bound)) + (1 if upper else -1))
    decimals = len(bound.split(".")[1]) if "." in bound else 0
    step = 10.0 ** -decimals
    moved = value(bound) + (step if upper else -step)
    return ("%.*f" % (decimals, moved)) if decimals else str(int(moved))


def readme_rows(readme):
    """(line number, program, flag, Range) of each row of the flag-ranges table."""
    lines = open(readme, encoding="utf-8").read().splitlines()
    start = next((i for i, line in enumerate(lines) if MARKER.match(line.strip())), None)
    if start is None:
        sys.exit("FAIL: %s has no line '<!-- flag-ranges: ... -->'" % readme)
    rows = []
    for number in range(start + 3, len(lines)):  # After the marker, the header and the rule.
        line = lines[number].strip()
        if not line.startswith("|"):
            break
        cells = [cell.strip().strip("`") for cell in line.strip("|").split("|")]
        stated = ranges_in(cells[2]) if len(cells) == 3 else []
        if len(stated) != 1 or str(stated[0]) != cells[2]:
            sys.exit("FAIL: %s:%d: not '| `PROGRAM` | `--FLAG` | RANGE |': %s"
                     % (readme, number + 1, line))
        rows.append((number + 1, cells[0], cells[1], stated[0]))
    if not rows:
        sys.exit("FAIL: %s: the flag-ranges table has no rows" % readme)
    return rows


def prose_ranges(readme):
    """Ranges written next to a flag outside the table and outside code blocks."""
    found, in_code, paragraph = [], False, []
    lines = open(readme, encoding="utf-8").read().splitlines() + [""]
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code or line.startswith("|") or line.startswith("<!--"):
            continue
        if line.strip():
            paragraph.append((number, line.strip()))
            continue
        text = " ".join(l for _, l in paragraph)
        for m in PROSE_RANGE.finditer(text):
            found.append("README.md:%d: '%s': a range of %s outside the table"
                         % (paragraph[0][0], m.group(0), m.group(1)))
        paragraph = []
    return found


def help_entries(text):
    """{flag: its --help text, one line} from Boost.program_options' --help."""
    entries, name = {}, None
    for line in text.splitlines():
        start = re.match(r"^  (?:-\w \[ )?--([\w-]+)", line)
        if start:
            name = start.group(1)
            entries[name] = line.strip()
        elif name and line.startswith("   "):
            entries[name] += " " + line.strip()
        else:
            name = None
    return {flag: re.sub(r"\(=[^)]*\)", "", text) for flag, text in entries.items()}


def run(command):
    """(exit status, stderr); None for a program still running after 20 s, which is then
    interrupted as Ctrl-C would (so that it removes its scratch files), else killed."""
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
    try:
        return child.wait(timeout=20), child.stderr.read()
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        return None, "still running after 20 s (the value was taken)"


def names_flag(stderr, flag):
    return re.search(r"%s(?![\w-])" % re.escape(flag), stderr) is not None


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--readme", required=True)
    parser.add_argument("--bin-dir", required=True)
    args = parser.parse_args()
    failures = prose_ranges(args.readme)
    with tempfile.TemporaryDirectory(prefix="blobtune-flag-ranges-") as work:
        rows, accepted_checks = check_rows(args, work, failures)
    for failure in failures:
        print("FAIL: " + failure)
    if failures:
        sys.exit(1)
    print("flag ranges: %d rows match their programs (%d bounds seen taken): PASS"
          % (len(rows), accepted_checks))


def check_rows(args, work, failures):
    """Checks each row of the table against its program; returns the rows and how many bounds
    were seen taken."""
    # What a program needs besides the flag under test, so that only that flag can be refused;
    # and should it take the value, a server listens on a port of its own and a load client
    # finds no server.
    needs = {"blobtune-server": ["--data-dir", os.path.join(work, "data"),
                                 "--listen", "127.0.0.1:0"],
             "blobtune-load": ["--port", "1"]}
    helps, accepted_checks = {}, 0
    rows = readme_rows(args.readme)
    for line, program, flag, stated in rows:
        where = "README.md:%d: %s %s" % (line, program, flag)
        path = os.path.join(args.bin_dir, program)
        if program not in helps:
            helps[program] = help_entries(subprocess.run([path, "--help"], capture_output=True,
                                                         text=True, check=True).stdout)
        entry = helps[program].get(flag[2:])
        if entry is None:
            failures.append("%s: --help has no %s" % (where, flag))
            continue
        in_help = ranges_in(entry)
        if len(in_help) != 1 or in_help[0].key() != stated.key():
            failures.append("%s: the README says %s, --help says %s"
                            % (where, stated, ", ".join(map(str, in_help)) or "no range"))
        need = needs.get(program, [])
        if flag in need:  # A flag given twice is refused for that alone.
            failures.append("%s: the test itself gives %s to every run" % (where, flag))
            continue
        base = [path] + need
        for bound, upper, is_open in ((stated.low, False, stated.low_open),
                                      (stated.high, True, stated.high_open)):
            beyond = bound if is_open else past(bound, upper)
            code, stderr = run(base + [flag, beyond])
            if code != 2 or not names_flag(stderr, flag):
                failures.append("%s %s: exit %s, expected 2 naming %s: %s"
                                % (where, beyond, code, flag, stderr.strip()))
                continue
            if is_open:
                continue  # The bound itself is not taken.
            code, stderr = run(base + [flag, beyond, "--version"])
            if code != 2 or "%s: must be " % flag not in stderr:
                continue  # The program checks the range after --version (or not at all there).
            code, stderr = run(base + [flag, bound, "--version"])
            accepted_checks += 1
            if code != 0:
                failures.append("%s %s --version: exit %s, expected 0 (the bound is in the "
                                "range): %s" % (where, bound, code, stderr.strip()))
        print("%s: %s" % (where, stated))
    return rows, accepted_checks


if __name__ == "__main__":
    main()
