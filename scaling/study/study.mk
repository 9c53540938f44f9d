# study.mk — build/bin/study, the one reader of what the studies write (study.h).
# Included by the top-level Makefile after OBJ, BIN, COMMON_OBJ, LDLIBS and PROGRAMS.
# Every scaling/study/*.c is part of it: a new subcommand is one file and one row in
# scaling/study/main.c.

STUDY_SRC := $(wildcard scaling/study/*.c)
STUDY_OBJ := $(STUDY_SRC:%.c=$(OBJ)/%.o)
# the composition study lays out the model's tensors as rnn-train does
STUDY_OBJ += $(OBJ)/models/model_layout.o
$(OBJ)/scaling/study/compose_plan.o: INC += -Imodels
PROGRAMS  += $(BIN)/study

$(BIN)/study: $(STUDY_OBJ) $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(LDLIBS)

EXTRA_CHECKS += check-study
.PHONY: check-study
check-study: $(BIN)/study
	@sh test/study/run.sh $(BIN)
