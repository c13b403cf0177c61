#!/usr/bin/env python3
"""List what is too long to hold in one's head: the files of src/ over the
file limit and the functions over the function limit.

    scripts/sizes.py [--file-lines 500] [--fn-lines 80] [--exclude PREFIX]...

A function is counted from its `fn` line to its closing brace, both
included (the code is rustfmt'ed: the closing brace is the first line after
the `fn` line that is `}` at the `fn` line's indentation). Declarations
without a body are not functions here. PREFIX leaves out files whose path
(relative to the repository, e.g. `src/site/search`) starts with it.
Exits 1 when anything is listed, 0 otherwise.
"""

import argparse
import re
import sys
from pathlib import Path

FN = re.compile(
    r"^(?P<indent>\s*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?"
    r"(?:unsafe\s+)?(?:extern\s+\"[^\"]*\"\s+)?fn\s+(?P<name>\w+)"
)


def functions(lines):
    """(name, first line, length) of every function with a body."""
    for i, line in enumerate(lines):
        m = FN.match(line)
        if not m:
            continue
        close = m.group("indent") + "}"
        for j in range(i, len(lines)):
            text = lines[j].rstrip()
            if j == i and text.endswith("}"):
                yield m.group("name"), i + 1, 1
                break
            if text.endswith(";") and not any(
                s.rstrip().endswith("{") for s in lines[i:j]
            ):
                break  # a declaration without a body
            if text == close:
                yield m.group("name"), i + 1, j - i + 1
                break


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file-lines", type=int, default=500)
    ap.add_argument("--fn-lines", type=int, default=80)
    ap.add_argument("--exclude", action="append", default=[])
    args = ap.parse_args()
    root = Path(__file__).resolve().parent.parent
    found = []
    for path in sorted((root / "src").rglob("*.rs")):
        rel = path.relative_to(root).as_posix()
        if any(rel.startswith(p) for p in args.exclude):
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) > args.file_lines:
            found.append(f"{rel}: {len(lines)} lines (file)")
        for name, at, length in functions(lines):
            if length > args.fn_lines:
                found.append(f"{rel}:{at}: fn {name}: {length} lines")
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
