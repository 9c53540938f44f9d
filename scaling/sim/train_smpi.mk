# train_smpi.mk — build/bin/rnn-train-smpi: rnn-train's sources (models/, all but
# main.c) built with smpicc as allreduce-bench-smpi is (objects under $(OBJ)/smpi/, no
# OpenMP), the same objects rnn-train links, with scaling/sim/train_smpi.c's main, which
# sets the trainer's hooks for SMPI (models/train_hooks.h) before rnn-train's command
# line runs, bucketed's overlap (scaling/sim/dp_buckets_smpi.c) and scaling/sim/smpi_hooks.c's
# start-up.  The kernel library (kernels/: GEMM backends, softmax kernels, the FMA
# peak) comes from an archive, so only what is called is linked.  Included by
# scaling/sim/sim.mk when smpicc is found.  study train-sim runs it;
# test/smpi/run.sh tests it (make check-smpi).

SMPI_TRAIN     := $(BIN)/rnn-train-smpi
SMPI_TRAIN_OBJ := $(patsubst %.c,$(OBJ)/smpi/%.o,$(MODELS_SRC) scaling/sim/train_smpi.c \
                    scaling/sim/dp_buckets_smpi.c scaling/sim/smpi_hooks.c scaling/sim/host_groups.c \
                    scaling/sim/smpi_noomp.c)
SMPI_COLL_LIB_OBJ := $(patsubst $(OBJ)/%,$(OBJ)/smpi/%,$(COLL_LIB_OBJ))
SMPI_KERNELS_LIB := $(OBJ)/smpi/libkernels.a

$(OBJ)/smpi/models/%.o $(OBJ)/smpi/scaling/sim/train_smpi.o $(OBJ)/smpi/scaling/sim/dp_buckets_smpi.o: \
    SMPI_DEFS += -Imodels
# as the top-level Makefile gives the same file
$(OBJ)/smpi/kernels/exp/exp_poly_w16_avx2.o: WARN += -Wno-psabi

$(SMPI_KERNELS_LIB): $(KERNELS_SRC:%.c=$(OBJ)/smpi/%.o)
	@rm -f $@
	ar rcs $@ $^

$(SMPI_TRAIN): $(SMPI_TRAIN_OBJ) $(SMPI_COLL_LIB_OBJ) $(SMPI_KERNELS_LIB) $(SMPI_COMMON_LIB)
	@mkdir -p $(@D)
	$(SMPICC) $^ -o $@ $(FEATURE_LIBS) $(MODELS_LIBS) $(SMPI_LDLIBS)
