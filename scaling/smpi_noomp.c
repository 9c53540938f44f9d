/* smpi_noomp.c — the OpenMP runtime calls of common/ for `allreduce-bench-smpi`, which
 * is built without OpenMP (SMPI runs every rank as a thread of one process; OpenMP
 * threads there would be real threads outside the simulation).  Without -fopenmp the
 * pragmas in common/bench.c are inert and its parallel regions run on one thread, so
 * thread 0 is the truth.  (allreduce-bench never enters those regions: common/opts.c
 * links bench.c for rs_ncpus only.) */
int omp_get_thread_num(void);
int omp_get_thread_num(void) { return 0; }
