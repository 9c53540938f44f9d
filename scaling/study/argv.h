/* argv.h — a point's command as an argument vector, from the plan to exec.
 *
 * A plan builds each command one argument at a time (study_argv); the points file
 * stores the vector with each argument escaped (\\ \s \t \n \r, and \0 for an empty
 * one), so that no setting, path or flag is ever split, joined or read by a shell:
 * a path with spaces, quotes, `$(...)` or a newline reaches the program as it was. */
#ifndef STUDY_ARGV_H
#define STUDY_ARGV_H

#include <stddef.h>

typedef struct {
    char **v;   /* NULL-terminated */
    int n, cap;
} study_argv;

/* One argument, formatted. */
void sa_add(study_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A flag and its value, two arguments: sa_opt(a, "--batch", "%ld", b). */
void sa_opt(study_argv *a, const char *flag, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Each word of text (split at blanks) one argument: for flags written in the code
 * ("--schedule const --resume-if-any") and for a setting that is a list of flags
 * (MODEL); a word is never read further. */
void sa_words(study_argv *a, const char *text);
/* Every argument of b appended. */
void sa_cat(study_argv *a, const study_argv *b);
void sa_free(study_argv *a);

/* The vector as one line of escaped words, one space apart (malloc'd). */
char *sa_encode(const study_argv *a);
/* A line of sa_encode back into a vector: 0, or -1 (a bad escape: rs_lasterr). */
int sa_decode(const char *line, study_argv *out);
/* The vector for a reader: each argument that needs it in single quotes, as a
 * user would paste it into a shell (cmd files, the points table). */
char *sa_display(const study_argv *a);

#endif
