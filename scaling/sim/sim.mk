# sim.mk — the simulation builds and platforms: allreduce and rnn-train under SimGrid
# SMPI.  Included by the top-level Makefile after collectives/collectives.mk (OBJ, BIN,
# ALL_CFLAGS, COMMON_SRC, COMMON_OBJ, LDLIBS, PROGRAMS, EXTRA_CHECKS, COLL_SRC).
#
#   build/bin/allreduce-bench-smpi  the unchanged allreduce-bench and collectives/ built
#                                   with smpicc (SMPI privatizes globals, so common/ is
#                                   compiled again with it, into $(OBJ)/smpi/), without
#                                   OpenMP; in place of collectives/bench_native.c, the
#                                   SMPI side of collectives/bench_platform.h:
#                                   scaling/sim/smpi_hooks.c (gamma model, buffer folding,
#                                   hier's groups from host names, the ideal barrier) and
#                                   scaling/sim/smpi_fit.c (model parameters from the
#                                   platform properties; collectives/bench_fit.c measures
#                                   where a platform has none)
#   build/bin/rnn-train-smpi        rnn-train under SMPI (train_smpi.mk)
#   build/bin/platform-gen          SimGrid platform files and hostfiles (scaling/sim/platforms/)
#   make simulate                   the allreduce sweep: build/bin/study run simulate (QUICK=1:
#                                   minutes; FULL=1: every algorithm at every size and node
#                                   count, hours), then the scaling study's training step on
#                                   simulated TaihuLight nodes (study train-sim)
#   make check-smpi                 the SMPI tests (test/smpi/run.sh; part of make test)
# Variables: SMPICC=smpicc SMPIRUN=smpirun SIM_JOBS=N (simulations run at once, default: the cores)

SMPICC  ?= smpicc
SMPIRUN ?= smpirun
SIM_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
HAVE_SMPICC := $(shell command -v $(SMPICC) >/dev/null 2>&1 && command -v $(SMPIRUN) >/dev/null 2>&1 && echo 1)
SIMULATE_DEFINED := 1

SMPI_BENCH := $(BIN)/allreduce-bench-smpi
SMPI_FOLD  := $(BUILD)/lib/rs-smpi-fold.so
PLATFORM_GEN := $(BIN)/platform-gen

# Everything the real allreduce-bench links but its platform file, and the SMPI one.
SMPI_COLL_OBJ   := $(patsubst %.c,$(OBJ)/smpi/%.o,$(filter-out collectives/bench_native.c,$(COLL_SRC)))
SMPI_OWN_OBJ    := $(OBJ)/smpi/scaling/sim/smpi_hooks.o $(OBJ)/smpi/scaling/sim/smpi_fit.o \
                   $(OBJ)/smpi/scaling/sim/smpi_noomp.o $(OBJ)/smpi/scaling/sim/host_groups.o
SMPI_COMMON_OBJ := $(COMMON_SRC:%.c=$(OBJ)/smpi/%.o)
SMPI_COMMON_LIB := $(OBJ)/smpi/libcommon.a

# No OpenMP under SMPI (all ranks are threads of one process); common/bench.c's pragmas
# are then inert and, being in an archive, it is linked only if used (it is not).
SMPI_CFLAGS = $(filter-out -fopenmp $(SAN_FLAGS),$(ALL_CFLAGS)) -Wno-unknown-pragmas -Icollectives -Iscaling/sim \
              $(SMPI_DEFS)
SMPI_LDLIBS := -lcjson -ldl -lm

ifeq ($(HAVE_SMPICC),1)
include scaling/sim/train_smpi.mk
PROGRAMS += $(SMPI_BENCH) $(SMPI_FOLD) $(SMPI_TRAIN)
else
PROGRAMS += allreduce-bench-smpi-skipped
endif
PROGRAMS += $(PLATFORM_GEN)
EXTRA_CHECKS += check-smpi

.PHONY: check-smpi allreduce-bench-smpi-skipped

allreduce-bench-smpi-skipped:
	@echo "allreduce-bench-smpi: skipped ($(SMPICC) or $(SMPIRUN) not found; make deps installs libsimgrid-dev)"

# The flags collectives.mk gives the same files.
$(OBJ)/smpi/collectives/allreduce.o $(OBJ)/smpi/collectives/ar_reduce_avx2.o: \
	SMPI_DEFS += -ftree-vectorize -fvect-cost-model=dynamic
$(OBJ)/smpi/common/buildinfo.o: FORCE
$(OBJ)/smpi/common/buildinfo.o: SMPI_DEFS += -DRS_COMMIT='"$(shell git describe --always --dirty 2>/dev/null || echo unknown)"' \
	-DRS_CFLAGS='"$(OPT) $(CFLAGS) $(FEATURE_DEFS) (smpicc)"'

$(OBJ)/smpi/%.o: %.c
	@mkdir -p $(@D)
	$(SMPICC) $(SMPI_CFLAGS) -c $< -o $@

$(SMPI_COMMON_LIB): $(SMPI_COMMON_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(SMPI_BENCH): $(SMPI_COLL_OBJ) $(SMPI_OWN_OBJ) $(SMPI_COMMON_LIB)
	@mkdir -p $(@D)
	$(SMPICC) $(SMPI_COLL_OBJ) $(SMPI_OWN_OBJ) $(SMPI_COMMON_LIB) -o $@ $(SMPI_LDLIBS)

# Preloaded into smpirun for folded runs (scaling/sim/smpi_fold.c): plain C, no SMPI.
$(SMPI_FOLD): scaling/sim/smpi_fold.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -fPIC -shared $(WARN) $< -o $@ -ldl

$(PLATFORM_GEN): $(OBJ)/scaling/sim/platforms/platform_gen.o $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(LDLIBS)


# ---- the SMPI tests: p = 64 on two groups, every algorithm checked, two runs equal ----
ifeq ($(HAVE_SMPICC),1)
check-smpi: $(SMPI_BENCH) $(SMPI_FOLD) $(PLATFORM_GEN) $(SMPI_TRAIN) $(BIN)/rnn-train $(BIN)/study
	@SMPIRUN="$(SMPIRUN)" sh test/smpi/run.sh $(SMPI_BENCH) $(PLATFORM_GEN)
else
check-smpi:
	@echo "check-smpi: FAILED: $(SMPICC)/$(SMPIRUN) not found (make deps installs libsimgrid-dev)"; exit 1
endif

# ---- the sweep: every point, or QUICK=1 for a few minutes --------------------------
SIM_OUT ?=
simulate: export RUN := $(or $(SIM_OUT),$(RUN))
simulate: export SIM_JOBS := $(SIM_JOBS)
simulate: export SMPIRUN := $(SMPIRUN)
simulate: deps
	@$(MAKE) $(PAR) --no-print-directory $(SMPI_BENCH) $(SMPI_FOLD) $(PLATFORM_GEN) $(BIN)/study
	@exec $(BIN)/study run simulate
