/* smpi_noomp.c — the OpenMP runtime calls of common/ and models/ for the SMPI builds
 * (`allreduce-bench-smpi`, `rnn-train-smpi`), which are built without OpenMP (SMPI runs
 * every rank as a thread of one process; OpenMP threads there would be real threads
 * outside the simulation).  Without -fopenmp the pragmas are inert and every parallel
 * region runs on one thread, so thread 0 of 1 is the truth and a requested thread
 * count changes nothing.  (allreduce-bench never enters those regions: common/opts.c
 * links bench.c for rs_ncpus only.) */
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
void omp_set_num_threads(int n);
int omp_in_parallel(void);
void omp_set_max_active_levels(int n);

int omp_get_thread_num(void) { return 0; }
int omp_get_num_threads(void) { return 1; }
int omp_get_max_threads(void) { return 1; }
void omp_set_num_threads(int n) { (void)n; }
int omp_in_parallel(void) { return 0; }
void omp_set_max_active_levels(int n) { (void)n; }
