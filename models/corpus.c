/* corpus.c — load, tokenize, split, vocabulary, streams (the rules are in corpus.h). */
#define _GNU_SOURCE
#include "corpus.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fsio.h"
#include "sha256.h"

/* ---- a growable int array and a string interner (type ids in first-seen order) ---- */

typedef struct {
    int *v;
    long n, cap;
} ivec;

static int ivec_push(ivec *a, int x)
{
    if (a->n == a->cap) {
        long cap = a->cap ? 2 * a->cap : 4096;
        int *v = realloc(a->v, (size_t)cap * sizeof *v);
        RS_CHECK(v, "out of memory reading the corpus");
        a->v = v, a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

typedef struct {
    char **str;         /* (ntypes) owned copies */
    long ntypes, strcap;
    int *slot;          /* (cap) open addressing: type id + 1, 0 = empty */
    long cap;
} interner;

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static int intern_grow(interner *in)
{
    long cap = in->cap ? 2 * in->cap : 1 << 14;
    int *slot = calloc((size_t)cap, sizeof *slot);
    RS_CHECK(slot, "out of memory reading the corpus");
    for (long t = 0; t < in->ntypes; t++) {
        uint64_t h = fnv1a(in->str[t], strlen(in->str[t]));
        long i = (long)(h & (uint64_t)(cap - 1));
        while (slot[i])
            i = (i + 1) & (cap - 1);
        slot[i] = (int)t + 1;
    }
    free(in->slot);
    in->slot = slot, in->cap = cap;
    return 0;
}

/* The type id of s[0..n), added if new; -1 on out of memory. */
static int intern(interner *in, const char *s, size_t n)
{
    if (2 * (in->ntypes + 1) > in->cap && intern_grow(in) != 0)
        return -1;
    uint64_t h = fnv1a(s, n);
    long i = (long)(h & (uint64_t)(in->cap - 1));
    for (; in->slot[i]; i = (i + 1) & (in->cap - 1)) {
        const char *t = in->str[in->slot[i] - 1];
        if (strlen(t) == n && memcmp(t, s, n) == 0)
            return in->slot[i] - 1;
    }
    if (in->ntypes == in->strcap) {
        long cap = in->strcap ? 2 * in->strcap : 4096;
        char **str = realloc(in->str, (size_t)cap * sizeof *str);
        RS_CHECK(str, "out of memory reading the corpus");
        in->str = str, in->strcap = cap;
    }
    char *copy = strndup(s, n);
    RS_CHECK(copy, "out of memory reading the corpus");
    in->str[in->ntypes] = copy;
    in->slot[i] = (int)in->ntypes + 1;
    return (int)in->ntypes++;
}

static void intern_free(interner *in)
{
    for (long t = 0; t < in->ntypes; t++)
        free(in->str[t]);
    free(in->str);
    free(in->slot);
}

/* ---- UTF-8 ---- */

/* Decode one code point at p[0..n); its length, or 0 if invalid (overlong, surrogate,
 * out of range, truncated). */
static int utf8_next(const unsigned char *p, long n, uint32_t *cp)
{
    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    }
    int len = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc0 ? 2 : 0;
    if (len == 0 || p[0] > 0xf4 || n < len)
        return 0;
    uint32_t c = p[0] & (0x7f >> len);
    for (int i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (p[i] & 0x3f);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < min[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

static int is_space(uint32_t c) { return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0; }

/* Letters for the word rule: ASCII letters and digits, and any non-ASCII code point
 * outside the Latin-1 symbols, the general punctuation block and CJK punctuation. */
static int is_letter(uint32_t c)
{
    if (c < 0x80)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (c <= 0xbf || c == 0xd7 || c == 0xf7)
        return 0;
    if ((c >= 0x2000 && c <= 0x206f) || (c >= 0x3000 && c <= 0x303f))
        return 0;
    return 1;
}

/* ---- tokenizers: append type ids to `out` ---- */

typedef struct {
    interner in;
    ivec toks;
    int eos;          /* the <eos> type (word level) */
} tok_state;

static int emit(tok_state *s, const char *w, size_t n)
{
    int t = intern(&s->in, w, n);
    return t < 0 ? -1 : ivec_push(&s->toks, t);
}

static int emit_eos(tok_state *s)
{
    if (s->toks.n == 0 || s->toks.v[s->toks.n - 1] == s->eos)
        return 0;
    return ivec_push(&s->toks, s->eos);
}

/* Does the file have a blank line between two non-blank ones?  Then it is prose. */
static int has_blank_line(const unsigned char *p, long n)
{
    int seen_text = 0, line_blank = 1, blank_after_text = 0;
    for (long i = 0; i < n; i++) {
        if (p[i] == '\n') {
            if (line_blank && seen_text)
                blank_after_text = 1;
            line_blank = 1;
        } else if (!is_space(p[i])) {
            if (blank_after_text)
                return 1;
            seen_text = 1, line_blank = 0;
        }
    }
    return 0;
}

static int tokenize_words(tok_state *s, const unsigned char *p, long n)
{
    int per_line = !has_blank_line(p, n);
    char word[1024];
    size_t wn = 0;
    int line_has_text = 0, line_blank = 1;
    long i = 0;
    while (i < n) {
        uint32_t c;
        int len = utf8_next(p + i, n - i, &c);
        uint32_t c2 = 0;
        int len2 = i + len < n ? utf8_next(p + i + len, n - i - len, &c2) : 0;
        int joiner = (c == '\'' || c == 0x2019 || c == '-') && wn > 0 && len2 && is_letter(c2);
        if (is_letter(c) || joiner) {
            if (joiner && c == 0x2019)
                c = '\'', len = 1;   /* ’ inside a word is an apostrophe */
            if (wn + 4 < sizeof word) {  /* longer "words" are cut (never in real text) */
                if (c < 0x80)
                    word[wn++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
                else
                    memcpy(word + wn, p + i, (size_t)len), wn += (size_t)len;
            }
            i += joiner && p[i] == 0xe2 ? 3 : len;
            line_has_text = 1, line_blank = 0;
            continue;
        }
        if (wn && emit(s, word, wn) != 0)
            return -1;
        wn = 0;
        if (c == '\n') {
            if (per_line ? line_has_text : line_blank) {
                if (emit_eos(s) != 0)
                    return -1;
            }
            line_has_text = 0, line_blank = 1;
        } else if (!is_space(c)) {
            if (emit(s, (const char *)p + i, (size_t)len) != 0)
                return -1;
            if (!per_line && (c == '.' || c == '!' || c == '?') && emit_eos(s) != 0)
                return -1;
            line_has_text = 1, line_blank = 0;
        }
        i += len;
    }
    if (wn && emit(s, word, wn) != 0)
        return -1;
    return emit_eos(s);
}

static int tokenize_chars(tok_state *s, const unsigned char *p, long n)
{
    for (long i = 0; i < n;) {
        uint32_t c;
        int len = utf8_next(p + i, n - i, &c);
        if (emit(s, (const char *)p + i, (size_t)len) != 0)
            return -1;
        i += len;
    }
    return 0;
}

/* ---- loading ---- */

static int read_file(const char *path, unsigned char **buf, long *n)
{
    /* a regular file only: a FIFO would block (or be read once, unlike a resume's) */
    int fd = rs_open_regular(path, O_RDONLY, "corpus");
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "rb");
    if (!f)
        close(fd);
    RS_CHECK(f, "cannot read corpus %s: %s", path, strerror(errno));
    long cap = 1 << 20, len = 0;
    unsigned char *b = malloc((size_t)cap);
    for (;;) {
        if (!b) {
            fclose(f);
            RS_CHECK(0, "out of memory reading corpus %s", path);
        }
        len += (long)fread(b + len, 1, (size_t)(cap - len), f);
        if (len < cap)
            break;
        cap *= 2;
        unsigned char *nb = realloc(b, (size_t)cap);
        if (!nb)
            free(b);
        b = nb;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(b);
        RS_CHECK(0, "cannot read corpus %s: read error", path);
    }
    *buf = b, *n = len;
    return 0;
}

static int check_text(const char *path, const unsigned char *p, long n)
{
    RS_CHECK(n > 0, "corpus %s is empty (give a text file)", path);
    for (long i = 0; i < n;) {
        uint32_t c;
        int len = p[i] ? utf8_next(p + i, n - i, &c) : 0;
        RS_CHECK(len > 0, "corpus %s is not UTF-8 text: %s at byte %ld (give a plain text file)",
              path, p[i] ? "an invalid UTF-8 sequence" : "a NUL byte", i);
        i += len;
    }
    return 0;
}

typedef struct {
    long count, first;   /* in the train split */
    int type;
} type_rank;

static int by_count(const void *a, const void *b)
{
    const type_rank *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

static int in_split(long k) { return k % 20 == 18 ? 1 : k % 20 == 19 ? 2 : 0; } /* 0 train */

/* Rank the types by count in the train split (ties: first occurrence first); rank has
 * ntypes entries.  Returns how many occur there (<eos> excluded: it has its fixed id). */
static long rank_train_types(type_rank *rank, const tok_state *s, long nt)
{
    long ntypes = s->in.ntypes;
    for (long t = 0; t < ntypes; t++)
        rank[t].type = (int)t, rank[t].first = LONG_MAX;
    for (long k = 0; k < CORPUS_NBLOCKS; k++) {
        if (in_split(k) != 0)
            continue;
        for (long i = k * nt / CORPUS_NBLOCKS; i < (k + 1) * nt / CORPUS_NBLOCKS; i++) {
            type_rank *r = &rank[s->toks.v[i]];
            if (r->count++ == 0)
                r->first = i;
        }
    }
    if (s->eos >= 0)
        rank[s->eos].count = 0;
    qsort(rank, (size_t)ntypes, sizeof *rank, by_count);
    long seen = 0;
    while (seen < ntypes && rank[seen].count > 0)
        seen++;
    return seen;
}

/* The vocabulary: <unk> (and <eos>), then the `seen` ranked types up to the cap; map
 * (ntypes) from type to id.  The words move from the interner into c->words. */
static int build_vocab(corpus *c, tok_state *s, const type_rank *rank, long seen, int *map,
                       int vocab_cap, int cap_explicit)
{
    int word = c->level == LEVEL_WORD;
    int nspecial = word ? 2 : 1;
    long avail = nspecial + seen;
    RS_CHECK(!cap_explicit || vocab_cap <= avail,
          "--vocab %d is larger than the corpus: the train split of %s has %ld distinct %s "
          "(+ %s = %ld ids); use --vocab %ld or less", vocab_cap, c->path, seen,
          word ? "words" : "characters", word ? "<unk>, <eos>" : "<unk>", avail, avail);
    RS_CHECK(!cap_explicit || vocab_cap >= nspecial + 1,
          "--vocab %d is too small: it must hold %s and at least one token", vocab_cap,
          word ? "<unk>, <eos>" : "<unk>");
    long V = vocab_cap > 0 && vocab_cap < avail ? vocab_cap : avail;
    c->vocab = (int)V;
    c->words = calloc((size_t)V, sizeof *c->words);
    RS_CHECK(c->words, "out of memory");
    for (long t = 0; t < s->in.ntypes; t++)
        map[t] = CORPUS_UNK;
    c->words[CORPUS_UNK] = strdup("<unk>");
    if (word) {
        c->words[CORPUS_EOS] = strdup("<eos>");
        map[s->eos] = CORPUS_EOS;
    }
    for (long r = 0; r < V - nspecial; r++) {
        map[rank[r].type] = (int)(nspecial + r);
        c->words[nspecial + r] = s->in.str[rank[r].type];
        s->in.str[rank[r].type] = NULL;   /* moved */
    }
    return 0;
}

/* The three splits (every 20 blocks: 18 train, 1 valid, 1 test), mapped to ids. */
static int split_ids(corpus *c, const tok_state *s, const int *map, long nt)
{
    c->train = malloc((size_t)nt * sizeof(int));
    c->valid = malloc((size_t)nt / 10 * sizeof(int) + 64);
    c->test = malloc((size_t)nt / 10 * sizeof(int) + 64);
    RS_CHECK(c->train && c->valid && c->test, "out of memory");
    for (long k = 0; k < CORPUS_NBLOCKS; k++) {
        int sp = in_split(k);
        int *dst = sp == 0 ? c->train : sp == 1 ? c->valid : c->test;
        long *cnt = sp == 0 ? &c->ntrain : sp == 1 ? &c->nvalid : &c->ntest;
        long *unk = sp == 0 ? &c->unk_train : sp == 1 ? &c->unk_valid : &c->unk_test;
        for (long i = k * nt / CORPUS_NBLOCKS; i < (k + 1) * nt / CORPUS_NBLOCKS; i++) {
            int id = map[s->toks.v[i]];
            *unk += id == CORPUS_UNK;
            dst[(*cnt)++] = id;
        }
    }
    c->ntokens = nt;
    return 0;
}

/* Read, hash, check and tokenize the file into s.  0, or -1 (rs_lasterr). */
static int read_tokens(corpus *c, const char *path, tok_state *s)
{
    unsigned char *buf;
    long n;
    if (read_file(path, &buf, &n) != 0)
        return -1;
    int rc = -1;
    c->bytes = n;
    sha256_hex(buf, (size_t)n, c->sha256);
    if (check_text(path, buf, n) != 0)
        goto out;
    s->eos = c->level == LEVEL_WORD ? intern(&s->in, "<eos>", 5) : -1;
    if ((c->level == LEVEL_WORD ? tokenize_words(s, buf, n) : tokenize_chars(s, buf, n)) != 0)
        goto out;
    if (s->toks.n < CORPUS_MIN_TOKENS) {
        rs_seterr("corpus %s has only %ld %s tokens; at least %d are needed", path, s->toks.n,
                  c->level == LEVEL_WORD ? "word" : "character", CORPUS_MIN_TOKENS);
        goto out;
    }
    rc = 0;
out:
    free(buf);
    return rc;
}

int corpus_load(corpus *c, const char *path, corpus_level level, int vocab_cap, int cap_explicit)
{
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    c->level = level;
    int rc = -1;
    tok_state s = {0};
    type_rank *rank = NULL;
    int *map = NULL;
    if (read_tokens(c, path, &s) != 0)
        goto out;
    rank = calloc((size_t)s.in.ntypes, sizeof *rank);
    map = malloc((size_t)s.in.ntypes * sizeof *map);
    if (!rank || !map) {
        rs_seterr("out of memory reading corpus %s", path);
        goto out;
    }
    long seen = rank_train_types(rank, &s, s.toks.n);
    c->ntypes = seen;
    if (build_vocab(c, &s, rank, seen, map, vocab_cap, cap_explicit) != 0)
        goto out;
    if (split_ids(c, &s, map, s.toks.n) != 0)
        goto out;
    rc = 0;
out:
    free(rank);
    free(map);
    free(s.toks.v);
    intern_free(&s.in);
    if (rc != 0)
        corpus_free(c);
    return rc;
}

void corpus_free(corpus *c)
{
    if (c->words)
        for (int i = 0; i < c->vocab; i++)
            free(c->words[i]);
    free(c->words);
    free(c->train);
    free(c->valid);
    free(c->test);
    c->words = NULL, c->train = c->valid = c->test = NULL;
}

int corpus_resolve(const char *name, char *path, size_t len)
{
    /* the named corpora: where the fetch scripts put them, and how to get them */
    static const struct {
        const char *name, *rel, *how;
    } named[] = {
        {"mobydick", "data/moby-dick/data.txt", "`make deps` or `sh models/fetch_corpus.sh`"},
        {"kjv", "data/kjv/kjv.txt",
         "`apt-get install bible-kjv`, then `sh models/fetch_kjv.sh` (or `make corpus`)"},
        {"sotu", "data/sotu/sotu.txt", "`make deps` or `sh models/fetch_sotu.sh`"},
        {"big", "data/big/big.txt",
         "`make deps`, or `apt-get install dict-gcide wordnet-base dict-foldoc bible-kjv`, then "
         "`make corpus`"},
    };
    int k = -1;
    for (int i = 0; i < RS_ARRAY_LEN(named); i++)
        if (strcmp(name, named[i].name) == 0)
            k = i;
    if (k < 0) {
        snprintf(path, len, "%s", name);
        RS_CHECK(access(name, R_OK) == 0, "--corpus %s: no such corpus (expected mobydick, kjv, "
                 "sotu, big or a readable text file: %s)", name, strerror(errno));
        struct stat st;   /* --check-args refuses a FIFO or folder too, before any work */
        RS_CHECK(stat(name, &st) == 0 && S_ISREG(st.st_mode), "--corpus %s is %s, not a regular file (give a "
                 "text file, or mobydick, kjv, sotu or big)", name, rs_file_kind(st.st_mode));
        return 0;
    }
    const char *rel = named[k].rel;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');   /* .../build/bin/rnn-train -> .../build/ */
        if (slash) {
            *slash = 0;
            slash = strrchr(exe, '/');
            if (slash) {
                slash[1] = 0;
                snprintf(path, len, "%s%s", exe, rel);
                if (access(path, R_OK) == 0)
                    return 0;
            }
        }
    }
    snprintf(path, len, "build/%s", rel);
    RS_CHECK(access(path, R_OK) == 0, "corpus %s not found at %s (fetch it with %s)", name, path,
          named[k].how);
    return 0;
}

/* ---- streams ---- */

void streams_init(stream_set *s, const int *data, long n, int B)
{
    s->data = data;
    s->B = B;
    s->len = n / B;
}

int streams_window(const stream_set *s, long pos, int T, int *inputs, int *targets)
{
    long left = s->len - 1 - pos;
    int Tw = left <= 0 ? 0 : left < T ? (int)left : T;
    for (int t = 0; t < Tw; t++)
        for (int b = 0; b < s->B; b++) {
            const int *st = s->data + (long)b * s->len + pos + t;
            inputs[t * s->B + b] = st[0];
            targets[t * s->B + b] = st[1];
        }
    return Tw;
}

long streams_nwindows(const stream_set *s, int T)
{
    return s->len < 2 ? 0 : (s->len - 1 + T - 1) / T;
}
