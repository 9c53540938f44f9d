# models.mk — rnn-train (RNN language-model training) and its tests.  Included by the
# top-level Makefile after OBJ, BIN, ALL_CFLAGS, COMMON_OBJ, KERNELS_OBJ, LDLIBS,
# PROGRAMS and EXTRA_CHECKS are defined.
#
# Every models/*.c but main.c is the library (MODELS_OBJ), so a new cell or optimizer
# is one file here; *_avx2.c files get the AVX2 flags from the top-level pattern rule
# and are called only after a CPUID check.  The tests (test/test_models_*.c) link the
# library objects and test/models_support.c too, and rnn-train-smpi the same sources
# built with smpicc under its own main, which sets the trainer's hooks first
# (train_hooks.h, scaling/sim/train_smpi.mk).  The default corpus is fetched by
# models/fetch_corpus.sh (`make deps` calls it; `make corpus` alone), which also
# fetches the State of the Union addresses (models/fetch_sotu.sh, --corpus sotu) and
# writes the King James Bible (models/fetch_kjv.sh, --corpus kjv) where Debian's
# bible-kjv is installed, then the big corpus (models/fetch_big.sh, --corpus big: two
# dictionaries, WordNet and those three) from their Debian .debs.
#
# The trainer and its tests link the kernel library (KERNELS_OBJ, kernels/: the GEMM
# backends, softmax, the FMA peak), never a microbench driver.
#
# Data-parallel training (--workers under mpirun) reaches MPI through dp_comm.c alone:
# it is compiled with $(MPICC) against collectives/, and rnn-train and the tests link
# the allreduce library and the MPI libraries (MPI is started only under a launcher).

MODELS_SRC := $(filter-out models/main.c,$(wildcard models/*.c))
MODELS_OBJ := $(MODELS_SRC:%.c=$(OBJ)/%.o)

# models/ headers are seen by the models objects and their tests only.
MODELS_TESTS := $(patsubst test/%.c,$(BUILD)/test/%,$(wildcard test/test_models_*.c))
$(OBJ)/models/%.o $(OBJ)/test/test_models_%.o $(OBJ)/test/models_support.o: INC += -Imodels
PROGRAMS += $(BIN)/rnn-train
MPI_LINK := $(shell $(MPICC) --showme:link 2>/dev/null)
MODELS_LIBS := -lnettle   # SHA-256 (models/sha256.h)

$(OBJ)/models/dp_comm.o: models/dp_comm.c $(SAN_STAMP)
	@mkdir -p $(@D)
	$(MPICC) $(ALL_CFLAGS) -Imodels -Icollectives -c $< -o $@

$(BIN)/rnn-train: $(OBJ)/models/main.o $(MODELS_OBJ) $(COLL_LIB_OBJ) $(KERNELS_OBJ) $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(LDLIBS) $(MODELS_LIBS) $(MPI_LINK)

# The Criterion tests link the models library; they also run build/bin/rnn-train.
$(MODELS_TESTS): $(OBJ)/test/models_support.o $(MODELS_OBJ) $(COLL_LIB_OBJ) | $(BIN)/rnn-train
$(MODELS_TESTS): LDLIBS += $(MODELS_LIBS) $(MPI_LINK)

.PHONY: corpus
corpus:
	@sh models/fetch_corpus.sh $(BUILD)

# Data-parallel rnn-train under mpirun: equivalence, resume at another P, the checksum,
# bad input (test/mpi/train.sh).
EXTRA_CHECKS += check-mpi-train
.PHONY: check-mpi-train
check-mpi-train: $(BIN)/rnn-train $(BIN)/study
	@MPIRUN="$(MPIRUN)" sh test/mpi/train.sh $(BIN)/rnn-train
