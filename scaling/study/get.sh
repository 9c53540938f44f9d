# get.sh — the shell face of `build/bin/study get` (cmd_get.c), sourced by the scripts
# that read result files back (test/), so that a CSV or JSON
# is parsed in one place, common/record.c's reader (quoted cells and all), never by awk,
# sed or cut.  Source it from the repository root, or set study_bin first:
#   study_bin               the tool; a check that takes a BIN_DIR sets $BIN_DIR/study
#   study_get ARGS...       study get ARGS
#   col CSV KEY [OPTION...] column KEY of the CSV's first row, or of the rows study get's
#                           OPTIONs pick instead (--all: every row, one a line)
#   csv_has CSV COLS        those of the comma list COLS that CSV has (a comma list)
#   csv_columns CSV         the names of CSV's columns, a comma list (the header line's
#                           names, as study get finds them: no name holds a comma)
#   csv_rows CSV COLS PROG [AWK-OPTION...]   awk PROG over CSV's rows as study get
#                           prints them (a tab between cells): PROG's emit() for each
#                           row, with v["column"] set for every column of COLS ('*': all;
#                           empty where the file has none; ncol and hdr[] name those it
#                           has); PROG's BEGIN and END run even where CSV is missing or
#                           has no rows; AWK-OPTIONs (-v NAME=VALUE) go to awk
: "${study_bin:=$PWD/build/bin/study}"

study_get() { "$study_bin" get "$@"; }

col() {
    c_csv=$1; c_key=$2; shift 2
    [ $# -gt 0 ] || set -- --row first
    study_get "$c_csv" "$c_key" "$@"
}

# study get exits 2 on a column the file lacks (1: no rows, 0: found)
csv_has() {
    study_get "$1" "$2" --row first > /dev/null 2>&1
    [ $? -eq 2 ] || { echo "$2"; return 0; }
    h_list=""
    for h_col in $(echo "$2" | tr ',' ' '); do
        study_get "$1" "$h_col" --row first > /dev/null 2>&1
        [ $? -eq 2 ] || h_list="$h_list${h_list:+,}$h_col"
    done
    echo "$h_list"
}

csv_columns() { csv_has "$1" "$(head -n 1 "$1" 2> /dev/null | tr -d '\r')"; }

csv_rows() {
    r_csv=$1; r_prog=$3
    if [ "$2" = '*' ]; then r_have=$(csv_columns "$1"); else r_have=$(csv_has "$1" "$2"); fi
    shift 3
    { [ -z "$r_have" ] || study_get "$r_csv" "$r_have" --all 2> /dev/null; } |
        awk -F '\t' -v csv_cols="$r_have" "$@" 'BEGIN { ncol = split(csv_cols, hdr, ",") }
            { for (i = 1; i <= ncol; i++) v[hdr[i]] = $i; emit() }
            '"$r_prog"
}
