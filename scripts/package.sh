#!/usr/bin/env bash
# Packages a built kepsite binary as a release archive:
#   kepsite-v<version>-<target>.tar.gz (.zip for Windows targets)
# holding kepsite-v<version>-<target>/{kepsite[.exe],README.md,LICENSE,docs/}, and
# adds the archive's line to SHA256SUMS in the output directory (replacing an
# older line for the same archive). The release workflow calls it once per
# target; .ci/run calls it for the host and runs what it packed.
#
# Usage: scripts/package.sh [--target TRIPLE] [--bin PATH] [--out DIR]
#   --target  the Rust target triple the binary was built for (default: the host's)
#   --bin     the binary (default: $CARGO_TARGET_DIR, else target: <dir>/<triple>/release/kepsite[.exe], else <dir>/release/kepsite[.exe])
#   --out     where the archive and SHA256SUMS go (default: dist)
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "package.sh: $*" >&2; exit 1; }

target="" bin="" out="dist"
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target="${2:?--target needs a value}"; shift 2 ;;
    --bin) bin="${2:?--bin needs a value}"; shift 2 ;;
    --out) out="${2:?--out needs a value}"; shift 2 ;;
    *) die "unknown argument: $1 (see the header of this script)" ;;
  esac
done

[ -n "$target" ] || target=$(rustc -vV | sed -n 's/^host: //p')
[ -n "$target" ] || die "could not tell the host target; pass --target"
ext=""
case "$target" in *windows*) ext=".exe" ;; esac
if [ -z "$bin" ]; then
  tdir="${CARGO_TARGET_DIR:-target}"
  bin="$tdir/$target/release/kepsite$ext"
  [ -f "$bin" ] || bin="$tdir/release/kepsite$ext"
fi
[ -f "$bin" ] || die "no binary at $bin: build it first (cargo build --release --locked --target $target)"

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
[ -n "$version" ] || die "no version in Cargo.toml"
name="kepsite-v$version-$target"

mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
cp "$bin" "$stage/$name/kepsite$ext"
cp README.md LICENSE "$stage/$name/"
# The README links into docs/: the pages and their screenshots travel with it.
cp -R docs "$stage/$name/docs"
chmod 755 "$stage/$name/kepsite$ext"

case "$target" in
  *windows*)
    archive="$name.zip"
    rm -f "$out/$archive"
    if command -v zip >/dev/null; then
      (cd "$stage" && zip -qr "$out/$archive" "$name")
    elif command -v 7z >/dev/null; then
      (cd "$stage" && 7z a -tzip -bd "$out/$archive" "$name" >/dev/null)
    else
      die "neither zip nor 7z is installed"
    fi
    ;;
  *)
    archive="$name.tar.gz"
    # Reproducible: sorted names, fixed owner and mtime.
    (cd "$stage" && tar --sort=name --owner=0 --group=0 --numeric-owner \
      --mtime='2020-01-01 00:00Z' -cf - "$name" | gzip -n > "$out/$archive") 2>/dev/null ||
      (cd "$stage" && tar -czf "$out/$archive" "$name")
    ;;
esac

if command -v sha256sum >/dev/null; then
  sum=$(cd "$out" && sha256sum "$archive")
else
  sum=$(cd "$out" && shasum -a 256 "$archive")
fi
sums="$out/SHA256SUMS"
touch "$sums"
grep -v "  $archive\$" "$sums" > "$sums.tmp" || true
echo "$sum" >> "$sums.tmp"
sort -k2 "$sums.tmp" > "$sums"
rm -f "$sums.tmp"
echo "$out/$archive"
