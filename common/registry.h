/* registry.h — one way to look up the rows of any registry table: expf variants,
 * softmax variants, GEMM backends, allreduce algorithms, point-wise kernel sets.
 *
 * Each area keeps its own row type, written with designated initializers, and
 * describes its table once with an rs_registry: where the rows are, and where the
 * name (and, for rows built per ISA, the rs_isa) sits in a row.  Rows may be stored
 * in place (RS_REGISTRY_ROWS) or as an array of pointers to rows defined in their own
 * files (RS_REGISTRY_PTRS).  The lookups below are then the same for every area:
 *   const exp_variant *v = rs_registry_find(&exp_registry, "poly", RS_ISA_AVX2);
 *   rs_registry_check_list(&exp_registry, "variant", "variant", "poly,libm");  */
#ifndef RS_REGISTRY_H
#define RS_REGISTRY_H

#include <stddef.h>

#include "cpu.h"

typedef struct {
    const void *rows;   /* the first row, or the first pointer to a row (indirect) */
    int n;              /* rows */
    size_t stride;      /* bytes from one row (or pointer) to the next */
    int indirect;       /* 1: rows is an array of pointers to rows */
    size_t name_at;     /* offsetof(row, name) */
    long isa_at;        /* offsetof(row, isa), or -1: the rows are not per ISA */
} rs_registry;

/* An array of rows in place: RS_REGISTRY_ROWS(exp_variants, exp_variant, variant, isa). */
#define RS_REGISTRY_ROWS(array, type, name_field, isa_field)                          \
    {(array), (int)(sizeof(array) / sizeof((array)[0])), sizeof(type), 0,              \
     offsetof(type, name_field), (long)offsetof(type, isa_field)}
/* The same without an ISA per row. */
#define RS_REGISTRY_ROWS_NO_ISA(array, type, name_field)                              \
    {(array), (int)(sizeof(array) / sizeof((array)[0])), sizeof(type), 0,              \
     offsetof(type, name_field), -1}
/* An array of pointers to rows: RS_REGISTRY_PTRS(gemm_backends, gemm_backend, name). */
#define RS_REGISTRY_PTRS(array, type, name_field)                                     \
    {(array), (int)(sizeof(array) / sizeof((array)[0])), sizeof((array)[0]), 1,        \
     offsetof(type, name_field), -1}
#define RS_REGISTRY_PTRS_ISA(array, type, name_field, isa_field)                      \
    {(array), (int)(sizeof(array) / sizeof((array)[0])), sizeof((array)[0]), 1,        \
     offsetof(type, name_field), (long)offsetof(type, isa_field)}

/* find's isa argument where any ISA will do (and for rows that are not per ISA). */
#define RS_REGISTRY_ANY_ISA (-1)

const void *rs_registry_row(const rs_registry *reg, int i);
const char *rs_registry_name(const rs_registry *reg, int i);
/* The row's ISA; RS_ISA_PORTABLE for rows that are not per ISA. */
rs_isa rs_registry_isa(const rs_registry *reg, int i);

/* The first row named `name` (built for `isa`, unless RS_REGISTRY_ANY_ISA); NULL if none. */
const void *rs_registry_find(const rs_registry *reg, const char *name, int isa);

/* The first row whose ISA this CPU runs (rows widest first: the best one); NULL if none. */
const void *rs_registry_first_supported(const rs_registry *reg);

/* Every item of the comma list `list` must be "all" or a row's name; the error is
 * rs_list_check's "--FLAG: unknown WHAT 'x' (expected one of: a, b, c)".  0, or -1. */
int rs_registry_check_list(const rs_registry *reg, const char *flag, const char *what,
                           const char *list);

/* The names joined by ", " into buf (each name once, in row order). */
void rs_registry_names(const rs_registry *reg, char *buf, size_t len);

#endif
