# study.mk — build/bin/study, the one reader of what the studies write (study.h), its
# fit (build/bin/scaling-fit) and make scaling.
# Included by the top-level Makefile after OBJ, BIN, COMMON_OBJ, LDLIBS and PROGRAMS.
# Every scaling/study/*.c is part of it: a new subcommand is one file and one row in
# scaling/study/main.c.

STUDY_SRC := $(wildcard scaling/study/*.c)
STUDY_OBJ := $(STUDY_SRC:%.c=$(OBJ)/%.o)
# the composition study lays out the model's tensors as rnn-train does
STUDY_OBJ += $(OBJ)/models/model_layout.o
$(OBJ)/scaling/study/compose_plan.o: INC += -Imodels
# the regime study fits S(B) with scaling-fit's code
STUDY_OBJ += $(OBJ)/scaling/study/fit/conv_fit.o $(OBJ)/scaling/study/fit/batch_stats.o \
             $(OBJ)/scaling/study/fit/advise_model.o
$(OBJ)/scaling/study/cmd_advise.o: INC += -Iscaling/study/fit
$(OBJ)/scaling/study/regime%.o: INC += -Iscaling/study/fit
PROGRAMS  += $(BIN)/study

# The simulate planner counts messages with collectives/ar_traffic.c, which is MPI-free:
# built here with $(CC), apart from the MPI library's objects.
STUDY_OBJ += $(OBJ)/study/collectives/ar_traffic.o
$(OBJ)/scaling/study/%.o: INC += -Icollectives
$(OBJ)/study/collectives/%.o: collectives/%.c $(SAN_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BIN)/study: $(STUDY_OBJ) $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(LDLIBS)

EXTRA_CHECKS += check-study
.PHONY: check-study
check-study: $(BIN)/study
	@sh test/study/run.sh $(BIN) && sh test/study/safety.sh $(BIN)

# The tool's own pieces under Criterion (test/test_study.c).
$(OBJ)/test/test_study.o: INC += -Iscaling/study
$(BUILD)/test/test_study: $(OBJ)/scaling/study/argv.o $(OBJ)/scaling/study/points_file.o

# ---- build/bin/scaling-fit: the fit S = S_min + E_min / B (scaling/study/fit/) ----------
SCALING_FIT := $(BIN)/scaling-fit
PROGRAMS += $(SCALING_FIT)
$(SCALING_FIT): $(OBJ)/scaling/study/fit/scaling_fit.o $(OBJ)/scaling/study/fit/conv_fit.o $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(LDLIBS)
$(OBJ)/test/test_scaling_fit.o: INC += -Iscaling/study/fit
$(BUILD)/test/test_scaling_fit: $(OBJ)/scaling/study/fit/conv_fit.o | $(SCALING_FIT)
$(OBJ)/test/test_batch_stats.o: INC += -Iscaling/study/fit
$(BUILD)/test/test_batch_stats: $(OBJ)/scaling/study/fit/batch_stats.o
$(OBJ)/test/test_advise.o: INC += -Iscaling/study/fit
$(BUILD)/test/test_advise: $(OBJ)/scaling/study/fit/advise_model.o

# ---- make scaling: the four studies, their tables and report.md, in one process,
# build/bin/study scaling, which holds the run folder's lock throughout and takes every
# setting (RUN, QUICK, JOBS and the studies' own) from the environment, never from a
# shell's text.  check-scaling: the pool, the convergence, regime, composition and
# model-size studies on tiny grids.
EXTRA_CHECKS += check-scaling
SCALING_DEFINED := 1
scaling: deps
	@$(MAKE) $(PAR) --no-print-directory all
	@exec $(BIN)/study scaling

.PHONY: check-scaling
check-scaling: $(SCALING_FIT) $(BIN)/rnn-train $(BIN)/study $(PLATFORM_GEN)
	@sh test/scaling/run.sh && sh test/scaling/regime.sh
