/* figures.h — what the figures (plot/NAME.gp) take computed from a run's CSVs (figure_vars.c).
 * The figures read their CSV with gnuplot's own reader; a value that needs the whole
 * file (a first row's value, the sizes present, a series sorted for yerrorlines) comes
 * from here as gnuplot -e assignments, for `study figures` (`study figure-vars`) and
 * for the studies that draw their figures. */
#ifndef STUDY_FIGURES_H
#define STUDY_FIGURES_H

#include <stddef.h>

/* The assignments plot/NAME.gp takes from the run folder DIR into buf ("" for a figure
 * that takes none): 0, or -1 (rs_lasterr: no plot/NAME.gp, or its CSV missing). */
int figure_vars(const char *dir, const char *name, char *buf, size_t len);

#endif
