#!/usr/bin/env python3
"""Every C++ example of README.md and docs/*.md is the text of a file the build compiles.

A ```cpp block must follow a line `<!-- example: PATH -->` (the block is the whole file PATH,
relative to the repository) or `<!-- example: PATH NAME -->` (the block is the part of PATH
between the lines `// example: NAME` and `// example end`, without their common indentation).
Every file under examples/docs/ must be shown by some document. Prints what it checked and
"docs examples: PASS", or each mismatch (as a diff) and exits 1.
"""
import argparse
import difflib
import glob
import os
import re
import sys

MARKER = re.compile(r"^<!-- example: (\S+)(?: (\S+))? -->$")


def region(path, name):
    lines = open(path, encoding="utf-8").read().splitlines()
    if name is None:
        return lines
    begin = [i for i, l in enumerate(lines) if l.strip() == "// example: " + name]
    if len(begin) != 1:
        raise ValueError("%s has %d lines '// example: %s'" % (path, len(begin), name))
    end = next((i for i in range(begin[0] + 1, len(lines)) if lines[i].strip() == "// example end"),
               None)
    if end is None:
        raise ValueError("%s: '// example: %s' has no '// example end'" % (path, name))
    part = lines[begin[0] + 1:end]
    indent = min((len(l) - len(l.lstrip(" ")) for l in part if l.strip()), default=0)
    return [l[indent:] for l in part]


def blocks(document):
    """(line number, marker match or None, block lines) of each ```cpp block."""
    lines = open(document, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() in ("```cpp", "```c++"):
            before = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
            yield i + 1, MARKER.match(before), lines[i + 1:end]
            i = end
        i += 1


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", required=True)
    args = parser.parse_args()
    documents = [os.path.join(args.root, "README.md")] + sorted(
        glob.glob(os.path.join(args.root, "docs", "*.md")))
    failures, shown, checked = [], set(), 0
    for document in documents:
        name = os.path.relpath(document, args.root)
        for line, marker, block in blocks(document):
            where = "%s:%d" % (name, line)
            if marker is None:
                failures.append("%s: a C++ block without '<!-- example: PATH [NAME] -->'" % where)
                continue
            path = os.path.join(args.root, marker.group(1))
            shown.add(os.path.normpath(path))
            try:
                expected = region(path, marker.group(2))
            except (OSError, ValueError) as e:
                failures.append("%s: %s" % (where, e))
                continue
            if block != expected:
                diff = "\n".join(difflib.unified_diff(expected, block, marker.group(1), where,
                                                      lineterm=""))
                failures.append("%s differs from %s:\n%s" % (where, marker.group(1), diff))
            checked += 1
            print("%s: %s%s" % (where, marker.group(1),
                                " (" + marker.group(2) + ")" if marker.group(2) else ""))
    for example in sorted(glob.glob(os.path.join(args.root, "examples", "docs", "*.cc"))):
        if os.path.normpath(example) not in shown:
            failures.append("%s is shown by no document" % os.path.relpath(example, args.root))
    for failure in failures:
        print("FAIL: " + failure)
    if failures:
        sys.exit(1)
    print("docs examples: %d blocks match their files: PASS" % checked)


if __name__ == "__main__":
    main()
