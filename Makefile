# SPDX-License-Identifier: MIT
# gcsim: one Makefile for the simulator, the hw harness, tests, benchmarks.
#
#   make            build everything this machine allows (CUDA=auto, RDMA=auto,
#                   MPI=auto: gcsim sweep across the ranks of mpirun)
#   make run        install missing packages, build, run the default scenario
#   make test       install missing packages, build, run the whole suite (prove)
#   make asan       the suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make bench      benchmarks (engine hold model, 1024/4096-GPU ring allreduce)
#   make bench-peers  gcsim next to SimGrid's SMPI (ring allreduce, 64-1024 ranks)
#   make fuzz       build the libFuzzer harness for the scenario loader (clang)
#   make fuzz-cli   random command lines against the sanitizer build (RUNS, SEED)
#   make validate   predict every published set in validate/published that has a
#                   script, write docs/VALIDATION.md and its plots
#   make install    install gcsim, its man page, bash completion and the scenarios
#                   under PREFIX (default /usr/local), staged under DESTDIR if set
#   make uninstall  remove what make install installed (same PREFIX and DESTDIR)
#   make clean

BUILD    ?= build
CC       ?= cc
NVCC     ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA     ?= auto
RDMA     ?= auto
MPI      ?= auto
SCENARIO ?= scenarios/dgx-h100-allreduce.yaml

PKGS     := glib-2.0 yaml-0.1 sqlite3
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# A build on a machine without the packages stops here with what to do,
# not with a compiler's "glib.h: No such file". The goals that install them
# first (run, test, bench, validate, validate-*) and clean are let through.
NODEPS_GOALS := deps clean uninstall run test asan bench bench-peers validate validate-p5 validate-b200 validate-deepep validate-h100 validate-ref validate-moe
ifeq ($(filter $(NODEPS_GOALS),$(MAKECMDGOALS)),)
  ifneq ($(shell pkg-config --exists $(PKGS) 2>/dev/null && echo ok),ok)
    $(error gcsim needs pkg-config and the development packages of $(PKGS); 'make deps' installs them (as root) or prints the apt-get command)
  endif
endif

# Link-time optimization lets the engine, the flow network and the schedule
# executor inline across files (a few percent on the large benchmarks).
OPT      ?= -O2 -flto=auto
AR       := gcc-ar
CFLAGS_W := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Wstrict-prototypes -Wmissing-prototypes
CFLAGS   += -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) -g $(CFLAGS_W) -I. $(PKG_CFLAGS) $(SAN)
LDLIBS   += $(PKG_LIBS) -lm -lpthread

# ---- optional back-ends -------------------------------------------------
ifeq ($(CUDA),auto)
  CUDA := $(if $(NVCC),1,0)
endif
ifeq ($(RDMA),auto)
  RDMA := $(if $(wildcard /usr/include/infiniband/verbs.h),1,0)
endif
ifeq ($(MPI),auto)
  MPI := $(shell pkg-config --exists ompi-c 2>/dev/null && echo 1 || echo 0)
endif
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))

# ---- sources ---------------------------------------------------------------
LIB_SRCS  := $(wildcard sim/core/*.c sim/sched/*.c sim/*.c sim/models/*/*.c sim/topologies/*.c validate/*.c hw/*.c)
CLI_SRCS  := $(wildcard cli/*.c)
TEST_SRCS := $(wildcard tests/*/test_*.c)
BENCH_SRCS := $(wildcard bench/bench_*.c)
CU_SRCS   := $(wildcard hw/kernels/*.cu)

LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_OBJS  := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRCS))
CU_OBJS   :=
ifeq ($(CUDA),1)
  CU_OBJS := $(CU_SRCS:%.cu=$(BUILD)/obj/%.o)
  CFLAGS  += -DGC_HAVE_CUDA=1 -I$(CUDA_HOME)/include
  LDLIBS  += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++
endif
ifeq ($(RDMA),1)
  CFLAGS  += -DGC_HAVE_RDMA=1
  LDLIBS  += -libverbs
endif
# Open MPI (Debian's libopenmpi-dev) for the gcsim binary only: its sweep
# hands cells to the ranks of mpirun (cli/sweep_mpi.c)
MPI_CFLAGS :=
MPI_LIBS   :=
ifeq ($(MPI),1)
  MPI_CFLAGS := -DGCSIM_MPI=1 $(shell pkg-config --cflags ompi-c)
  MPI_LIBS   := $(shell pkg-config --libs ompi-c)
endif
NVCCFLAGS ?= -O2 -std=c++17 -I. -arch=sm_90 -Xcompiler -Wall,-Wextra,-Werror

LIB := $(BUILD)/libgcsim.a
BIN := $(BUILD)/gcsim
# the manual page and the bash completion, made from the binary's help texts
MAN := $(BUILD)/gcsim.1
COMPLETION := $(BUILD)/gcsim.bash
# the CUDA sources built for the CPU emulation of CUDA (tests/hw/emu)
EMU_OBJS := $(patsubst tests/hw/emu/%.cc,$(BUILD)/obj/tests/hw/emu/%.o,$(wildcard tests/hw/emu/*.cc))
EMU_BIN  := $(BUILD)/tests/hw/gcsim-emu

.PHONY: all run test asan bench bench-peers fuzz fuzz-cli deps clean install uninstall validate validate-p5 validate-b200 validate-deepep validate-h100 validate-ref validate-moe
all: $(BIN) $(MAN) $(COMPLETION) $(TEST_BINS) $(BENCH_BINS) $(EMU_BIN)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJS) $(CU_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/obj/cli/sweep_mpi.o: CFLAGS += $(MPI_CFLAGS)
# a change of MPI=0/1 rebuilds the one file it changes
$(BUILD)/obj/cli/sweep_mpi.o: $(BUILD)/mpi-$(MPI)

$(BUILD)/mpi-$(MPI):
	@mkdir -p $(dir $@) && rm -f $(BUILD)/mpi-* && touch $@

$(BIN): $(CLI_OBJS) $(LIB)
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJS) $(LIB) $(LDLIBS) $(MPI_LIBS)

$(MAN): $(BIN) scripts/manpage.sh
	sh scripts/manpage.sh $(BIN) >$@.tmp && mv $@.tmp $@

$(COMPLETION): $(BIN) scripts/completion.sh
	sh scripts/completion.sh $(BIN) >$@.tmp && mv $@.tmp $@

$(BUILD)/tests/%: tests/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(LIB) $(LDLIBS)

# The CUDA sources (host code and kernels) under the CPU emulation of CUDA
# in tests/hw/emu, whatever CUDA is: built with the C++ compiler into their
# own test (every schedule of the device check through the interpreter) and
# into gcsim-emu, the whole command line on an emulated GPU, for
# tests/hw/hw_emu.t.
EMU_CXXFLAGS = -std=c++17 $(OPT) -g $(filter-out -Wstrict-prototypes -Wmissing-prototypes,$(CFLAGS_W)) \
	-I. -Itests/hw/emu $(SAN)

$(BUILD)/obj/tests/hw/emu/%.o: tests/hw/emu/%.cc
	@mkdir -p $(dir $@)
	$(CXX) $(EMU_CXXFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tests/hw/test_interp_emu: tests/hw/test_interp_emu.c $(EMU_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(EMU_OBJS) $(LIB) $(LDLIBS) -lstdc++

$(EMU_BIN): $(CLI_OBJS) $(EMU_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJS) $(EMU_OBJS) $(LIB) $(LDLIBS) $(MPI_LIBS) -lstdc++

$(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

-include $(LIB_OBJS:.o=.d) $(CU_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(TEST_BINS:=.d) $(EMU_OBJS:.o=.d)

deps:
	@sh scripts/deps.sh

run: deps
	@$(MAKE) --no-print-directory $(BIN)
	$(BIN) run $(SCENARIO)

# The suite: every tests/*/test_* binary (GLib g_test, TAP) and every
# tests/*/*.t script, driven by prove, TEST_JOBS at a time (default: the
# cores; each program works in a temporary folder of its own).
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
test: deps
	@$(MAKE) --no-print-directory all
	GCSIM=$(abspath $(BIN)) BUILD=$(abspath $(BUILD)) prove -j$(TEST_JOBS) -e '' $(TEST_BINS) $(sort $(wildcard tests/*/*.t)) :: --tap

asan:
	@$(MAKE) --no-print-directory test BUILD=build/asan OPT=-O1 AR=ar \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" CUDA=0 MPI=0

bench: deps
	@$(MAKE) --no-print-directory $(BIN) $(BENCH_BINS)
	@sh bench/run.sh $(abspath $(BIN)) $(abspath $(BUILD))/bench

# gcsim next to SimGrid's SMPI on one flat cluster (docs/PERFORMANCE.md);
# installs Debian's libsimgrid-dev (and GNU time) first
bench-peers: deps
	@sh scripts/deps.sh peers
	@$(MAKE) --no-print-directory $(BIN)
	@sh bench/peers/run.sh $(abspath $(BIN))

# Predictions against the published p5 (EFA) allreduce sweep (seconds).
# The report's last line is the verdict; a verdict of FAIL (status 1) is a
# result, not a failed run, so only other statuses stop make.
validate-p5: deps
	@$(MAKE) --no-print-directory $(BIN)
	@sh validate/p5-efa-sweep.sh $(abspath $(BIN)) || test $$? -eq 1

# Predictions against the published B200 InfiniBand sendrecv sweep (seconds).
validate-b200: deps
	@$(MAKE) --no-print-directory $(BIN)
	@sh validate/b200-sendrecv.sh $(abspath $(BIN)) || test $$? -eq 1

# Predictions against DeepEP's published normal-kernel bandwidths (40 s).
validate-deepep: deps
	@$(MAKE) --no-print-directory $(BIN)
	@sh validate/deepep-normal.sh $(abspath $(BIN))

# Predictions against published nccl-tests runs on 8x H100 nodes: allreduce
# on 2-8 nodes with 400 Gb/s InfiniBand, allgather and reduce-scatter on one
# (45 s); a FAIL verdict (status 1) is a result.
validate-h100: deps
	@$(MAKE) --no-print-directory $(BIN)
	@sh validate/h100-nccl-tests.sh $(abspath $(BIN)) || test $$? -eq 1

# Predictions against the mixed reference set (one H100 or H200 node,
# seconds) and the MoE set (DeepEP low-latency, pplx-kernels, torch's
# all-to-all; 15 s); a FAIL verdict (status 1) is a result.
validate-ref: deps
	@$(MAKE) --no-print-directory $(BIN)
	@sh validate/nccl-reference.sh $(abspath $(BIN)) || test $$? -eq 1
validate-moe: deps
	@$(MAKE) --no-print-directory $(BIN)
	@sh validate/moe-published.sh $(abspath $(BIN)) || test $$? -eq 1

# Every published set above, into docs/VALIDATION.md and docs/validation/*.svg
# (per set: the points, the median and largest |error|, a plot; about a
# minute and a half). A set's FAIL verdict is recorded there, not a failed make; a
# script that fails stops make with its message, and nothing is written. In
# a git checkout make fails when the report differs from the committed one,
# so a change that moves a prediction is seen and its report committed.
validate: deps
	@$(MAKE) --no-print-directory $(BIN)
	@sh validate/report.sh $(abspath $(BIN))
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1 && \
	  ! git diff --quiet -- docs/VALIDATION.md docs/validation; then \
	  echo "make validate: docs/VALIDATION.md differs from the committed report (git diff docs/VALIDATION.md): the predictions moved; review and commit it"; \
	  exit 1; fi

# The loader's fuzz harness links only the simulator sources (no CUDA, no hw).
FUZZ_SRCS := $(wildcard sim/core/*.c sim/sched/*.c sim/*.c sim/models/*/*.c sim/topologies/*.c)
fuzz:
	@mkdir -p $(BUILD)
	clang -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O1 -g -I. $(PKG_CFLAGS) \
	  -fsanitize=fuzzer,address,undefined tests/fuzz/fuzz_scenario.c $(FUZZ_SRCS) \
	  -o $(BUILD)/fuzz_scenario $(PKG_LIBS) -lm
	@echo "run: $(BUILD)/fuzz_scenario -dict=tests/fuzz/scenario.dict CORPUS_DIR tests/fuzz/corpus/scenario"

# Random command lines (scenarios under random --set overrides, explain's
# options) against the sanitizer build: make fuzz-cli [RUNS=200] [SEED=1]
RUNS ?= 200
SEED ?= 1
fuzz-cli: deps
	@$(MAKE) --no-print-directory build/asan/gcsim BUILD=build/asan OPT=-O1 AR=ar \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" CUDA=0 MPI=0
	python3 tests/fuzz/cli_overrides.py build/asan/gcsim --runs $(RUNS) --seed $(SEED)

# make install PREFIX=DIR [DESTDIR=STAGE]: the binary of $(BUILD) (built if
# missing or out of date, as make does), the man page and bash completion
# made from it, and every scenario (the installed gcsim reads no other file,
# so it runs from any folder).
PREFIX  ?= /usr/local
BINDIR  := $(PREFIX)/bin
MAN1DIR := $(PREFIX)/share/man/man1
COMPDIR := $(PREFIX)/share/bash-completion/completions
DATADIR := $(PREFIX)/share/gcsim
SCENARIO_FILES := $(sort $(shell find scenarios -name '*.yaml' 2>/dev/null))

install: $(BIN) $(MAN) $(COMPLETION)
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MAN1DIR)" "$(DESTDIR)$(COMPDIR)"
	install -m 755 $(BIN) "$(DESTDIR)$(BINDIR)/gcsim"
	install -m 644 $(MAN) "$(DESTDIR)$(MAN1DIR)/gcsim.1"
	install -m 644 $(COMPLETION) "$(DESTDIR)$(COMPDIR)/gcsim"
	@for f in $(SCENARIO_FILES); do \
	  install -D -m 644 "$$f" "$(DESTDIR)$(DATADIR)/$$f" || exit 1; \
	done
	@echo "installed $(DESTDIR)$(BINDIR)/gcsim, its man page, bash completion and $(words $(SCENARIO_FILES)) scenarios in $(DESTDIR)$(DATADIR)/scenarios"

# Only the files install writes, then the folders under share/gcsim (gcsim's
# own) that are left empty.
uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/gcsim" "$(DESTDIR)$(MAN1DIR)/gcsim.1" "$(DESTDIR)$(COMPDIR)/gcsim"
	@for f in $(SCENARIO_FILES); do rm -f "$(DESTDIR)$(DATADIR)/$$f"; done
	@if [ -d "$(DESTDIR)$(DATADIR)" ]; then find "$(DESTDIR)$(DATADIR)" -depth -type d -empty -delete; fi

clean:
	rm -rf build
