# csv.awk — read a CSV written by rnnscale (RFC 4180 quoting: "a, b" and "" escapes)
# and call emit() for every data row with v["column"] set from the header.  Callers
# append their own emit() (and END, if any): awk "$(cat plot/csv.awk) function emit() {...}"
# Left to scaling/'s scripts: plot/ and test/ read through build/bin/study (scaling/study/get.sh).
function csv_split(line, fld,   i, n, c, f, q) {
    n = 0; f = ""; q = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "\"") { if (q && substr(line, i + 1, 1) == "\"") { f = f c; i++ } else q = !q }
        else if (c == "," && !q) { fld[++n] = f; f = "" }
        else f = f c
    }
    fld[++n] = f
    return n
}
NR == 1 { ncol = csv_split($0, hdr); next }
{ csv_split($0, fld); for (i = 1; i <= ncol; i++) v[hdr[i]] = fld[i]; emit() }
