/* names.h — a name to its index in a table of names: the trainer's choices
 * (--optimizer, --schedule, --lr-scale) are enums named by such tables. */
#ifndef RS_MODELS_NAMES_H
#define RS_MODELS_NAMES_H

#include <string.h>

/* The index of name in names[0..n-1], or -1. */
static inline int name_index(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

#endif
