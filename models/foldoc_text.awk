# foldoc_text.awk — the Free On-line Dictionary of Computing (Debian's dict-foldoc:
# /usr/share/dictd/foldoc.dict.dz, gunzipped) as running text for `--corpus big`: its
# definitions, one paragraph per line, with the dictionary's markup removed.
#
# The dictd text is entries: a headword at column 0, then indented paragraphs separated
# by blank lines, the last one the entry's date, "(1994-11-08)".  Kept: the paragraphs'
# text.  Dropped: the header entries (00-database-*) and the introduction before the
# first headword that follows them, headwords, dates, citations in brackets
# (["Actors", C. Hewitt, 1977]), domain labels (<programming>), e-mail addresses, URLs,
# "E-mail:", "Address:", "Telephone:" and "Version" lines' paragraphs.  Kept as text:
# cross-references in braces ({object} -> object; {C|Net (http://cnet.com/)} -> C|Net),
# emphasis (__for now__ -> for now).
#
# Usage: gzip -dc /usr/share/dictd/foldoc.dict.dz | LC_ALL=C awk -f models/foldoc_text.awk

function clean(s) {
    gsub(/[ \t]+/, " ", s)
    sub(/^ /, "", s)
    sub(/ $/, "", s)
    if (s ~ /^\([0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]\)$/) return ""
    if (s ~ /^(E-mail|Address|Telephone|Tel|Fax|Home|Version|Latest version|FTP|ftp):/) return ""
    # citations and references: bracket groups (a reference may nest a cross-reference)
    while (match(s, /\[[^][]*\]/))
        s = substr(s, 1, RSTART - 1) substr(s, RSTART + RLENGTH)
    gsub(/<[^<>]*>/, "", s)                       # domain labels, e-mail addresses
    gsub(/ ?\((https?|ftp|mailto|news|telnet|gopher):[^()]*\)/, "", s)
    gsub(/(https?|ftp|mailto|news|telnet|gopher):[^ ]*/, "", s)
    gsub(/ ?\([^()]*\.html?\)/, "", s)             # a link to a page of its own site
    gsub(/[{}]/, "", s)
    gsub(/__/, "", s)
    gsub(/\(\)/, "", s)
    gsub(/ +/, " ", s)
    gsub(/ \./, ".", s); gsub(/ ,/, ",", s)
    sub(/^ /, "", s); sub(/ $/, "", s)
    sub(/^[0-9]+\. /, "", s)                      # sense numbers
    if (s !~ / / || s !~ /[A-Za-z]/) return ""   # a lone word or a stray mark
    return s
}

function flush(   s) {
    # the header and the introduction end with the introduction's date
    if (!started && buf ~ /^[ \t]*\([0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]\)[ \t]*$/) started = 1
    else if (started && buf != "") {
        s = clean(buf)
        if (s != "") print s
    }
    buf = ""
}

# a headword: column 0 (an entry's first line)
/^[^ \t]/ { flush(); next }
/^[ \t]*$/ { flush(); next }
{ buf = buf == "" ? $0 : buf " " $0 }
END { flush() }
