/* bigmem.h — the model's big buffers (parameters, gradients, optimizer state, the
 * activation arena, the workers' state).  The hooks' big_alloc and big_free
 * (train_hooks.h, dispatched in train_hooks.c): libc in rnn-train
 * (models/train_native.c); in rnn-train-smpi (scaling/sim/train_smpi.c) the folded pool of
 * scaling/sim/smpi_fold.c when RS_SMPI_FOLD_BYTES asks for it, so 800 simulated ranks fit
 * in one process. */
#ifndef RS_MODELS_BIGMEM_H
#define RS_MODELS_BIGMEM_H

#include <stddef.h>

/* 64-byte aligned and zeroed (folded: garbage); NULL when out of memory.  Free with
 * train_big_free. */
void *train_big_alloc(size_t bytes);
void train_big_free(void *p);

#endif
