/* smpi_hooks.h — the SMPI start-up that allreduce-bench-smpi and rnn-train-smpi share
 * (scaling/sim/smpi_hooks.c): after MPI_Init, one call sets collectives/ar_hooks.h for the
 * simulation (the gamma charge, folded buffers, hier's groups from host names, the
 * ideal barrier, cheap bookkeeping allreduces).  The getters tell the trainer's side
 * (scaling/sim/train_smpi.c) what was set. */
#ifndef RS_SCALING_SMPI_HOOKS_H
#define RS_SCALING_SMPI_HOOKS_H

#include <stddef.h>

/* Read the settings (RS_SMPI_* and the host's properties) and set the hooks.  0, or -1
 * with rs_seterr. */
int smpi_hooks_install(void);
/* RS_SMPI_FOLD_BYTES: buffers of at least this many bytes are folded (0: none). */
size_t smpi_hooks_fold_bytes(void);
/* Seconds per byte of local vector arithmetic (the gamma model; 0: not charged). */
double smpi_hooks_seconds_per_byte(void);
/* Charge `seconds` of computation on this rank's host (simulated time only). */
void smpi_hooks_charge_seconds(double seconds);

#endif
