# sonde - tracing and profiling for Linux in one binary.
#   make            build build/sonde (installs missing Debian packages first)
#   make test       unit and end-to-end tests, also under ASan/UBSan; ends "N passed, N failed"
#   make test-vm    the tests that need kprobes/fentry/function tracer, in a qemu VM (part of make test)
#   make demo       sonde on the bundled workload in examples/
#   make install    binary, tool links, man pages, completion, docs (PREFIX=/usr/local, DESTDIR)
#   make bench      compare with perf/strace/bpftrace (not part of make test)
#   make SANITIZE=1 an ASan+UBSan build in build-san/

.DEFAULT_GOAL := all
# a recipe that fails or is interrupted leaves no half-written target that looks up to date
.DELETE_ON_ERROR:
SHELL := /bin/bash

CC ?= gcc
ifeq ($(origin CC),default)
CC := gcc
endif
SANITIZE ?= 0
ifeq ($(SANITIZE),1)
BUILD ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD ?= build
SANFLAGS :=
endif

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation -D_GNU_SOURCE -Isrc -I$(BUILD)/gen $(SANFLAGS)
LDFLAGS += $(SANFLAGS)
# libmicrohttpd, libyaml and libcrypt are not linked: only serve uses them, and it opens
# them with dlopen (src/lib/serve/dynlib.c) so no other command pays for mapping them
LDLIBS := -lelf -ldw -lbpf -ltraceevent -lz -lzstd -lm -lpthread

SRCS := $(wildcard src/*.c src/cmd/*.c src/lib/*.c src/lib/*/*.c src/ui/*.c src/lang/*.c src/lang/*/*.c)
OBJS := $(SRCS:%.c=$(BUILD)/%.o)
LIB_OBJS := $(filter-out $(BUILD)/src/main.o,$(OBJS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_OBJS := $(UNIT_SRCS:%.c=$(BUILD)/%.o)
WORKLOADS := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c)) \
	     $(patsubst tests/workloads/%.c,$(BUILD)/workloads/%,$(wildcard tests/workloads/*.c))

.PHONY: FORCE all docs deps deps-test test test-unit test-e2e demo bench clean workloads fuzz fuzz-long test-vm install uninstall fuzz-replay
all: deps $(BUILD)/sonde

deps:
	@scripts/deps.sh build
deps-test:
	@scripts/deps.sh test

$(BUILD)/sonde: $(OBJS)
	@echo "  LINK    $@"
	@$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c $(wildcard src/*.h src/*/*.h src/*/*/*.h) | deps
	@mkdir -p $(dir $@) $(BUILD)/gen
	@echo "  CC      $@"
	@$(CC) $(CFLAGS) -c -o $@ $<

# -lcrypt: test_serve.c makes bcrypt hashes itself
$(BUILD)/unit-tests: $(UNIT_OBJS) $(LIB_OBJS)
	@echo "  LINK    $@"
	@$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcrypt

# workloads keep frame pointers and symbols: tests look for their functions
$(BUILD)/examples/%: examples/%.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -Wall -Wextra -Werror -o $@ $< -lpthread -lm
$(BUILD)/workloads/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -Wall -Wextra -Werror -o $@ $< -lpthread -lm

workloads: $(WORKLOADS)

# fuzz targets: tests/fuzz/fuzz_NAME.c defines LLVMFuzzerTestOneInput; built with
# clang's libFuzzer + ASan/UBSan against the library in build-fuzz/ for `make fuzz-long`.
# `make test` runs each over its corpus in tests/fuzz/corpus/NAME/ (fuzz-replay, below).
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,build-fuzz/%,$(FUZZ_SRCS))
FUZZ_LIB_OBJS := $(patsubst $(BUILD)/%,build-fuzz/%,$(filter-out $(BUILD)/src/cmd/%,$(LIB_OBJS)))
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined -std=gnu11 -D_GNU_SOURCE -Isrc -Ibuild-fuzz/gen -w
build-fuzz/src/%.o: src/%.c $(wildcard src/*.h src/*/*.h src/*/*/*.h) | deps
	@mkdir -p $(dir $@) build-fuzz/gen
	@echo "  FUZZCC  $@"
	@clang $(FUZZ_FLAGS) -c -o $@ $<
build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_OBJS)
	@echo "  FUZZLD  $@"
	@clang $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)
fuzz: $(FUZZ_BINS)
# the same targets without libFuzzer, against this build's library (build-san/ under
# SANITIZE=1): tests/fuzz/replay.c runs the committed corpus once, as `make test` does
FUZZ_REPLAY_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz-replay/%,$(FUZZ_SRCS))
$(BUILD)/fuzz-replay/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) $(CFLAGS) -Wno-sign-compare $(LDFLAGS) -o $@ $^ $(LDLIBS)
fuzz-replay: $(FUZZ_REPLAY_BINS)
# every target for FUZZ_SECONDS (600) each, corpus minimised into build-fuzz/corpus/; not in `make test`
fuzz-long: fuzz
	@FUZZ_SECONDS=$(or $(FUZZ_SECONDS),600) tests/fuzz/long.sh

# man pages and bash/zsh completion, generated from the binary's option tables
# (scripts/gen-man.sh, scripts/gen-completion.sh; man/ holds the hand-written part)
$(BUILD)/doc/man/sonde.1: $(BUILD)/sonde scripts/gen-man.sh $(wildcard man/*.scd)
	@echo "  MAN     $(dir $@)"
	@rm -rf $(BUILD)/doc/man $(BUILD)/doc/man.tmp && scripts/gen-man.sh $(BUILD)/sonde $(BUILD)/doc/man.tmp && \
		mv $(BUILD)/doc/man.tmp $(BUILD)/doc/man
$(BUILD)/doc/completions/sonde.bash: $(BUILD)/sonde scripts/gen-completion.sh $(wildcard completions/*.in)
	@echo "  COMPL   $(dir $@)"
	@rm -rf $(BUILD)/doc/completions.tmp && scripts/gen-completion.sh $(BUILD)/sonde $(BUILD)/doc/completions.tmp && \
		rm -rf $(BUILD)/doc/completions && mv $(BUILD)/doc/completions.tmp $(BUILD)/doc/completions
docs: all $(BUILD)/doc/man/sonde.1 $(BUILD)/doc/completions/sonde.bash

# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, a symlink to it for each
# tool name (`sonde tools --names`: BCC users type execsnoop, biolatency...), the man
# pages, bash and zsh completion, the README and docs; uninstall removes exactly
# that (symlinks only where they point at sonde)
PREFIX ?= /usr/local
BINDIR := $(DESTDIR)$(PREFIX)/bin
MANDIR := $(DESTDIR)$(PREFIX)/share/man/man1
DOCDIR := $(DESTDIR)$(PREFIX)/share/doc/sonde
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
DOCS := README.md HACKING.md $(wildcard docs/*.md)
SONDE_MANS = sonde.1 $(patsubst %,sonde-%.1,$(shell $(BUILD)/sonde help --dump-options | cut -f2)) \
	     $(patsubst %,%.1,$(shell $(BUILD)/sonde tools --names))
install: docs
	install -d $(BINDIR) $(MANDIR) $(DOCDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 $(BUILD)/sonde $(BINDIR)/sonde
	@for n in $$($(BUILD)/sonde tools --names); do \
		if [ -e "$(BINDIR)/$$n" ] && [ "$$(readlink "$(BINDIR)/$$n")" != sonde ]; then \
			echo "not replacing $(BINDIR)/$$n: it is not sonde's"; else ln -sfn sonde "$(BINDIR)/$$n"; fi; \
	done
	install -m 644 $(addprefix $(BUILD)/doc/man/,$(SONDE_MANS)) $(MANDIR)
	install -m 644 $(BUILD)/doc/completions/sonde.bash $(DESTDIR)$(BASHCOMPDIR)/sonde
	@# bash-completion loads completions/NAME when NAME is first completed: each tool links to sonde's
	@for n in $$($(BUILD)/sonde tools --names); do \
		[ -e "$(DESTDIR)$(BASHCOMPDIR)/$$n" ] || ln -s sonde "$(DESTDIR)$(BASHCOMPDIR)/$$n"; done
	install -m 644 $(BUILD)/doc/completions/_sonde $(DESTDIR)$(ZSHCOMPDIR)/_sonde
	install -m 644 $(DOCS) $(DOCDIR)
uninstall:
	@for n in $$($(BUILD)/sonde tools --names); do \
		[ "$$(readlink "$(BINDIR)/$$n")" != sonde ] || rm -f "$(BINDIR)/$$n"; \
		[ "$$(readlink "$(DESTDIR)$(BASHCOMPDIR)/$$n")" != sonde ] || rm -f "$(DESTDIR)$(BASHCOMPDIR)/$$n"; \
	done
	rm -f $(BINDIR)/sonde $(addprefix $(MANDIR)/,$(SONDE_MANS))
	rm -f $(DESTDIR)$(BASHCOMPDIR)/sonde $(DESTDIR)$(ZSHCOMPDIR)/_sonde $(addprefix $(DOCDIR)/,$(notdir $(DOCS)))
	rmdir $(DOCDIR) 2>/dev/null || true

# the commit sonde is built from (sonde --version): rewritten only when it changes
%/gen/commit.h: FORCE
	@mkdir -p $(dir $@)
	@scripts/gen-commit.sh >$@.tmp && { cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@; }
$(BUILD)/src/lib/version.o: $(BUILD)/gen/commit.h
$(BUILD)/src/lib/version.o: CFLAGS += -DSONDE_BPF_SKELS='"$(BPF_NAMES)"'
build-fuzz/src/lib/version.o: build-fuzz/gen/commit.h
FORCE:

# The BCC tools' programs (src/tools/*.bt), embedded in the binary as a table
TOOL_SRCS := $(sort $(wildcard src/tools/*.bt))
$(BUILD)/gen/tools.h: $(TOOL_SRCS) scripts/embed-tools.sh
	@mkdir -p $(dir $@)
	@scripts/embed-tools.sh $(TOOL_SRCS) >$@.tmp && mv $@.tmp $@
$(BUILD)/src/cmd/tool.o: $(BUILD)/gen/tools.h

# memleak --preload: the shim a command runs with (LD_PRELOAD), built with its own
# flags (frame pointers, no sanitizers) and embedded in the binary as bytes
%/gen/memleak_preload.so: src/preload/memleak_preload.c src/lib/memleak/memleak_shm.h
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) -O2 -g0 -s -shared -fPIC -fno-omit-frame-pointer -ftls-model=initial-exec -std=gnu11 \
		-Wall -Wextra -Werror -Wno-unused-parameter -D_GNU_SOURCE -Isrc -o $@ $< -lpthread
%/gen/memleak_preload_so.h: %/gen/memleak_preload.so
	@{ echo "static const unsigned char memleak_preload_so[] = {"; \
	   od -An -v -tx1 $< | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; echo "};"; } >$@.tmp && mv $@.tmp $@
$(BUILD)/src/lib/memleak/memleak_preload.o: $(BUILD)/gen/memleak_preload_so.h
build-fuzz/src/lib/memleak/memleak_preload.o: build-fuzz/gen/memleak_preload_so.h

# BPF programs (src/bpf/*.bpf.c). Every build dir (build, build-san, build-fuzz)
# gets its own gen/: vmlinux.h dumped from this machine's kernel BTF (or, on a
# machine without /sys/kernel/btf/vmlinux, src/bpf/vmlinux_fallback.h: the few
# kernel types sonde's programs read, relocated by CO-RE at load time), then
# NAME.bpf.o, then the libbpf skeleton NAME.skel.h that src/lib/bpf_*.c include:
# the object is embedded in the one binary. -I$(BUILD)/gen is in CFLAGS.
BPF_SRCS := $(wildcard src/bpf/*.bpf.c)
BPF_NAMES := $(BPF_SRCS:src/bpf/%.bpf.c=%)
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Wall -Werror -Isrc/bpf \
	      -I/usr/include/$(shell gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
define bpf_gen
$(1)/gen/vmlinux.h: | deps
	@mkdir -p $(1)/gen
	@if [ -r /sys/kernel/btf/vmlinux ] && bpftool btf dump file /sys/kernel/btf/vmlinux format c >$$@.tmp 2>/dev/null; then \
		mv $$@.tmp $$@; \
	else \
		echo "no kernel BTF on this machine: building against src/bpf/vmlinux_fallback.h"; \
		rm -f $$@.tmp; cp src/bpf/vmlinux_fallback.h $$@; \
	fi
$(1)/gen/%.bpf.o: src/bpf/%.bpf.c $(wildcard src/bpf/*.h) $(1)/gen/vmlinux.h
	clang $(BPF_CFLAGS) -I$(1)/gen -c $$< -o $$@
	llvm-strip -g $$@
$(1)/gen/%.skel.h: $(1)/gen/%.bpf.o
	bpftool gen skeleton $$< name $$*_bpf >$$@.tmp && mv $$@.tmp $$@
endef
$(foreach d,build build-san build-fuzz build-deb,$(eval $(call bpf_gen,$(d))))
# the skeletons exist before anything compiles; the files that include one rebuild when it changes
SKEL_USERS := $(shell grep -l 'skel\.h"' $(SRCS) 2>/dev/null)
$(OBJS): | $(BPF_NAMES:%=$(BUILD)/gen/%.skel.h)
$(FUZZ_LIB_OBJS): | $(BPF_NAMES:%=build-fuzz/gen/%.skel.h)
$(SKEL_USERS:%.c=$(BUILD)/%.o): $(BPF_NAMES:%=$(BUILD)/gen/%.skel.h)
$(SKEL_USERS:%.c=build-fuzz/%.o): $(BPF_NAMES:%=build-fuzz/gen/%.skel.h)

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test: deps-test
	@$(MAKE) --no-print-directory -j$(JOBS) all workloads $(BUILD)/unit-tests
	@JOBS=$(JOBS) tests/run.sh

# test-vm: boot Debian's cloud kernel (kprobes, fentry, function tracer) in qemu and run tests/vm/ there
test-vm: all workloads $(BUILD)/vm/sonde
	@tests/vm/run.sh
# the VM gets a static sonde where the -dev packages ship archives, else build/sonde plus what ldd lists
$(BUILD)/vm/sonde: $(BUILD)/sonde
	@mkdir -p $(dir $@)
	@$(CC) -static -o $@ $(OBJS) -Wl,--start-group $(LDLIBS) -lbz2 -llzma -Wl,--end-group 2>$@.log || \
		{ echo "no static sonde for the VM ($$(grep -m1 -e error $@.log)): using $(BUILD)/sonde"; cp $(BUILD)/sonde $@; }

demo: all workloads
	@scripts/demo.sh

bench: all workloads deps-test
	@bench/run.sh

clean:
	rm -rf build build-san build-fuzz build-deb
.SECONDARY:
