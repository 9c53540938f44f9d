/* models_study.h — the model-size study's parts (models.c: settings, plan, rows;
 * models_report.c: its report section). */
#ifndef MODELS_STUDY_H
#define MODELS_STUDY_H

#include <stdio.h>

#include "study_def.h"

extern const study_def models_study;

/* The section in Markdown from RUN/scaling_models.csv and the settings. */
int models_report(const study_run *r, const char *csv, FILE *out);

#endif
