/* smpi_fold.c — build/lib/rs-smpi-fold.so, preloaded (LD_PRELOAD) into smpirun by
 * scaling/simulate for runs whose buffers are folded: SMPI's built-in collectives then
 * fold their temporary buffers too.
 *
 * Why: SMPI runs every rank in one process, and its built-in allreduce algorithms
 * allocate real temporaries of up to the whole vector per rank (smpi_get_tmp_sendbuffer:
 * `new unsigned char[size]`): recursive doubling at 800 ranks and 64 MiB wants
 * 800 x 64 MiB = 51 GB.  The benchmark's own buffers are folded by SMPI
 * (smpi/auto-shared-malloc-thresh) and scaling/smpi_shim.c; the built-ins' are not
 * reachable that way.  This library replaces operator new[] / delete[] for the whole
 * process: an array of at least RS_SMPI_FOLD_BYTES bytes comes from SMPI's shared malloc
 * (every rank's temporary maps the same pages: contents are garbage, timing is not
 * affected — SMPI's simulated times never depend on data, and it skips copying shared
 * blocks, which also saves wall time); smaller ones, and everything when the variable
 * is unset or SMPI is not in the process, come from malloc as usual.  SimGrid itself
 * allocates no arrays that large with new[] (its containers use operator new), and the
 * simulate driver sets the threshold at 1 MiB or more.
 *
 * Built with the host compiler, not smpicc; it finds smpi_shared_malloc/free at run
 * time (dlsym), so the same file loads harmlessly into smpirun's helper processes. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef void *(*shared_malloc_fn)(size_t size, const char *file, int line);
typedef void (*shared_free_fn)(void *p);

static struct {
    int ready;
    size_t thresh;          /* fold arrays of at least this many bytes (0: never) */
    shared_malloc_fn smalloc;
    shared_free_fn sfree;
} fold;

static void setup(void)
{
    fold.ready = 1;
    const char *v = getenv("RS_SMPI_FOLD_BYTES");
    fold.thresh = v ? strtoull(v, NULL, 10) : 0;
    fold.smalloc = (shared_malloc_fn)dlsym(RTLD_DEFAULT, "smpi_shared_malloc");
    fold.sfree = (shared_free_fn)dlsym(RTLD_DEFAULT, "smpi_shared_free");
    if (!fold.smalloc || !fold.sfree)
        fold.thresh = 0;
}

/* The folded pointers: an open-addressing set (SMPI actors run in one OS thread). */
enum { SLOTS = 1 << 16 };
static void *slot[SLOTS];
static int nlive;

static size_t hash(const void *p) { return ((uintptr_t)p >> 12) * 0x9E3779B97F4A7C15ull >> 48; }

static int remember(void *p)
{
    if (nlive >= SLOTS / 2)
        return -1;
    for (size_t i = hash(p);; i = (i + 1) & (SLOTS - 1))
        if (!slot[i] || slot[i] == (void *)1) {
            slot[i] = p;
            nlive++;
            return 0;
        }
}

static int forget(void *p)
{
    for (size_t i = hash(p); slot[i]; i = (i + 1) & (SLOTS - 1))
        if (slot[i] == p) {
            slot[i] = (void *)1; /* tombstone */
            nlive--;
            return 1;
        }
    return 0;
}

void *_Znam(size_t n); /* operator new[](size_t) */
void _ZdaPv(void *p);  /* operator delete[](void*) */
void _ZdaPvm(void *p, size_t n); /* operator delete[](void*, size_t) */

void *_Znam(size_t n)
{
    if (!fold.ready)
        setup();
    if (fold.thresh && n >= fold.thresh) {
        void *p = fold.smalloc(n, "SMPI built-in temporary (operator new[])", 0);
        if (p && remember(p) == 0)
            return p;
        if (p)
            fold.sfree(p);
    }
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "rs-smpi-fold: out of memory for %zu bytes\n", n);
        abort(); /* operator new[] may not return NULL */
    }
    return p;
}

void _ZdaPv(void *p)
{
    if (!p)
        return;
    if (((uintptr_t)p & 4095) == 0 && nlive && forget(p))
        fold.sfree(p);
    else
        free(p);
}

void _ZdaPvm(void *p, size_t n)
{
    (void)n;
    _ZdaPv(p);
}
