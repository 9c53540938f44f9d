/* draw.h — every figure of every study drawn in one place (draw.c): gnuplot on
 * plot/NAME.gp with the values the run's CSVs give it (figure_vars, figures.h). */
#ifndef STUDY_DRAW_H
#define STUDY_DRAW_H

/* RUN/figures/NAME.png from plot/NAME.gp: csv (the file the script reads as `csv`;
 * NULL: RUN/NAME.csv) and extra (more gnuplot assignments; NULL: none) given with
 * `-e`, then figure_vars's.  gnuplot draws into a temporary that is renamed once it
 * succeeded, so a failed or stopped gnuplot leaves no partial figure (and no process:
 * proc.h).  who: the line's prefix ("figures: RUN/figures/NAME.png", or why not).
 * 0 drawn, 1 failed, 2 gnuplot is not installed (nothing drawn, nothing said). */
int study_draw(const char *run, const char *name, const char *csv, const char *extra, const char *who);

#endif
