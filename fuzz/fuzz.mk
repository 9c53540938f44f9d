# fuzz/fuzz.mk — coverage-guided fuzzing of the readers a user's input reaches, with
# libFuzzer (clang, from Debian) under AddressSanitizer and UBSan; included by the
# top-level Makefile after COMMON_SRC.
#   make fuzz [SECONDS=60]   each target for SECONDS, from fuzz/seeds/NAME/; the corpus it
#                            grows is build/fuzz/NAME/, a crashing input is saved as
#                            build/fuzz/crash-NAME-* (copy it into fuzz/regress/NAME/);
#                            the log is build/fuzz/NAME.log
#   make check-fuzz          (in make test) every seed and every input that once crashed,
#                            fuzz/seeds/NAME/ and fuzz/regress/NAME/, replayed through the
#                            ordinary build (fuzz/replay.c): a fixed crash stays fixed
# Targets: json (the JSON reader: machine.json, results), opts (the option parser and
# the list/size/thread parsers behind it), corpus (the corpus loader, word and char),
# checkpoint (rnn-train's checkpoint loader, resealed inputs and raw ones), sizes
# (allreduce-bench --sizes FILE), csv (the result-CSV readers), platform
# (the RS_SMPI_GROUPS groups file and group-from-host-name of the SMPI builds).
# fuzz_srcs_NAME are compiled for the target with its sanitizers and coverage;
# fuzz_objs_NAME are the ordinary build's objects, linked as they are (checkpoint: the
# models library around the loader), fuzz_libs_NAME what those need.
FUZZ_CC      ?= clang
FUZZ_TARGETS := json opts corpus checkpoint sizes csv platform
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS  := -std=gnu11 -g -O1 -fsanitize=fuzzer-no-link $(FUZZ_SAN) $(INC) -Imodels \
                -Icollectives -Iscaling/sim
SECONDS      ?= 60
FUZZ_COMMON  := $(COMMON_SRC) fuzz/fuzz_input.c
fuzz_srcs_json   := $(FUZZ_COMMON)
fuzz_srcs_opts   := $(FUZZ_COMMON)
fuzz_srcs_corpus := $(FUZZ_COMMON) models/corpus.c models/sha256.c
fuzz_srcs_checkpoint := $(FUZZ_COMMON) models/checkpoint.c models/sha256.c
fuzz_objs_checkpoint := $(filter-out $(OBJ)/models/checkpoint.o $(OBJ)/models/sha256.o,$(MODELS_OBJ)) \
                        $(COLL_LIB_OBJ) $(KERNELS_OBJ)
fuzz_libs_checkpoint := $(MODELS_LIBS) $(MPI_LINK)
fuzz_srcs_sizes    := $(FUZZ_COMMON) collectives/bench_sizes.c
fuzz_srcs_csv      := $(FUZZ_COMMON)
fuzz_srcs_platform := $(FUZZ_COMMON) scaling/sim/host_groups.c
FUZZ_LIBS    := $(FEATURE_LIBS) -lcjson -lnettle -ldl -lm -fopenmp

# libFuzzer builds (clang): objects under build/fuzz/obj/
$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FEATURE_DEFS) -c $< -o $@
define fuzz_target
$(BUILD)/fuzz/fuzz_$(1): $(BUILD)/fuzz/obj/fuzz/fuzz_$(1).o $(fuzz_srcs_$(1):%.c=$(BUILD)/fuzz/obj/%.o) $(fuzz_objs_$(1))
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) $$^ -o $$@ $(FUZZ_LIBS) $(fuzz_libs_$(1))
$(BUILD)/fuzz/replay_$(1): $(OBJ)/fuzz/fuzz_$(1).o $(OBJ)/fuzz/replay.o $(fuzz_srcs_$(1):%.c=$(OBJ)/%.o) $(fuzz_objs_$(1))
	@mkdir -p $$(@D)
	$(CC) $$^ -o $$@ $(LDLIBS) -lnettle $(fuzz_libs_$(1))
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_target,$(t))))
$(OBJ)/fuzz/%.o: INC += -Imodels -Icollectives -Iscaling/sim

.PHONY: fuzz check-fuzz
fuzz:
	@command -v $(FUZZ_CC) >/dev/null || { echo "fuzz: $(FUZZ_CC) is missing (apt-get install clang)"; exit 2; }
	@$(MAKE) --no-print-directory $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)
	@fail=0; for t in $(FUZZ_TARGETS); do mkdir -p $(BUILD)/fuzz/$$t; \
	  echo "== fuzz_$$t for $(SECONDS) s (seeds fuzz/seeds/$$t, corpus $(BUILD)/fuzz/$$t)"; \
	  $(BUILD)/fuzz/fuzz_$$t -max_total_time=$(SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -artifact_prefix=$(BUILD)/fuzz/crash-$$t- -print_final_stats=1 \
	    $(BUILD)/fuzz/$$t fuzz/seeds/$$t 2>&1 | tee $(BUILD)/fuzz/$$t.log | grep -E '^(#[0-9]+ +DONE|Done [0-9]+ runs|stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)|==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)' \
	    || true; \
	  grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9/]*[a-zA-Z]*' $(BUILD)/fuzz/$$t.log | tail -n 1 | sed 's/^/coverage (edges, features, corpus): /'; \
	  ls $(BUILD)/fuzz/crash-$$t-* >/dev/null 2>&1 && { echo "fuzz_$$t: CRASH (inputs in $(BUILD)/fuzz/crash-$$t-*)"; fail=1; }; \
	done; [ $$fail = 0 ] && echo "fuzz: no crash, hang or leak" || exit 1

EXTRA_CHECKS += check-fuzz
check-fuzz: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/replay_%)
	@fail=0; for t in $(FUZZ_TARGETS); do \
	  files=$$(find fuzz/seeds/$$t fuzz/regress/$$t -type f 2>/dev/null); \
	  printf '== fuzz/%s: ' $$t; $(BUILD)/fuzz/replay_$$t $$files || fail=1; done; [ $$fail = 0 ]
