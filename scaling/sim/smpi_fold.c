/* smpi_fold.c — build/lib/rs-smpi-fold.so: folded buffers for big simulations, preloaded
 * (LD_PRELOAD) into smpirun by study simulate for the runs whose buffers do not fit.
 *
 * SMPI runs every rank in one process, so 800 ranks x (send + receive + scratch) x
 * 64 MiB would be 150 GB.  SMPI's own shared malloc keeps physical memory small but
 * still gives every rank its own virtual pages, each faulted in when touched.  Here a
 * folded allocation is a *slot* of a process-wide pool instead: a rank's k-th live
 * folded buffer is region k, the same for every rank, so the footprint does not grow
 * with p while a rank's own buffers stay distinct.  The regions come from SMPI's shared
 * malloc, so SMPI skips copying payloads between them.  Contents are garbage (results
 * are not checked in these runs); simulated times never depend on data.
 *
 * Users: the benchmark's big buffers (scaling/sim/smpi_hooks.c hands collectives/ar_hooks.h
 * rs_fold_alloc / rs_fold_free, found by name with dlsym) and SMPI's built-in
 * collectives, whose temporaries (`new unsigned char[size]`) this library catches by
 * replacing operator new[] / delete[] for the whole process.  SimGrid's own containers
 * use operator new and are not caught, but for one: the copy SMPI's MPI_Allreduce
 * makes of an MPI_IN_PLACE buffer (a std::vector, rnn-train's gradient: 49 MB a rank)
 * — so operator new of at least NEW_FOLD_FACTOR times the threshold, inside a rank,
 * is folded too (no SimGrid container comes near 16 MiB); smaller ones, and
 * everything when RS_SMPI_FOLD_BYTES is unset or SMPI is absent (smpirun's helper
 * processes), come from malloc as usual.  Ranks are SimGrid actors; they run one at a
 * time in one OS thread, so the tables need no locks.  Built with the host compiler;
 * finds SimGrid's functions at run time (dlsym). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef void *(*shared_malloc_fn)(size_t size, const char *file, int line);
typedef long (*self_pid_fn)(void);

enum { MAX_REGIONS = 256, MAX_SLOTS = 64, MAX_PIDS = 1 << 16, NEW_FOLD_FACTOR = 16 };

static struct {
    int ready;
    size_t thresh;            /* fold allocations of at least this many bytes (0: never) */
    shared_malloc_fn smalloc; /* smpi_shared_malloc */
    self_pid_fn self_pid;     /* sg_actor_self_get_pid */
} fold;

static struct { void *base; size_t size; int slot; } reg[MAX_REGIONS];
static int nreg;
static int slot_reg[MAX_SLOTS];   /* slot -> its current (largest) region, -1 none */
static uint64_t live[MAX_PIDS];   /* actor pid -> bitmask of the slots it holds */

static void setup(void)
{
    fold.ready = 1;
    const char *v = getenv("RS_SMPI_FOLD_BYTES");
    fold.thresh = v ? strtoull(v, NULL, 10) : 0;
    fold.smalloc = (shared_malloc_fn)dlsym(RTLD_DEFAULT, "smpi_shared_malloc");
    fold.self_pid = (self_pid_fn)dlsym(RTLD_DEFAULT, "sg_actor_self_get_pid");
    if (!fold.smalloc || !fold.self_pid)
        fold.thresh = 0;
    for (int k = 0; k < MAX_SLOTS; k++)
        slot_reg[k] = -1;
}

size_t rs_fold_threshold(void);
void *rs_fold_alloc(size_t n);
int rs_fold_free(void *p);

/* 0 when folding is off (the variable unset, or not inside SimGrid). */
size_t rs_fold_threshold(void)
{
    if (!fold.ready)
        setup();
    return fold.thresh;
}

/* A region for the calling rank's next free slot, at least n bytes; NULL if folding is
 * off or the pool is exhausted (the caller then allocates normally). */
void *rs_fold_alloc(size_t n)
{
    if (!rs_fold_threshold())
        return NULL;
    uint64_t *mask = &live[(uint64_t)fold.self_pid() % MAX_PIDS];
    int k = 0;
    while (k < MAX_SLOTS && (*mask >> k & 1))
        k++;
    if (k == MAX_SLOTS)
        return NULL;
    int r = slot_reg[k];
    if (r < 0 || reg[r].size < n) { /* a new, larger region; older ones stay mapped */
        if (nreg == MAX_REGIONS)
            return NULL;
        void *p = fold.smalloc(n, "rs-smpi-fold region", k);
        if (!p)
            return NULL;
        reg[nreg].base = p;
        reg[nreg].size = n;
        reg[nreg].slot = k;
        slot_reg[k] = r = nreg++;
    }
    *mask |= (uint64_t)1 << k;
    return reg[r].base;
}

/* 1 if p is a region (the calling rank's slot is released), 0 if not ours. */
int rs_fold_free(void *p)
{
    if (!p || !nreg)
        return 0;
    for (int r = 0; r < nreg; r++)
        if (reg[r].base == p) {
            live[(uint64_t)fold.self_pid() % MAX_PIDS] &= ~((uint64_t)1 << reg[r].slot);
            return 1;
        }
    return 0;
}

/* ---- operator new[] / delete[] for the whole process: SMPI built-ins' temporaries -- */
void *_Znam(size_t n);            /* operator new[](size_t) */
void _ZdaPv(void *p);             /* operator delete[](void*) */
void _ZdaPvm(void *p, size_t n);  /* operator delete[](void*, size_t) */

/* A region when n >= min (min 0: never), else malloc; never NULL (operator new may not
 * return it). */
static void *fold_or_malloc(size_t n, size_t min)
{
    if (min && n >= min) {
        void *p = rs_fold_alloc(n);
        if (p)
            return p;
    }
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "rs-smpi-fold: out of memory for %zu bytes\n", n);
        abort();
    }
    return p;
}

void *_Znam(size_t n) { return fold_or_malloc(n, rs_fold_threshold()); }

void _ZdaPv(void *p)
{
    if (p && !rs_fold_free(p))
        free(p);
}

void _ZdaPvm(void *p, size_t n)
{
    (void)n;
    _ZdaPv(p);
}

/* ---- operator new / delete: only SMPI's in-place copies of big messages ------------ */
void *_Znwm(size_t n);            /* operator new(size_t) */
void _ZdlPv(void *p);             /* operator delete(void*) */
void _ZdlPvm(void *p, size_t n);  /* operator delete(void*, size_t) */

void *_Znwm(size_t n)
{
    size_t min = NEW_FOLD_FACTOR * rs_fold_threshold();
    /* inside a rank only (asked last: before SimGrid starts there is no actor to ask) */
    return fold_or_malloc(n, min && n >= min && fold.self_pid() > 0 ? min : 0);
}

void _ZdlPv(void *p) { _ZdaPv(p); }
void _ZdlPvm(void *p, size_t n) { _ZdaPvm(p, n); }
