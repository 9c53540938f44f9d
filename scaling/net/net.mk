# net.mk — build/bin/pingpong-bench, the point-to-point probe the real-network check
# calibrates with (scaling/net/netcheck.sh).  Included by the top-level Makefile after
# collectives/collectives.mk (MPICC, HAVE_MPICC).

ifeq ($(HAVE_MPICC),1)
PROGRAMS += $(BIN)/pingpong-bench
endif

$(OBJ)/scaling/net/%.o: scaling/net/%.c $(SAN_STAMP)
	@mkdir -p $(@D)
	$(MPICC) $(ALL_CFLAGS) -c $< -o $@

$(BIN)/pingpong-bench: $(OBJ)/scaling/net/pingpong.o $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(MPICC) $^ -o $@ $(LDLIBS)
