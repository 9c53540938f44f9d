# rnnscale — the one build entry.  `make help` lists every target and variable.
#
# Code is compiled once, without -march=native: files named *_avx512.c and *_avx2.c
# get those ISA flags and are called only after a CPUID check (common/cpu.c).
# Optional libraries are probed with pkg-config or a test link and announced.

ifeq ($(origin CC),default)
CC = gcc
endif
OPT     ?= -O2
WERROR  ?=
# The settings a user gives (command line or environment) are text: each is made a
# simple variable holding its value as written, so make never expands a `$(...)` in it
# (a path with `$` stays that path; no $(shell ...) of a value ever runs).
USER_VARS := RUN SIM_OUT QUICK FULL JOBS THREADS SIM_JOBS COUNTERS SIM_PARTS SMPIRUN
$(foreach v,$(USER_VARS),$(if $(filter command line environment environment override,$(origin $(v))),\
  $(eval override $(v) := $$(value $(v)))$(eval export $(v))))
QUICK   ?=
# QUICK=1 is the quick preset; 0 or empty is off (checked here, before anything runs)
ifneq ($(filter-out 0 1,$(QUICK)),)
$(error QUICK=$(QUICK): expected 1 (quick) or 0 (off))
endif
override QUICK := $(filter 1,$(QUICK))
export QUICK
strip_digits = $(subst 9,,$(subst 8,,$(subst 7,,$(subst 6,,$(subst 5,,$(subst 4,,$(subst 3,,$(subst 2,,$(subst 1,,$(subst 0,,$(1)))))))))))
# non-empty when $(1) is one whole number > 0 (checked by make: no shell reads it)
count_ok = $(and $(filter-out 0%,$(1)),$(if $(word 2,$(1)),,x),$(if $(call strip_digits,$(1)),,x))
ifneq ($(filter-out likwid,$(COUNTERS)),)
$(error COUNTERS=$(COUNTERS): expected likwid, or nothing)
endif
$(foreach v,THREADS JOBS SIM_JOBS,$(if $($(v)),$(if $(call count_ok,$($(v))),,$(error $(v)=$($(v)): expected a whole number > 0, e.g. $(v)=2))))
# Builds use every core: a recipe's own $(MAKE) gets -jN unless make was given -j
NPROC   := $(shell nproc 2>/dev/null || echo 1)
PAR      = $(if $(filter -j% --jobserver%,$(MAKEFLAGS)),,-j$(NPROC))
RUN     ?=
JOBS    ?=
THREADS ?=
COUNTERS ?=

BUILD := build
OBJ   := $(BUILD)/obj
BIN   := $(BUILD)/bin

# ---- optional features (probed at parse time; `make deps` runs first) ------------
have_pc   = $(shell pkg-config --exists $(1) 2>/dev/null && echo 1)
have_link = $(shell printf 'int main(void){return 0;}\n' | $(CC) -x c - $(1) -o /dev/null 2>/dev/null && echo 1)
HAVE_SLEEF     := $(call have_pc,sleef)
HAVE_PAPI      := $(call have_pc,papi)
HAVE_CRITERION := $(call have_pc,criterion)
HAVE_LIBMVEC   := $(call have_link,-lmvec)
HAVE_LIKWID    := $(shell test -f /usr/include/likwid-marker.h && echo 1)$(if $(call have_link,-llikwid),,0)

FEATURE_DEFS := $(if $(HAVE_SLEEF),-DHAVE_SLEEF) $(if $(HAVE_PAPI),-DHAVE_PAPI) \
                $(if $(HAVE_LIBMVEC),-DHAVE_LIBMVEC) $(if $(filter 1,$(HAVE_LIKWID)),-DHAVE_LIKWID)
FEATURE_LIBS := $(if $(HAVE_SLEEF),-lsleef) $(if $(HAVE_PAPI),-lpapi) \
                $(if $(HAVE_LIBMVEC),-lmvec) $(if $(filter 1,$(HAVE_LIKWID)),-llikwid)

# ---- flags ------------------------------------------------------------------------
WARN    := -Wall -Wextra -Wno-unused-parameter $(if $(WERROR),-Werror)
# The kernel library's headers are seen by everything; the microbench drivers' own by
# microbench/ and the tests of its studies (below), so no trainer code can include them.
INC     := -Icommon -Ikernels/exp -Ikernels/peak -Ikernels/softmax -Ikernels/gemm
CFLAGS  ?=
ALL_CFLAGS = -std=gnu11 -g $(OPT) -fopenmp -MMD -MP $(WARN) $(INC) $(FEATURE_DEFS) $(CFLAGS) $(ISAFLAGS) $(KFLAGS)
LDLIBS  := $(FEATURE_LIBS) -lcjson -ldl -lm -fopenmp
# make test SAN=1: everything native built with AddressSanitizer and UBSan (the SMPI
# builds stay plain: SimGrid switches stacks under the sanitizer's feet).  A change of
# SAN rebuilds every object (the stamp below).
SAN_FLAGS := $(if $(SAN),-fsanitize=address -fsanitize=undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
ALL_CFLAGS += $(SAN_FLAGS)
LDLIBS  += $(SAN_FLAGS)
SAN_STAMP := $(BUILD)/.san-$(if $(SAN),on,off)
# The runtime options of everything make test runs: any finding stops the program with
# its stack; LeakSanitizer is on but in the Criterion binaries (its tracer crashes in
# their threaded workers) and under mpirun (test/mpi/env.sh says why).
ifneq ($(SAN),)
export ASAN_OPTIONS  := detect_leaks=1:halt_on_error=1:abort_on_error=0:print_summary=1
export UBSAN_OPTIONS := print_stacktrace=1:halt_on_error=1
CRITERION_ENV := ASAN_OPTIONS=$(ASAN_OPTIONS):detect_leaks=0
endif
$(SAN_STAMP):
	@mkdir -p $(@D); rm -f $(BUILD)/.san-*; touch $@

$(OBJ)/%_avx512.o: ISAFLAGS = -mavx512f -mavx512dq -mavx512bw -mavx512vl -mavx2 -mfma
$(OBJ)/%_avx2.o:   ISAFLAGS = -mavx2 -mfma
# 16-lane generic vectors built for AVX2 (the AVX-512 arithmetic checked on AVX2 CPUs):
# GCC notes an ABI change for 64-byte vector arguments that never cross a library edge.
$(OBJ)/kernels/exp/exp_poly_w16_avx2.o: WARN += -Wno-psabi
# Hot loops on 64-byte boundaries, so a softmax timing follows the code, not where an
# unrelated edit happened to place its loops.
$(OBJ)/kernels/softmax/softmax_%.o: KFLAGS = -falign-loops=64

# ---- sources: a new file in these folders needs no edit here ----------------------
# kernels/: every kernel with its registry, reference and check (the library that
# microbench, rnn-train and the tests link); microbench/: the study drivers alone.
COMMON_SRC  := $(wildcard common/*.c)
KERNELS_SRC := $(wildcard kernels/exp/*.c kernels/peak/*.c kernels/softmax/*.c kernels/gemm/*.c)
MB_SRC      := $(wildcard microbench/exp/*.c microbench/peak/*.c microbench/softmax/*.c microbench/gemm/*.c)
TEST_SRC    := $(wildcard test/test_*.c)

COMMON_OBJ  := $(COMMON_SRC:%.c=$(OBJ)/%.o)
KERNELS_OBJ := $(KERNELS_SRC:%.c=$(OBJ)/%.o)
MB_OBJ      := $(MB_SRC:%.c=$(OBJ)/%.o)   # every microbench driver object but main.o
MB_INC      := -Imicrobench/peak -Imicrobench/gemm
$(OBJ)/microbench/%.o: INC += $(MB_INC)
TESTS       := $(TEST_SRC:test/%.c=$(BUILD)/test/%)
PROGRAMS    := $(BIN)/microbench
# Areas with their own programs (MPI) add to these in their own make fragment.
EXTRA_CHECKS :=

-include collectives/collectives.mk
-include models/models.mk
-include scaling/net/net.mk
-include scaling/sim/sim.mk
-include scaling/study/study.mk
-include fuzz/fuzz.mk

# libxsmm: Debian ships only static archives (position-independent); the gemm backend
# dlopens build/lib/libxsmmext.so.1, made here from them when they are installed.
LIBXSMM_A := $(wildcard /usr/lib/libxsmmext.a)
ifneq ($(LIBXSMM_A),)
PROGRAMS += $(BUILD)/lib/libxsmmext.so.1
$(BUILD)/lib/libxsmmext.so.1: $(LIBXSMM_A)
	@mkdir -p $(@D)
	$(CC) -shared -fopenmp -o $@ -Wl,--whole-archive /usr/lib/libxsmmext.a /usr/lib/libxsmm.a \
	  /usr/lib/libxsmmnoblas.a -Wl,--no-whole-archive -lpthread -lm -ldl -lrt
endif


.PHONY: all deps peers check-peers check-report check-faults check-load check-signals check-likwid check-net check-slurm test check bench figures simulate scaling help clean features FORCE
.DEFAULT_GOAL := all

all: features $(PROGRAMS)

features:
	@echo "features: sleef=$(if $(HAVE_SLEEF),yes,no) libmvec=$(if $(HAVE_LIBMVEC),yes,no)" \
	  "papi=$(if $(HAVE_PAPI),yes,no) likwid=$(if $(filter 1,$(HAVE_LIKWID)),yes,no)" \
	  "criterion=$(if $(HAVE_CRITERION),yes,no)"

$(OBJ)/%.o: %.c $(SAN_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# Build facts recorded in machine.json: rebuilt every time so the commit is current.
$(OBJ)/common/buildinfo.o: FORCE
$(OBJ)/common/buildinfo.o: ALL_CFLAGS += -DRS_COMMIT='"$(shell git describe --always --dirty 2>/dev/null || echo unknown)"' \
	-DRS_CFLAGS='"$(OPT) $(CFLAGS) $(FEATURE_DEFS)"'

$(BIN)/microbench: $(OBJ)/microbench/main.o $(MB_OBJ) $(KERNELS_OBJ) $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(LDLIBS)

# A test links the kernels and the harness; the tests of a study's own code (the peak
# run and machine.json, the GEMM shapes and report) add the drivers.
$(BUILD)/test/%: $(OBJ)/test/%.o $(OBJ)/test/cli_support.o $(KERNELS_OBJ) $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(LDLIBS) -lcriterion
$(BUILD)/test/test_peak $(BUILD)/test/test_gemm: $(MB_OBJ)
$(OBJ)/test/test_peak.o $(OBJ)/test/test_gemm.o: INC += $(MB_INC)

# ---- set-up -------------------------------------------------------------------------
DEB_PKGS := gcc make pkg-config openmpi-bin libopenmpi-dev libopenblas-dev libblis-dev \
            libsleef-dev libpapi-dev papi-tools likwid libcriterion-dev gnuplot-nox \
            libsimgrid-dev libxsmm-dev libdnnl-dev bible-kjv nettle-dev libcjson-dev parallel \
            slurmctld slurmd slurm-client munge
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

deps:
	@missing=$$(for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing" $$missing; mkdir -p $(BUILD); \
	  ( $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
	    --no-install-recommends $$missing ) > $(BUILD)/deps.log 2>&1 \
	  || { echo "deps: apt-get failed; see $(BUILD)/deps.log"; exit 1; }; \
	  echo "deps: done"; fi
	@# npm fetches the corpus; the machine's own Node.js is kept if it has one.
	@command -v npm >/dev/null 2>&1 || { echo "deps: installing npm"; mkdir -p $(BUILD); \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends npm \
	  > $(BUILD)/deps-npm.log 2>&1 || { echo "deps: apt-get install npm failed; see $(BUILD)/deps-npm.log"; exit 1; }; }
	@sh models/fetch_corpus.sh $(BUILD)

# The peers `make bench` compares against, outside `make deps` so CI stays lean:
# PyTorch (Debian's python3-torch, run with /usr/bin/python3; models/peer_torch.py).
PEER_PKGS := python3-torch

peers:
	@missing=$$(for p in $(PEER_PKGS); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "peers: installing" $$missing; mkdir -p $(BUILD); \
	  ( $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
	    --no-install-recommends $$missing ) > $(BUILD)/peers.log 2>&1 \
	  || { echo "peers: apt-get failed; see $(BUILD)/peers.log"; exit 1; }; \
	  echo "peers: done"; fi
	@/usr/bin/python3 -c 'import torch; print("peers: PyTorch", torch.__version__, "(/usr/bin/python3)")' \
	  || { echo "peers: /usr/bin/python3 cannot import torch; see $(BUILD)/peers.log"; exit 1; }

# `make test` checks the peer script where PyTorch is installed and says it skipped it
# where not (CI: `make test` never installs it).
EXTRA_CHECKS += check-peers
check-peers: $(BIN)/study
	@echo "== test/peers/run.sh models/peer_torch.py"
	@sh test/peers/run.sh models/peer_torch.py

# A full disk under a checkpoint and a result; a rank killed under mpirun.
EXTRA_CHECKS += check-faults
check-faults: $(BIN)/rnn-train $(BIN)/allreduce-bench $(BIN)/study
	@echo "== test/faults/run.sh $(BIN)"
	@MPIRUN="$(MPIRUN)" sh test/faults/run.sh $(BIN)

# The 2-thread trainer (class softmax included) beside a busy process: no step over 5x
# the median, no library team nested in or beside the trainer's threads.
EXTRA_CHECKS += check-load
check-load: $(BIN)/rnn-train $(BIN)/microbench $(BIN)/study
	@echo "== test/load/run.sh $(BIN)"
	@sh test/load/run.sh $(BIN)

# SIGTERM/SIGINT in every phase of rnn-train (alone and under mpirun); OpenBLAS under ulimit -v.
EXTRA_CHECKS += check-signals
check-signals: $(BIN)/rnn-train
	@echo "== test/signals/run.sh $(BIN)"
	@MPIRUN="$(MPIRUN)" sh test/signals/run.sh $(BIN)

# scaling/bench/ab.py: bad usage, and HEAD against the working tree on platform-gen.
EXTRA_CHECKS += check-ab
check-ab:
	@echo "== test/ab/run.sh scaling/bench/ab.py"
	@sh test/ab/run.sh

# scaling/net/netcluster.sh: network namespaces on a bridge, shaped links, mpirun across them
# (skips with a line where the machine forbids namespaces).
EXTRA_CHECKS += check-net
check-net: $(BIN)/study $(BIN)/allreduce-bench $(BIN)/pingpong-bench $(BIN)/rnn-train
	@echo "== test/net/run.sh scaling/net/netcluster.sh"
	@sh test/net/run.sh

# scaling/slurm/slurmlocal.sh: munged, slurmctld and slurmd on this machine; a study's points
# as a job array, scancel and resubmission, a time limit (skips with a line where a daemon
# refuses or the packages are missing).
EXTRA_CHECKS += check-slurm
check-slurm: $(BIN)/study $(BIN)/rnn-train
	@echo "== test/slurm/run.sh scaling/slurm/slurmlocal.sh"
	@sh test/slurm/run.sh

# The report's target lines and the verdicts on the two studies' claims on hand-made run folders.
EXTRA_CHECKS += check-report
check-report: $(BIN)/study
	@echo "== test/report/run.sh $(BIN)/study report"
	@sh test/report/run.sh $(BIN)

# make bench COUNTERS=likwid's probe and fallback, with stand-in likwid-perfctr programs.
EXTRA_CHECKS += check-likwid
check-likwid: $(BIN)/study
	@echo "== test/likwid/run.sh scaling/bench/likwid.sh"
	@sh test/likwid/run.sh

# ---- tests: warnings are errors; Criterion prints a synthesis line per binary -------
test: deps
	@$(MAKE) $(PAR) --no-print-directory WERROR=1 check

# Verbose, less the RUN/PASS lines: skipped tests are listed by name with the reason
# (an ISA this CPU lacks, a library not installed), failures with their assertions.
check: all $(TESTS)
	@fail=0; for t in $(TESTS); do echo "== $$t"; out=$$($(CRITERION_ENV) $$t --jobs 1 --verbose 2>&1) || fail=1; \
	  printf '%s\n' "$$out" | grep -v -E '^\[(RUN |PASS)\]|^\[====\] Running'; done; \
	for c in $(EXTRA_CHECKS); do $(MAKE) --no-print-directory $$c || fail=1; done; \
	if [ $$fail = 0 ]; then echo "make test: all tests passed"; else echo "make test: FAILED"; exit 1; fi

# ---- the campaign -------------------------------------------------------------------
# the settings reach bench.sh by the environment, never as recipe text; its folder is
# always a new one
ifneq ($(and $(filter bench,$(MAKECMDGOALS)),$(RUN)),)
$(error RUN=$(RUN): make bench makes a new run folder each time; RUN is for make scaling, simulate and figures)
endif
bench: export THREADS := $(THREADS)
bench: export COUNTERS := $(COUNTERS)
bench: deps
	@$(MAKE) $(PAR) --no-print-directory all
	@exec sh scaling/bench/bench.sh

figures: export RUN := $(RUN)
figures: $(BIN)/study
	@exec $(BIN)/study figures $(if $(RUN),"$$RUN")

ifeq ($(SIMULATE_DEFINED),)
simulate:
	@echo "make simulate: scaling/sim/sim.mk is missing (it defines the SimGrid SMPI sweep)"; exit 2
endif

ifeq ($(SCALING_DEFINED),)
scaling:
	@echo "make scaling: scaling/study/study.mk is missing (it defines the studies)"; exit 2
endif

help:
	@echo "rnnscale targets:"
	@echo "  make deps       install missing Debian packages (apt-get; idempotent)"
	@echo "  make peers      install the peers make bench compares against (python3-torch)"
	@echo "  make            build everything into $(BUILD)/ (announces optional features)"
	@echo "  make test       deps + build (warnings as errors) + every test"
	@echo "  make check      every test, without deps (check-mpi, check-smpi, check-peers: one part)"
	@echo "  make corpus     fetch the corpora into $(BUILD)/data/ (make deps does it too)"
	@echo "  make bench      deps + build + the campaign into a new results/runs/<stamp>-<host>/"
	@echo "                  (COUNTERS=likwid: the microbench studies under likwid-perfctr -m)"
	@echo "  make figures    redraw figures of RUN=results/runs/... (default: newest run)"
	@echo "  make simulate   allreduce at 2..1024 simulated nodes under SimGrid SMPI"
	@echo "                  (QUICK=1: a few points; FULL=1: every algorithm everywhere; SIM_JOBS=N)"
	@echo "  make scaling    steps-to-target against the global batch into a new results/runs/<stamp>-<host>/"
	@echo "                  (QUICK=1: a coarse grid, ~10 min; RUN=DIR resumes a run; JOBS=K points at once)"
	@echo "  make fuzz       fuzz the readers of user input for SECONDS=60 each (libFuzzer, clang)"
	@echo "  make clean      remove $(BUILD)/"
	@echo "variables: CC=$(CC) OPT=$(OPT) CFLAGS= WERROR=1 QUICK=1 THREADS=N RUN=DIR JOBS=K"

clean:
	rm -rf $(BUILD)

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)
