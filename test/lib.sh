# test/lib.sh — what the shell checks share; sourced after they cd to the root:
#   test_begin NAME   a scratch folder $tmp (/tmp/rnnscale-NAME-*, removed on exit),
#                     fail=0, and ok/bad, which print a verdict line (bad sets fail=1)
test_begin() {
    tmp=$(mktemp -d "/tmp/rnnscale-$1-XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    fail=0
}
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
