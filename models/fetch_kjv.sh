#!/bin/sh
# fetch_kjv.sh — put the King James Bible where `rnn-train --corpus kjv` looks for it:
# build/data/kjv/kjv.txt (git-ignored, under build/).
#
# The text comes from the Debian packages bible-kjv (the `bible` program) and
# bible-kjv-text (its data, /usr/lib/bible.data): `bible -f -p /usr/lib gen1:1-rev22:21`
# prints every verse, one per line, as "Ge1:1 In the beginning God created ...";
# the verse reference is stripped, so the file is one verse per line, no blank line
# (corpus.h reads that Penn-Treebank style: <eos> at the end of each verse).  4.4 MB,
# ~790k words.  The result is checked against its sha256, so a different bible-kjv
# version is never used silently.
#
# Idempotent and quiet when the file is present; prints one line when it writes it.
# Usage: sh models/fetch_kjv.sh [BUILD_DIR]     (default build)
set -eu

BUILD=${1:-build}
DEST=$BUILD/data/kjv
FILE=$DEST/kjv.txt
SHA256=b5c4940bcfeee072c0935b5200d0f9d88a00a0199cb0961d16133458fcdfae5d

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

if [ -f "$FILE" ] && [ "$(sha_of "$FILE")" = "$SHA256" ]; then
    exit 0
fi
command -v bible >/dev/null 2>&1 ||
    { echo "fetch_kjv: the bible program is missing (apt-get install bible-kjv)" >&2; exit 1; }

mkdir -p "$DEST"
TMP=$(mktemp "$DEST/.fetch.XXXXXX")
trap 'rm -f "$TMP"' EXIT INT TERM
echo "fetch_kjv: bible -f -p /usr/lib gen1:1-rev22:21 -> $FILE"
# COLUMNS unset: no line wrapping whatever the terminal
env -u COLUMNS bible -f -p /usr/lib gen1:1-rev22:21 | sed 's/^[1-3]*[A-Za-z]*[0-9]*:[0-9]* //' > "$TMP"
got=$(sha_of "$TMP")
[ "$got" = "$SHA256" ] ||
    { echo "fetch_kjv: the generated text has sha256 $got, expected $SHA256 (another bible-kjv version?)" >&2; exit 1; }
chmod 644 "$TMP"
mv "$TMP" "$FILE"
