# test/lib.sh — what the shell checks share; sourced after they cd to the root:
#   test_begin NAME   a scratch folder $tmp (/tmp/rnnscale-NAME-*, removed on exit),
#                     fail=0, and ok/bad, which print a verdict line (bad sets fail=1)
#   tiny_corpus FILE  800 sentences of a five-word grammar: the trainer checks' corpus
test_begin() {
    tmp=$(mktemp -d "/tmp/rnnscale-$1-XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    fail=0
}
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
tiny_corpus() {
    awk 'BEGIN { split("the whale|ahab|the sea|ishmael|the ship", s, "|");
                 split("sees|hunts|follows|loves|fears", v, "|");
                 split("the captain.|the white whale.|the harpoon.|the sea.|the crew.", o, "|");
                 x = 7; for (i = 0; i < 800; i++) { x = (x * 1103515245 + 12345) % 2147483648;
                   printf "%s %s %s\n", s[x % 5 + 1], v[int(x / 8) % 5 + 1], o[int(x / 64) % 5 + 1] } }' > "$1"
}
