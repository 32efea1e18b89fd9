#!/usr/bin/env python3
"""Every C++ example of README.md and docs/*.md is the text of a file the build compiles.

A ```cpp block must follow a line `<!-- example: PATH -->` (the block is the whole file PATH,
relative to the repository) or `<!-- example: PATH NAME -->` (the block is the part of PATH
between the lines `// example: NAME` and `// example end`, without their common indentation).
Every file under examples/docs/ must be shown by some document. Prints what it checked and
"docs examples: PASS", or each mismatch (as a diff) and exits 1.

README.md's Install section is a whole project instead: each of its files is a fenced block
after a line `<!-- consumer: FILE -->`. Such blocks are compiled from the page itself:
`--extract-consumer DIR` writes each one to DIR/FILE (ctest install_consumer_readme, through
tests/consumer/run_consumer_test.cmake, builds and runs the project against an install).
"""
import argparse
import difflib
import glob
import os
import re
import sys

MARKER = re.compile(r"^<!-- example: (\S+)(?: (\S+))? -->$")
CONSUMER = re.compile(r"^<!-- consumer: ([A-Za-z0-9_.-]+) -->$")


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


def fenced_blocks(document):
    """(line number, language, the non-blank line before it, block lines) of each fenced block."""
    lines = open(document, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            before = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
            yield i + 1, lines[i][3:].strip(), before, lines[i + 1:end]
            i = end
        i += 1


def blocks(document):
    """(line number, marker match or None, block lines) of each ```cpp block that is not part of
    the Install section's project."""
    for line, language, before, block in fenced_blocks(document):
        if language in ("cpp", "c++") and not CONSUMER.match(before):
            yield line, MARKER.match(before), block


def extract_consumer(document, directory):
    """Writes each block after `<!-- consumer: FILE -->` to directory/FILE; returns the names."""
    os.makedirs(directory, exist_ok=True)
    written = []
    for _, _, before, block in fenced_blocks(document):
        marker = CONSUMER.match(before)
        if marker is None:
            continue
        name = marker.group(1)
        if name in written:
            sys.exit("%s: two blocks for %s" % (document, name))
        with open(os.path.join(directory, name), "w", encoding="utf-8") as out:
            out.write("\n".join(block) + "\n")
        written.append(name)
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", required=True)
    parser.add_argument("--extract-consumer", metavar="DIR",
                        help="write README.md's Install project to DIR instead of checking")
    args = parser.parse_args()
    if args.extract_consumer:
        written = extract_consumer(os.path.join(args.root, "README.md"), args.extract_consumer)
        if "CMakeLists.txt" not in written:
            sys.exit("README.md has no block after '<!-- consumer: CMakeLists.txt -->'")
        print("README.md's project: %s" % ", ".join(written))
        return
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
