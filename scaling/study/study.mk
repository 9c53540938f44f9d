# study.mk — build/bin/study, the one reader of what the studies write (study.h).
# Included by the top-level Makefile after OBJ, BIN, COMMON_OBJ, LDLIBS and PROGRAMS.
# Every scaling/study/*.c is part of it: a new subcommand is one file and one row in
# scaling/study/main.c.

STUDY_SRC := $(wildcard scaling/study/*.c)
STUDY_OBJ := $(STUDY_SRC:%.c=$(OBJ)/%.o)
# the composition study lays out the model's tensors as rnn-train does
STUDY_OBJ += $(OBJ)/models/model_layout.o
$(OBJ)/scaling/study/compose_plan.o: INC += -Imodels
# the regime study fits S(B) with scaling-fit's code
STUDY_OBJ += $(OBJ)/scaling/conv_fit.o
$(OBJ)/scaling/study/regime%.o: INC += -Iscaling
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
	@sh test/study/run.sh $(BIN)

# The tool's own pieces under Criterion (test/test_study.c).
$(OBJ)/test/test_study.o: INC += -Iscaling/study
$(BUILD)/test/test_study: $(OBJ)/scaling/study/argv.o $(OBJ)/scaling/study/points_file.o
