#!/usr/bin/env python3
"""Compare two built sites page by page: which files only one has (by
family), and which HTML pages both have that differ once the changes of
issue 23 that are markup only are taken out: content-hashed static names,
highlighted-code spans, the per-KEP JSON link, and quotes written as
entities in text.

    python3 scripts/compare-sites.py OLD_PUBLIC NEW_PUBLIC
"""
import collections
import difflib
import os
import re
import sys


def files(root):
    out = set()
    for d, _, names in os.walk(root):
        for n in names:
            out.add(os.path.relpath(os.path.join(d, n), root))
    return out


def family(path):
    return "/".join(re.sub(r"\d+", "N", path).split("/")[:2])


def norm(text):
    text = re.sub(r"static/immutable/([a-z.-]+?)\.[0-9a-f]{10}\.", r"static/immutable/\1.H.", text)
    text = re.sub(r'<span class="hl-[^"]*">', "", text).replace("</span>", "")
    text = re.sub(r'<link rel="alternate" type="application/json" href="[^"]*">', "", text)
    text = re.sub(r' · <a href="[^"]*kep\.json">JSON</a>', "", text)
    text = text.replace("&quot;", '"').replace("&#39;", "'")
    return [line for line in text.splitlines() if line.strip()]


def main(old, new):
    a, b = files(old), files(new)
    print(f"files: {len(a)} before, {len(b)} after, {len(a & b)} in both")
    for label, only in (("only before", a - b), ("only after", b - a)):
        fams = collections.Counter(family(p) for p in only).most_common(8)
        print(f"{label}: {len(only)}: {fams}")
    differ = []
    same = 0
    for p in sorted(a & b):
        if not p.endswith(".html"):
            continue
        with open(os.path.join(old, p), errors="replace") as f:
            x = norm(f.read())
        with open(os.path.join(new, p), errors="replace") as f:
            y = norm(f.read())
        if x == y:
            same += 1
        else:
            differ.append((p, x, y))
    print(f"HTML pages in both: {same} the same, {len(differ)} differ")
    for p, x, y in differ[:10]:
        print(f"--- {p}")
        for line in list(difflib.unified_diff(x, y, lineterm="", n=0))[2:8]:
            print("   ", line[:200])


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
