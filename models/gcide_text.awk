# gcide_text.awk — the GNU Collaborative International Dictionary of English (Debian's
# dict-gcide: /usr/share/dictd/gcide.dict.dz, gunzipped) as running text for
# `rnn-train --corpus big` (models/fetch_big.sh): its definitions, usage notes and
# quotations, one block (a sense, a note, a quotation) per line, with the dictionary's
# markup removed.
#
# The dictd text is entries of blocks separated by blank lines; an entry starts with a
# headword line at column 0: `Benefit \Ben"e*fit\, n. [OE. benefet, ...] (Law) text`.
# Kept: the text of each block.  Dropped: the header before the first entry, headwords
# with their pronunciation, part of speech and etymology (abbreviations, not prose),
# "Syn:" word lists, run-on derived forms (`-- {Ben`e*fit*ed}, a.`), source tags and
# usage labels in brackets ([1913 Webster], [Obs.]), field labels opening a block
# ((Law), (Zool.)), sense numbers, quotations' attributions (--Shak.).  Kept as text:
# cross-references in braces ({Clergy} -> Clergy), a dash (--) as an em dash, the
# accented letters written as entities (caf['e] -> café, [ae] -> æ); other entities
# become their letter ([=e] -> e), their name ([beta] -> beta) or nothing.
#
# Usage: gzip -dc /usr/share/dictd/gcide.dict.dz | awk -f models/gcide_text.awk
# (under LC_ALL=C, as fetch_big.sh runs it: the rules work on bytes).

BEGIN {
    # accented letters: ['e] acute, [`e] grave, [^e] circumflex, ["e] diaeresis,
    # [~n] tilde, [,c] cedilla; ligatures
    split("a e i o u A E I O U", base, " ")
    split("á é í ó ú Á É Í Ó Ú", acute, " ")
    split("à è ì ò ù À È Ì Ò Ù", grave, " ")
    split("â ê î ô û Â Ê Î Ô Û", circ, " ")
    split("ä ë ï ö ü Ä Ë Ï Ö Ü", diaer, " ")
    for (i = 1; i <= 10; i++) {
        ent["'" base[i]] = acute[i]; ent["`" base[i]] = grave[i]
        ent["^" base[i]] = circ[i]; ent["\"" base[i]] = diaer[i]
    }
    ent["~n"] = "ñ"; ent["~N"] = "Ñ"; ent["~a"] = "ã"; ent["~o"] = "õ"
    ent[",c"] = "ç"; ent[",C"] = "Ç"
    ent["ae"] = "æ"; ent["AE"] = "Æ"; ent["oe"] = "œ"; ent["OE"] = "Œ"
    ent["deg"] = "°"; ent["frac12"] = "½"; ent["frac14"] = "¼"; ent["frac34"] = "¾"
    ent["imac"] = "i"; ent["eth"] = "ð"; ent["thorn"] = "þ"
    ent["sect"] = "§"; ent["pounds"] = "£"; ent["times"] = "×"
    greek = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi " \
            "omicron pi rho sigma tau upsilon phi chi psi omega"
    n = split(greek, g, " ")
    for (i = 1; i <= n; i++) {
        ent[g[i]] = g[i]
        ent[toupper(substr(g[i], 1, 1)) substr(g[i], 2)] = g[i]
    }
}

# s from its opening bracket (s starts with `open`) past the matching `close`
function skip_group(s, lb, rb,   i, depth, c) {
    depth = 0
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == lb) depth++
        else if (c == rb && --depth == 0) return substr(s, i + 1)
    }
    return ""
}

# a headword block: drop everything before its text (pronunciation, part of speech,
# inflections, etymology, field label, sense number)
function strip_head(s) {
    sub(/^.*\\/, "", s)
    for (;;) {
        sub(/^[ ,;:&.]+/, "", s)
        if (s ~ /^\(/) s = skip_group(s, "(", ")")
        else if (s ~ /^\[/) s = skip_group(s, "[", "]")
        else if (s ~ /^\{/) s = skip_group(s, "{", "}")
        else if (match(s, /^([a-z]+|[0-9]+|[A-Z])\.([ ;,]|$)/) || match(s, /^(or|and) /))
            s = substr(s, RLENGTH + 1)
        else return s
    }
}

# an entity [x] -> its letter, its name, or nothing (pronunciation marks: [=e] [e^] [.a])
function entities(s,   out, e) {
    out = ""
    while (match(s, /\[[^] []+\]/)) {
        e = substr(s, RSTART + 1, RLENGTH - 2)
        out = out substr(s, 1, RSTART - 1)
        s = substr(s, RSTART + RLENGTH)
        if (e in ent) out = out ent[e]
        else if (e ~ /^[-=.*'`^"~,]?[a-zA-Z][a-zA-Z]?[\^]?$/ && e !~ /^[A-Za-z]+$/) {
            gsub(/[^a-zA-Z]/, "", e)
            out = out e
        } else out = out "[" e "]"   # not an entity: a tag or label, removed later
    }
    return out s
}

function clean(s, head,   t) {
    gsub(/[ \t]+/, " ", s)
    sub(/^ /, "", s)
    if (head) s = strip_head(s)
    else if (s ~ /^Syn[:.]/) return ""
    sub(/^(Note|Usage): */, "", s)
    s = entities(s)
    # a sense number after a source tag (a block that lacks its blank line)
    gsub(/\] [0-9][0-9]?\. /, "] ", s)
    # run-on derived forms: a headword (syllable marks, in braces or after --) ends the text
    if (match(s, /\{[^}]*[*"`][^}]*\}/) || match(s, /-- ?[A-Za-z]+[*"`][A-Za-z]/)) {
        s = substr(s, 1, RSTART - 1)
        sub(/ *-+ *$/, "", s)
    }
    # an attribution (--Shak., --Jer. Taylor.) ends a quotation
    if (match(s, /--[A-Z]/)) s = substr(s, 1, RSTART - 1)
    # tags and labels: every bracket group left (etymologies nest entities: inner first)
    while (match(s, /\[[^][]*\]/))
        s = substr(s, 1, RSTART - 1) " " substr(s, RSTART + RLENGTH)
    gsub(/[][{}]/, "", s)
    # pronunciations left in the text (syllable marks * and `, or \...\), the marks of
    # Greek words
    gsub(/ ?\([^()]*[*`][^()]*\)/, "", s)
    gsub(/ ?\\[^\\]*\\/, "", s)
    gsub(/`/, "", s)
    gsub(/\(\?\)/, "", s)
    gsub(/ *-- */, " — ", s)
    for (;;) {   # sense numbers and field labels opening the block
        sub(/^ +/, "", s)
        if (match(s, /^([0-9]+\.|\([a-z0-9]\)|pl\.|sing\.) /)) s = substr(s, RLENGTH + 1)
        else if (match(s, /^\([A-Z][A-Za-zæœé. &,]*\)[ ,.]/)) s = substr(s, RLENGTH + 1)
        else break
    }
    gsub(/ +/, " ", s)
    gsub(/ ,/, ",", s); gsub(/ \./, ".", s); gsub(/ ;/, ";", s); gsub(/ :/, ":", s)
    sub(/ $/, "", s)
    sub(/^[,;:.— ]+/, "", s)
    # a lone word is a list left from the markup (the un- words), not a sentence
    if (s !~ / / && s !~ /[.!?]$/) return ""
    return s
}

function flush(   s) {
    if (started && buf != "") {
        s = clean(buf, head)
        if (s != "") print s
    }
    buf = ""
    head = 0
}

# three bytes of other code pages in the ASCII text: ’ (twice) and ç
/[\200-\377]/ { gsub(/[\222\271]/, "'"); gsub(/[\200-\346\350-\377]/, ""); gsub(/\347/, "ç") }
/^[^ \t].*\\[^\\]*\\/ { flush(); started = 1; head = 1; buf = $0; next }
/^[ \t]*$/ { flush(); next }
{ buf = buf == "" ? $0 : buf " " $0 }
END { flush() }
