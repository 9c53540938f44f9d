/* corpus.h — text to token ids: load, tokenize (word or character level), a
 * deterministic train/valid/test split, the vocabulary, and batching into B streams.
 *
 * Word level (Penn-Treebank style):
 *   - ASCII letters are lower-cased; a word is a run of letters and digits (any
 *     non-ASCII letter counts as a letter), with an apostrophe (' or ’, kept as ') or a
 *     hyphen allowed between two letters: "people’s" -> "people's", "sperm-whale".
 *   - Every other visible character is a token of its own: "," "." "—" "“" ";" ...
 *   - Sentence ends, <eos>: if the file has no blank line it is one sentence per line
 *     (Penn Treebank, Mikolov's data): every non-empty line ends with <eos>.  Otherwise
 *     (prose, Moby Dick) after every "." "!" "?" token and at every paragraph end
 *     (a blank line), never twice in a row.
 * Character level: each UTF-8 code point is a token (newline included); no <eos>.
 *
 * Split (before the vocabulary is built, so valid/test words unseen in training are
 * <unk>): the token stream is cut into CORPUS_NBLOCKS contiguous blocks of equal size;
 * block k goes to valid if k % 20 == 18, to test if k % 20 == 19, else to train —
 * 90/5/5, spread through the text rather than its last chapters.
 *
 * Vocabulary (from the train split only): id 0 is <unk>; word level has id 1 <eos>;
 * then the train split's tokens by decreasing count (ties: first occurrence), cut at
 * the cap.  A cap given explicitly that exceeds what the train split holds is an
 * error (the user asked for something the corpus cannot give); the default cap is
 * lowered to what there is.
 *
 * Errors (exit 2 in main, one line): file missing or unreadable, empty, not UTF-8
 * text (a NUL byte or an invalid sequence, with its offset), too few tokens, an
 * explicit --vocab larger than the corpus. */
#ifndef RS_MODELS_CORPUS_H
#define RS_MODELS_CORPUS_H

#include <stddef.h>
#include <stdint.h>

typedef enum { LEVEL_WORD, LEVEL_CHAR } corpus_level;

#define CORPUS_NBLOCKS 100
#define CORPUS_MIN_TOKENS 200   /* fewer: the 100-block split leaves nothing to learn */
#define CORPUS_UNK 0
#define CORPUS_EOS 1            /* word level only */

typedef struct {
    char path[4096];
    char sha256[65];          /* of the file's bytes */
    long bytes;
    corpus_level level;
    int vocab;                /* V: ids 0..V-1 */
    char **words;             /* (V) each token's text ("<unk>", "<eos>", "the", ...) */
    long ntypes;              /* distinct tokens in the train split */
    int *train, *valid, *test;     /* token ids */
    long ntrain, nvalid, ntest;
    long ntokens;             /* all three together */
    long unk_train, unk_valid, unk_test;   /* tokens mapped to <unk> */
} corpus;

/* vocab_cap: the most ids (including <unk>, <eos>); 0 = every train token.
 * cap_explicit: the user gave it (too large is then an error).  0, or -1 (rs_lasterr). */
int corpus_load(corpus *c, const char *path, corpus_level level, int vocab_cap, int cap_explicit);
void corpus_free(corpus *c);

/* "mobydick" -> the fetched file (build/data/moby-dick/data.txt, looked for beside the
 * executable first, then from the working folder); "kjv" -> build/data/kjv/kjv.txt
 * (the King James Bible, one verse per line: models/fetch_kjv.sh); "sotu" ->
 * build/data/sotu/sotu.txt (the State of the Union addresses: models/fetch_sotu.sh);
 * "big" -> build/data/big/big.txt (10.9 M tokens from two dictionaries, WordNet and the
 * three above: models/fetch_big.sh); anything else is a path.  0, or -1 with a line saying how to fetch it. */
int corpus_resolve(const char *name, char *path, size_t len);

/* ---- batching: B parallel streams over a split, windows of T steps ----
 * Stream b is tokens [b L, (b+1) L) of the split, L = n / B (the last n % B tokens are
 * not used).  A window at position pos (0 <= pos < L - 1) has Tw = min(T, L - 1 - pos)
 * steps: input (t, b) = stream_b[pos + t], target (t, b) = stream_b[pos + t + 1].
 * Hidden state carried from one window to the next continues each stream. */
typedef struct {
    const int *data;
    long len;        /* L: tokens per stream */
    int B;
} stream_set;

void streams_init(stream_set *s, const int *data, long n, int B);
/* Fill inputs, targets (Tw, B) for the window at pos; returns Tw (0 past the end). */
int streams_window(const stream_set *s, long pos, int T, int *inputs, int *targets);
/* Windows per pass over the set (its epoch). */
long streams_nwindows(const stream_set *s, int T);

#endif
