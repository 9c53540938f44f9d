/* completion.h — an MSR-style sentence completion test built from held-out text
 * (Zweig & Burges 2011, the MSR Sentence Completion Challenge: a sentence with one
 * word blanked, the right word and four impostors, pick by sentence probability).
 *
 * Built from the test split (word level), deterministically from the seed:
 *   - sentences are the runs between <eos> tokens with 6..40 tokens;
 *   - the blank is a word (an ASCII letter first) of frequency rank >= 50 (not one of
 *     the most frequent, mostly function, words), never <unk>;
 *   - the four impostors are words of similar frequency: drawn from the 25 vocabulary
 *     ids on either side of the answer (ids are in decreasing train count), also
 *     words of rank >= 50, all different;
 *   - the questions are spread over the split (a seeded shuffle of the eligible
 *     sentences), one blank per sentence.
 * Scoring: each of the five filled-in sentences gets its log probability, the
 * sentence's tokens and the closing <eos> given a start after <eos> (from a zero
 * state for the RNN; after the start symbol and <eos> for kn3); the question is right
 * when the answer's is strictly the highest.  Chance is 20%. */
#ifndef RS_MODELS_COMPLETION_H
#define RS_MODELS_COMPLETION_H

#include <stdint.h>

#include "corpus.h"
#include "kn3.h"
#include "model.h"

#define COMPLETION_CHOICES 5

typedef struct {
    int n;              /* questions */
    const int *tokens;  /* the test split (not owned) */
    long *start;        /* (n) first token of each question's sentence */
    int *len;           /* (n) its length, <eos> excluded */
    int *blank;         /* (n) the blanked position in the sentence */
    int *choice;        /* (n, 5) candidate ids; choice[0] is the answer */
} completion_set;

/* Up to nq questions from c's test split.  0 (q->n may be less than nq when the split
 * has fewer eligible sentences), or -1 (rs_lasterr). */
int completion_build(completion_set *q, const corpus *c, int nq, uint64_t seed);
void completion_free(completion_set *q);
/* Fraction answered right by the model (its B streams score candidates in parallel;
 * the carried training state is saved and restored) and by the trigram. */
/* The fraction answered right; NAN with rs_lasterr set when memory runs out. */
double completion_accuracy_model(model *m, const completion_set *q);
double completion_accuracy_kn3(const kn3_model *k, const completion_set *q);

#endif
