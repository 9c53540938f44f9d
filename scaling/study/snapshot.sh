#!/bin/sh
# snapshot.sh RUN DEST — a slim, resumable copy of a study run folder, taken while its
# study may still be running (what results/reference-scaling keeps):
#   DEST/*                 RUN's own files (settings, points files, grids, targets), then
#                          the tables, reports and points.csv collected from the finished
#                          points alone (`study collect NAME` for each NAME_settings.txt,
#                          `study points`), on a copy: RUN is only read
#   DEST/points.tar.xz     the finished point folders (rc written; without ckpt/ and
#                          earlier attempts)
# To continue the study from DEST:
#   mkdir -p R && cp -r DEST/. R/ && tar -xJf R/points.tar.xz -C R && build/bin/study run NAME R
# DEST is replaced.  Exit: 0, 1 a collect failed (the copy is still made), 2 bad usage.
set -u
cd "$(dirname "$0")/../.." || exit 2
study=build/bin/study
die() { echo "snapshot: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: scaling/study/snapshot.sh RUN DEST"
run=$1; dest=$2
[ -x "$study" ] || die "$study missing: run make"
[ -d "$run/points" ] || die "$run has no points/ folder: not a study run folder"
tmp=$(mktemp -d /tmp/rnnscale-snapshot-XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/points"
for f in "$run"/*; do
    [ -f "$f" ] && cp -p "$f" "$tmp/"
done
n=0
for d in "$run"/points/*/; do
    name=$(basename "$d")
    case "$name" in *.attempt-*) continue ;; esac
    [ -f "$d/rc" ] || continue
    cp -rp "$d" "$tmp/points/$name" && rm -rf "$tmp/points/$name/ckpt"
    n=$((n + 1))
done
status=0
for s in "$tmp"/*_settings.txt; do
    [ -f "$s" ] || continue
    name=$(basename "$s" _settings.txt)
    "$study" collect "$name" "$tmp" --partial > "$tmp/collect-$name.out" 2>&1 ||
        { echo "snapshot: study collect $name failed:"; tail -n 3 "$tmp/collect-$name.out"; status=1; }
    rm -f "$tmp/collect-$name.out"
done
rm -f "$tmp/points.csv"   # RUN's own, of the points it had then: written anew
"$study" points "$tmp" > /dev/null || status=1
rm -rf "$tmp"/old-*
tar -cJf "$tmp/points.tar.xz" -C "$tmp" points && rm -rf "$tmp/points" || exit 1
rm -rf "$dest" && mkdir -p "$dest" && cp -rp "$tmp"/* "$dest"/ || exit 1
echo "snapshot: $dest: $n finished points of $run, $(du -sh "$dest" | cut -f1)"
exit $status
