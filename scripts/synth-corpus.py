#!/usr/bin/env python3
"""Write a scaled copy of a kubernetes/enhancements checkout, for benchmarks.

    scripts/synth-corpus.py SRC OUT [--copies 10] [--no-git] [--force]

Every KEP directory under SRC/keps (a directory named `<number>-<slug>` that
holds a kep.yaml, number above 0: 0000-… are templates) is written COPIES times: once as it is, and COPIES-1 times
under new numbers, `<number + k*BASE>-<slug>`, beside the original (nested
subproject directories stay nested). BASE is the first power of ten above
every number in the corpus (10000 for the real one), so the new numbers never
collide with the old ones or with each other. In each copy:

- kep.yaml gets `kep-number` moved by the same offset (a number that
  disagreed with its directory still disagrees, so findings scale too) and
  ` (copy k)` appended to `title`; every other byte is unchanged;
- README.md and any images or other files are copied unchanged.

Every numeric prod-readiness file `keps/prod-readiness/<sig>/<n>.yaml` is
copied the same way to `<n + k*BASE>.yaml` with its `kep-number` moved, so
the copies keep their PRR approvals (and orphans stay orphans). Everything
else (OWNERS_ALIASES, templates, OWNERS, non-KEP markdown) is copied once.

OUT becomes a git repository with a single commit (unless --no-git), so
`--rev HEAD` and anything that opens the repository works on it. OUT must not
exist, or must be an earlier output of this script (it carries a
`.kepsite-synth` marker) when --force is given.

Only the standard library is used.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

MARKER = ".kepsite-synth"
KEP_DIR = re.compile(r"^(\d+)-(.+)$")
KEP_NUMBER_LINE = re.compile(r"^(kep-number:\s*)(['\"]?)(\d+)(['\"]?)(.*)$", re.M)
TITLE_LINE = re.compile(r"^(title:[ \t]*)(.*)$", re.M)


def kep_dirs(keps: Path) -> list[tuple[Path, int]]:
    """(directory, number) of every numbered directory holding a kep.yaml."""
    found = []
    for kep_yaml in sorted(keps.rglob("kep.yaml")):
        d = kep_yaml.parent
        if "prod-readiness" in d.relative_to(keps).parts[:1]:
            continue
        m = KEP_DIR.match(d.name)
        # 0000-… directories are templates (0000-cloud-provider-template)
        if m and int(m.group(1)) > 0:
            found.append((d, int(m.group(1))))
    return found


def prr_files(keps: Path) -> list[tuple[Path, int]]:
    """(file, number) of every `keps/prod-readiness/<sig>/<n>.yaml`."""
    prr = keps / "prod-readiness"
    if not prr.is_dir():
        return []
    return [
        (f, int(f.stem))
        for f in sorted(prr.glob("*/*.yaml"))
        if f.stem.isdigit()
    ]


def shift_number(text: str, offset: int) -> str:
    """Move the first `kep-number:` by offset, keeping quotes and comments."""

    def repl(m: re.Match[str]) -> str:
        return f"{m.group(1)}{m.group(2)}{int(m.group(3)) + offset}{m.group(4)}{m.group(5)}"

    return KEP_NUMBER_LINE.sub(repl, text, count=1)


def retitle(text: str, k: int) -> str:
    """Append ` (copy k)` to the first `title:` value, inside its quotes."""

    def repl(m: re.Match[str]) -> str:
        value = m.group(2)
        suffix = f" (copy {k})"
        stripped = value.rstrip()
        if stripped[:1] in "\"'" and len(stripped) > 1 and stripped[-1] == stripped[0]:
            return f"{m.group(1)}{stripped[:-1]}{suffix}{stripped[-1]}"
        if stripped in ("", ">", "|", ">-", "|-"):
            return m.group(0)  # block or empty title: leave it alone
        comment = stripped.find(" #")
        if comment >= 0:
            return f"{m.group(1)}{stripped[:comment]}{suffix}{stripped[comment:]}"
        return f"{m.group(1)}{stripped}{suffix}"

    return TITLE_LINE.sub(repl, text, count=1)


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None


def write_copy(src_dir: Path, dest_dir: Path, offset: int, k: int) -> None:
    shutil.copytree(src_dir, dest_dir, symlinks=True)
    kep_yaml = dest_dir / "kep.yaml"
    text = read_text(kep_yaml)
    if text is not None:
        kep_yaml.write_text(retitle(shift_number(text, offset), k), encoding="utf-8")


def git(out: Path, *args: str) -> None:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="kepsite synth",
        GIT_AUTHOR_EMAIL="synth@example.invalid",
        GIT_COMMITTER_NAME="kepsite synth",
        GIT_COMMITTER_EMAIL="synth@example.invalid",
        GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
        GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
    )
    subprocess.run(["git", "-C", str(out), *args], check=True, env=env)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path, help="an enhancements checkout")
    ap.add_argument("out", type=Path, help="where to write the scaled repository")
    ap.add_argument("--copies", type=int, default=10, help="how many of each KEP (default 10)")
    ap.add_argument("--no-git", action="store_true", help="do not make OUT a git repository")
    ap.add_argument("--force", action="store_true", help="replace an earlier output of this script")
    args = ap.parse_args()

    src, out = args.src.resolve(), args.out.resolve()
    keps = src / "keps"
    if not keps.is_dir():
        print(f"synth-corpus: {keps} is not a directory", file=sys.stderr)
        return 2
    if args.copies < 1:
        print("synth-corpus: --copies must be at least 1", file=sys.stderr)
        return 2
    if out.exists():
        if not (args.force and (out / MARKER).is_file()):
            print(
                f"synth-corpus: {out} exists (pass --force to replace an earlier output)",
                file=sys.stderr,
            )
            return 2
        shutil.rmtree(out)

    dirs = kep_dirs(keps)
    prrs = prr_files(keps)
    biggest = max([n for _, n in dirs] + [n for _, n in prrs] + [1])
    base = 10 ** len(str(biggest))
    replicated = {d for d, _ in dirs}

    # Everything once, as it is, except .git.
    out.mkdir(parents=True)
    for entry in sorted(src.iterdir()):
        if entry.name == ".git":
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, out / entry.name, symlinks=True)
        else:
            shutil.copy2(entry, out / entry.name, follow_symlinks=False)

    for d, _ in dirs:
        rel = d.relative_to(src)
        m = KEP_DIR.match(d.name)
        assert m
        for k in range(1, args.copies):
            offset = k * base
            dest = out / rel.parent / f"{int(m.group(1)) + offset}-{m.group(2)}"
            # a replicated directory nested inside another one was already
            # copied with its parent; its own copies still go beside it
            write_copy(d, dest, offset, k)
    for f, n in prrs:
        rel = f.relative_to(src)
        text = read_text(f)
        for k in range(1, args.copies):
            offset = k * base
            dest = out / rel.parent / f"{n + offset}.yaml"
            if text is None:
                shutil.copy2(f, dest)
            else:
                dest.write_text(shift_number(text, offset), encoding="utf-8")

    (out / MARKER).write_text(
        f"written by scripts/synth-corpus.py: {args.copies}x {src}\n", encoding="utf-8"
    )
    if not args.no_git:
        git(out, "init", "-q")
        git(out, "add", "-A")
        git(out, "commit", "-q", "-m", f"synthetic corpus: {args.copies}x")
    print(
        f"synth-corpus: {len(replicated)} KEP directories and {len(prrs)} PRR files, "
        f"{args.copies}x (numbers + k*{base}) into {out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
