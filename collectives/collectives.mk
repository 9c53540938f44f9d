# collectives.mk — the allreduce library, `allreduce-bench` and the MPI correctness
# matrix.  Included by the top-level Makefile (after OBJ, BIN, ALL_CFLAGS, COMMON_OBJ,
# LDLIBS, PROGRAMS, EXTRA_CHECKS are defined).
#
# Everything here is compiled with $(MPICC) (the common objects are plain gcc objects
# and link fine).  bench_*.c is the driver; every other collectives/*.c is the library,
# so a new algorithm is one file here plus one row in collectives/allreduce.c.
#   MPICC=mpicc    the MPI compiler wrapper (scaling/sim/sim.mk builds with smpicc)
#   MPIRUN=mpirun  the launcher `make check-mpi` uses

MPICC  ?= mpicc
MPIRUN ?= mpirun
HAVE_MPICC := $(shell command -v $(MPICC) >/dev/null 2>&1 && echo 1)

COLL_SRC       := $(wildcard collectives/*.c)
COLL_BENCH_SRC := $(wildcard collectives/bench_*.c)
# The library's objects (link them, with $(MPICC), into anything that allreduces).
COLL_LIB_OBJ   := $(patsubst %.c,$(OBJ)/%.o,$(filter-out $(COLL_BENCH_SRC),$(COLL_SRC)))
COLL_BENCH_OBJ := $(patsubst %.c,$(OBJ)/%.o,$(COLL_BENCH_SRC))
MPI_TEST_BIN   := $(BUILD)/test/mpi/test_allreduce

ifeq ($(HAVE_MPICC),1)
PROGRAMS += $(BIN)/allreduce-bench
else
PROGRAMS += allreduce-bench-skipped
endif
EXTRA_CHECKS += check-mpi

.PHONY: check-mpi allreduce-bench-skipped

allreduce-bench-skipped:
	@echo "allreduce-bench: skipped ($(MPICC) not found; make deps installs Open MPI)"

# The local reduction is plain loops that must vectorize (-O2 alone does not, gcc 12).
$(OBJ)/collectives/allreduce.o $(OBJ)/collectives/ar_reduce_avx2.o: \
	ALL_CFLAGS += -ftree-vectorize -fvect-cost-model=dynamic

$(OBJ)/collectives/%.o: collectives/%.c $(SAN_STAMP)
	@mkdir -p $(@D)
	$(MPICC) $(ALL_CFLAGS) -Icollectives -c $< -o $@

$(OBJ)/test/mpi/%.o: test/mpi/%.c $(SAN_STAMP)
	@mkdir -p $(@D)
	$(MPICC) $(ALL_CFLAGS) -Icollectives -c $< -o $@

$(BIN)/allreduce-bench: $(COLL_BENCH_OBJ) $(COLL_LIB_OBJ) $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(MPICC) $^ -o $@ $(LDLIBS)

$(MPI_TEST_BIN): $(OBJ)/test/mpi/test_allreduce.o $(COLL_LIB_OBJ) $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(MPICC) $^ -o $@ $(LDLIBS)

# The MPI correctness matrix (p = 1..9, 13, 16) and the CLI's bad-input cases.
ifeq ($(HAVE_MPICC),1)
check-mpi: $(BIN)/allreduce-bench $(MPI_TEST_BIN)
	@MPIRUN="$(MPIRUN)" sh test/mpi/run.sh $(MPI_TEST_BIN) $(BIN)/allreduce-bench
else
check-mpi:
	@echo "check-mpi: FAILED: $(MPICC) not found (make deps installs Open MPI)"; exit 1
endif
