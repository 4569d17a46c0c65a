# SPDX-License-Identifier: GPL-2.0
# bloomblock: clang -target bpf -> bpftool gen object -> bpftool gen skeleton -> cc.
# `make V=1` shows the full commands.

OUTPUT		?= .output
BIN		?= bloomblock
PREFIX		?= /usr/local
DESTDIR		?=
CLANG		?= clang
BPFTOOL		?= bpftool
CC		?= gcc
ARCH		:= $(shell uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')
MULTIARCH	:= $(shell $(CC) -print-multiarch 2>/dev/null)

PKGS		:= libbpf libxxhash jansson libidn2 zlib liblzma libzstd libpcap libmicrohttpd inih libsystemd libcurl \
		   libcap libxdp
CFLAGS		?= -O2 -g
CFLAGS		+= -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wno-missing-field-initializers \
		   -Iinclude -I$(OUTPUT) $(shell pkg-config --cflags $(PKGS))
# Hardened (tests/e2e/test_hardening.sh checks the binary): stack protector, fortified
# libc calls, position-independent, full RELRO (the GOT read-only after start-up).
CFLAGS		+= -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fPIE
LDFLAGS		+= -pie -Wl,-z,relro,-z,now
LDLIBS		+= $(shell pkg-config --libs $(PKGS)) -lelf -lm -lpthread
# The BPF instruction set, pinned: clang 20 and later default to v3, where the programs
# grow past the verifier's limit today (docs/KERNELS.md, the compiler matrix).
BPF_CPU		?= v1
BPF_CFLAGS	:= -g -O2 -target bpf -mcpu=$(BPF_CPU) -D__TARGET_ARCH_$(ARCH) -D__BPF__ -Wall \
		   -Werror -Iinclude -I/usr/include/$(MULTIARCH)

# UB is fatal, as an ASan report is: a test that meets it fails (tests/run.sh sees the
# exit status; UBSAN_OPTIONS in `make asan` asks for the stack too).
ifeq ($(SANITIZE),address)
CFLAGS		+= -fsanitize=address,undefined -fno-omit-frame-pointer \
		   -fno-sanitize-recover=undefined
LDFLAGS		+= -fsanitize=address,undefined -fno-sanitize-recover=undefined
endif
# libFuzzer (clang): every object instrumented for coverage; the fuzzers link the fuzzer.
ifeq ($(SANITIZE),fuzzer)
CFLAGS		+= -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
		   -fno-sanitize-recover=undefined
endif

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

BPF_PROGS	:= bloomblock freplace_target freplace_ext xdp_dispatcher
BPF_TEST_PROGS	:= xxhash_test tc_count_test
# user/ in layers, each a folder (docs/DESIGN.md): core (lists, names, filters, index,
# images, files: no libbpf), kernel (pins, attach, maps, the instance's state), commands
# (the CLI's), daemon (bloomblock run); main.c on top. Each layer is compiled seeing only
# its own headers and those below it, so a call upward does not build; the core is also
# checked for libbpf (core-check). Tests and the benchmark see every layer.
LAYERS		:= core kernel commands daemon
LAYER_INC_core	:= -Iuser/core
LAYER_INC_kernel	:= $(LAYER_INC_core) -Iuser/kernel
LAYER_INC_commands	:= $(LAYER_INC_kernel) -Iuser/commands
LAYER_INC_daemon	:= $(LAYER_INC_commands) -Iuser/daemon
USER_INC	:= $(LAYER_INC_daemon)
CORE_SRCS	:= $(wildcard user/core/*.c)
CLI_SRCS	:= $(wildcard user/kernel/*.c user/commands/*.c user/daemon/*.c) user/main.c
CORE_OBJS	:= $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(CORE_SRCS))
CLI_OBJS	:= $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(CLI_SRCS))
SKELS		:= $(patsubst %,$(OUTPUT)/%.skel.h,$(BPF_PROGS) $(BPF_TEST_PROGS))
UNIT_TESTS	:= $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(wildcard tests/unit/test_*.c))
BPF_TESTS	:= $(patsubst tests/bpf/%.c,$(OUTPUT)/tests/%,$(wildcard tests/bpf/test_*.c))
HEADERS		:= $(wildcard include/*.h user/*/*.h)
BPF_HEADERS	:= $(wildcard include/*.h bpf/*.h)

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all clean test demo bench install uninstall tests asan valgrind fuzz fuzzers lint deb \
	bpf-objs test-budget test-kernels test-compilers

all: bloomblock

$(OUTPUT) $(OUTPUT)/tests $(addprefix $(OUTPUT)/user/,$(LAYERS)):
	$(Q)mkdir -p $@

$(OUTPUT)/%.tmp.bpf.o: bpf/%.bpf.c $(BPF_HEADERS) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/%.bpf.o: $(OUTPUT)/%.tmp.bpf.o
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $<

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $* > $@

define layer_rule
$(OUTPUT)/user/$(1)/%.o: user/$(1)/%.c $(HEADERS) | $(OUTPUT)/user/$(1)
	$$(call msg,CC,$$@)
	$$(Q)$$(CC) $$(CFLAGS) $$(LAYER_INC_$(1)) -c $$< -o $$@
endef
$(foreach l,$(LAYERS),$(eval $(call layer_rule,$(l))))

$(OUTPUT)/user/main.o: user/main.c $(HEADERS) | $(OUTPUT)/user/core
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(USER_INC) -c $< -o $@

# CLI objects may include skeletons.
$(CLI_OBJS): $(SKELS)

# The core never includes libbpf or libxdp, nor calls them: its sources and its
# archive's undefined symbols are checked as it is made.
$(OUTPUT)/libbbcore.a: $(CORE_OBJS)
	$(call msg,AR,$@)
	$(Q)! grep -nE '#include *<(bpf|xdp)/|skel\.h' $(CORE_SRCS) user/core/*.h || \
		{ echo "user/core includes libbpf (above): the core stays pure" >&2; exit 1; }
	$(Q)! nm -u $^ | grep -E ' U (bpf_|libbpf_|btf_|xdp_|perf_buffer|ring_buffer)' || \
		{ echo "user/core calls libbpf (above): the core stays pure" >&2; exit 1; }
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(OUTPUT)/libbbcli.a: $(filter-out $(OUTPUT)/user/main.o,$(CLI_OBJS))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BIN): $(OUTPUT)/user/main.o $(OUTPUT)/libbbcli.a $(OUTPUT)/libbbcore.a
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# tests/lib: the packet builders (plain C, for every test and the benchmark) in an archive,
# linked only where used; the BPF harness is header-only (lib/harness.h says why).
TEST_LIB_SRCS	:= $(wildcard tests/lib/*.c)
TEST_LIB_OBJS	:= $(patsubst tests/%.c,$(OUTPUT)/tests/%.o,$(TEST_LIB_SRCS))
TEST_HEADERS	:= tests/tap.h tests/rng.h $(wildcard tests/lib/*.h)

$(OUTPUT)/tests/lib: | $(OUTPUT)/tests
	$(Q)mkdir -p $@

$(OUTPUT)/tests/lib/%.o: tests/lib/%.c $(TEST_HEADERS) $(HEADERS) | $(OUTPUT)/tests/lib
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(USER_INC) -Itests -c $< -o $@

$(OUTPUT)/libbbtest.a: $(TEST_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(OUTPUT)/tests/%: tests/unit/%.c $(TEST_HEADERS) $(OUTPUT)/libbbtest.a $(OUTPUT)/libbbcore.a \
		   | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $(USER_INC) -Itests $(LDFLAGS) $< $(OUTPUT)/libbbtest.a $(OUTPUT)/libbbcore.a \
		$(LDLIBS) -o $@

$(OUTPUT)/tests/%: tests/bpf/%.c $(TEST_HEADERS) $(OUTPUT)/libbbtest.a $(OUTPUT)/libbbcli.a \
		   $(OUTPUT)/libbbcore.a $(SKELS) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $(USER_INC) -Itests $(LDFLAGS) $< $(OUTPUT)/libbbtest.a $(OUTPUT)/libbbcli.a \
		$(OUTPUT)/libbbcore.a $(LDLIBS) -o $@

# tests/tools: programs the end-to-end tests run (an HTTP server that misbehaves on purpose).
TEST_TOOLS	:= $(patsubst tests/tools/%.c,$(OUTPUT)/tests/%,$(wildcard tests/tools/*.c))

$(OUTPUT)/tests/%: tests/tools/%.c | $(OUTPUT)/tests
	$(call msg,TOOL,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@

# bbverdict runs a pinned program on the tests' packets: libbpf and the packet builders.
$(OUTPUT)/tests/bbverdict: tests/tools/bbverdict.c $(TEST_HEADERS) $(OUTPUT)/libbbtest.a \
			   | $(OUTPUT)/tests
	$(call msg,TOOL,$@)
	$(Q)$(CC) $(CFLAGS) $(USER_INC) -Itests $(LDFLAGS) $< $(OUTPUT)/libbbtest.a $(LDLIBS) -o $@

# progcheck loads each program of BPF objects alone and prints the verifier's verdict.
$(OUTPUT)/tests/progcheck: tests/tools/progcheck.c | $(OUTPUT)/tests
	$(call msg,TOOL,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LDLIBS) -o $@

tests: $(BIN) $(UNIT_TESTS) $(BPF_TESTS) $(TEST_TOOLS)

# make test J=N: N suites at once (tests/run.sh -j N; default twice the CPUs).
RUN_J		:= $(if $(J),-j $(J))
test: tests
	$(Q)tests/run.sh $(RUN_J)

# Every program against the verifier's budget: none above a quarter of its 1M walk
# (issue 29). Not in `make test` until the datapath is split into small programs.
BPF_OBJS	:= $(patsubst %,$(OUTPUT)/%.bpf.o,$(BPF_PROGS) $(BPF_TEST_PROGS))
BUDGET_PCT	?= 25

bpf-objs: $(BPF_OBJS)

test-budget: $(BPF_OBJS) $(OUTPUT)/tests/progcheck
	$(Q)$(OUTPUT)/tests/progcheck --max-pct $(BUDGET_PCT) $(BPF_OBJS)

# The kernel matrix (docs/KERNELS.md): Debian's kernels under qemu, each running
# progcheck, the BPF_PROG_TEST_RUN suites and an end-to-end smoke. KERNELS="6.1 6.12".
KERNELS		?= 6.1 6.12 newest

test-kernels: tests
	$(Q)BB_OUTPUT=$(OUTPUT) scripts/test-kernels.sh $(KERNELS)

# The compiler matrix: the BPF objects built by each of COMPILERS at each of BPF_CPUS,
# verified by progcheck on the running kernel.
COMPILERS	?= clang-14 clang-19
BPF_CPUS	?= v1 v2 v3

test-compilers: $(OUTPUT)/tests/progcheck
	$(Q)BB_OUTPUT=$(OUTPUT) scripts/test-compilers.sh --compilers "$(COMPILERS)" \
		--cpus "$(BPF_CPUS)"

demo: bloomblock
	$(Q)scripts/demo.sh

# The benchmark: bpf/bench.bpf.c includes the real program file, bench/ is the driver
# (docs/BENCHMARKS.md). `make bench BENCH_ARGS=--quick` for a short smoke run.
BENCH_SRCS	:= $(wildcard bench/*.c)
BENCH_HEADERS	:= $(wildcard bench/*.h)

$(OUTPUT)/bench.tmp.bpf.o: bpf/bloomblock.bpf.c $(BENCH_HEADERS)

$(OUTPUT)/bench: $(BENCH_SRCS) $(BENCH_HEADERS) tests/lib/pkt.c tests/lib/pkt.h \
		 $(OUTPUT)/bench.skel.h $(HEADERS) $(OUTPUT)/libbbcli.a $(OUTPUT)/libbbcore.a
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(USER_INC) -Ibench -Itests $(LDFLAGS) $(BENCH_SRCS) tests/lib/pkt.c \
		$(OUTPUT)/libbbcli.a $(OUTPUT)/libbbcore.a $(LDLIBS) -o $@

bench: bloomblock $(OUTPUT)/bench $(OUTPUT)/tests/feedsrv
	$(Q)BB_OUTPUT=$(OUTPUT) scripts/bench.sh $(BENCH_ARGS)

# Sanitizers where they see something (docs/RELIABILITY.md, "Sanitizers"): they see
# userspace only, so they run the suites that drive it, not every suite again.
#
# make asan: the CLI and the test programs built under AddressSanitizer/UBSan; the unit
# suites, the BPF suites (their loaders, builders and harness are userspace: libbbcli),
# and ASAN_E2E, the end-to-end suites that drive userspace no unit, BPF or fuzz suite does:
#   test_exit_status     every command's option parsing and usage errors (options.c)
#   test_cli             every list format and the real public lists through load
#   test_cli_names       --hook, --addr, the port lists, --mark parsed; pin-dir spellings
#   test_bounds          the reader at its bounds: 10^8 lines, a 1 GiB line, a gzip bomb
#   test_hardening       the asan binary itself: every UBSan handler an aborting one
#   test_outfiles_e2e    every state file written whole and renamed; planted links
#   test_status_e2e      status -j: every field, from the kernel's info and the state
#   test_bpftool         stats --by-hook's sums; a pinned map of another version refused
#   test_safe_e2e        live add/del/allow, refused commits, check's matched entry,
#                        --state-dir records, a killed load swept
#   test_events_e2e      events and top: the ring read, -j, --follow, list and line
#   test_run_config_e2e  the daemon: its config, SIGHUP, refresh, /metrics
#   test_feed_e2e        feeds over libcurl from a misbehaving server, feeds.json
#   test_watch_e2e       inotify over a ConfigMap's symlinks, reloads by itself
#   test_confirm_e2e     confirm mode's daemon answering the ring from the key index
#   test_fleet_e2e       .bbf files built, read, loaded; corrupt and truncated refused
#   test_netns_e2e       other namespaces entered (setns), attachment records, orphans
#   test_caps_e2e        capabilities dropped (libcap), each one needed said
#   test_hook_e2e        libxdp's attach and dispatcher read back; a foreign program named
#   test_answer_e2e      --answer's veth peer check (netlink), answers in status and stats
# Left out: test_ip_e2e (the commands above, its time in pings and loads: valgrind runs
# it), test_names_e2e and test_reset_e2e (the kernel's parsing, answers and resets:
# BPF, which test_names, test_reset and test_diff drive in userspace builds),
# test_reload_e2e and test_faults_e2e (one load path 100 times; kill -9 ends the process
# a report would come from), test_rollout_e2e (test_fleet_e2e's and test_watch_e2e's
# code), test_package_e2e and test_deploy (what ships, not this build).
#
# make valgrind: the unit suites under valgrind, then VALGRIND_E2E with every bloomblock
# they run under it (BB_VALGRIND=1, tests/e2e/lib.sh): memcheck sees what ASan does not,
# uninitialised bytes read or handed to bpf(), and definite leaks:
#   test_outfiles_e2e    load, reloads, allow, build, info: every state file
#   test_run_config_e2e  run, --check-config, the daemon's loads as its children
#   test_ip_e2e          load, reload, check, add, del, allow, disallow, status, stats,
#                        unload: the commands an operator types, with traffic
#   test_netns_e2e       setns() and the attachment records (valgrind found a bug there)
#   test_status_e2e      status -j: buffers the kernel fills (info, BTF, map ids)
# BB_QUICK=1 takes smaller data sets in both.
ASAN_E2E	?= test_exit_status test_cli test_cli_names test_bounds test_hardening \
		   test_outfiles_e2e test_status_e2e test_bpftool test_safe_e2e test_events_e2e \
		   test_run_config_e2e test_feed_e2e test_watch_e2e test_confirm_e2e \
		   test_fleet_e2e test_netns_e2e test_caps_e2e test_hook_e2e test_answer_e2e
VALGRIND_E2E	?= test_outfiles_e2e test_run_config_e2e test_ip_e2e test_netns_e2e \
		   test_status_e2e
asan:
	$(Q)$(MAKE) OUTPUT=.output-asan BIN=.output-asan/bloomblock SANITIZE=address tests
	$(Q)BB_QUICK=1 BB_OUTPUT=.output-asan BB=$(CURDIR)/.output-asan/bloomblock \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		tests/run.sh $(RUN_J) --unit --bpf --e2e "$(ASAN_E2E)"

valgrind: tests
	$(Q)BB_QUICK=1 BB_VALGRIND=1 tests/run.sh $(RUN_J) --unit --e2e "$(VALGRIND_E2E)"

# Static analysis (docs/RELIABILITY.md): cppcheck and clang-tidy over user/, clean.
lint: $(SKELS)
	$(Q)OUTPUT=$(OUTPUT) scripts/lint.sh

# Fuzzing (docs/RELIABILITY.md): `make fuzz` builds every tests/fuzz/fuzz_*.c with clang's
# libFuzzer, AddressSanitizer and UBSan in .output-fuzz and runs each for FUZZ_S seconds
# (default 60) from its seeds; CI runs them with FUZZ_S=10.
FUZZERS		:= $(patsubst tests/fuzz/%.c,$(OUTPUT)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_S		?= 60

$(OUTPUT)/fuzz: | $(OUTPUT)
	$(Q)mkdir -p $@

# The fuzzers of the kernel program's own code (tests/fuzz/bpf_prog.h) build it for
# userspace, where it reads words at any alignment as BPF may: no alignment check there.
FUZZ_PROG	:= fuzz_quic fuzz_answer
$(patsubst %,$(OUTPUT)/fuzz/%,$(FUZZ_PROG)): FUZZ_CFLAGS := -fno-sanitize=alignment

$(OUTPUT)/fuzz/%: tests/fuzz/%.c $(HEADERS) $(TEST_HEADERS) $(wildcard tests/fuzz/*.h) \
		  bpf/bloomblock.bpf.c $(BPF_HEADERS) $(OUTPUT)/libbbtest.a $(OUTPUT)/libbbcli.a \
		  $(OUTPUT)/libbbcore.a | $(OUTPUT)/fuzz
	$(call msg,FUZZER,$@)
	$(Q)$(CC) $(CFLAGS) $(FUZZ_CFLAGS) $(USER_INC) -Itests -fsanitize=fuzzer $(LDFLAGS) $< \
		$(OUTPUT)/libbbtest.a $(OUTPUT)/libbbcli.a $(OUTPUT)/libbbcore.a $(LDLIBS) -o $@

$(OUTPUT)/tests/fuzz_seeds: tests/fuzz/seeds.c $(TEST_HEADERS) $(OUTPUT)/libbbtest.a | $(OUTPUT)/tests
	$(call msg,TOOL,$@)
	$(Q)$(CC) $(CFLAGS) $(USER_INC) -Itests $(LDFLAGS) $< $(OUTPUT)/libbbtest.a -o $@

fuzzers: $(FUZZERS)

fuzz: bloomblock
	$(Q)$(MAKE) OUTPUT=.output-fuzz BIN=.output-fuzz/bloomblock CC=clang SANITIZE=fuzzer fuzzers
	$(Q)scripts/fuzz.sh .output-fuzz $(FUZZ_S)

install: bloomblock
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/share/man/man8 \
		$(DESTDIR)/lib/systemd/system $(DESTDIR)/etc/bloomblock
	install -m 0755 bloomblock $(DESTDIR)$(PREFIX)/sbin/bloomblock
	install -m 0644 docs/bloomblock.8 $(DESTDIR)$(PREFIX)/share/man/man8/bloomblock.8
	sed 's|@SBINDIR@|$(PREFIX)/sbin|' scripts/bloomblock@.service \
		> $(DESTDIR)/lib/systemd/system/bloomblock@.service
	install -m 0644 docs/bloomblock.conf.example $(DESTDIR)/etc/bloomblock/example.conf

# The Debian package (debian/, docs/PACKAGING.md): built from a copy of the tree in
# $(OUTPUT)/deb/build, checked with lintian; leaves $(OUTPUT)/deb/bloomblock_VERSION_ARCH.deb.
deb:
	$(Q)DEB_JOBS=2 scripts/build-deb.sh $(OUTPUT)/deb

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/sbin/bloomblock $(DESTDIR)$(PREFIX)/share/man/man8/bloomblock.8 \
		$(DESTDIR)/lib/systemd/system/bloomblock@.service $(DESTDIR)/etc/bloomblock/example.conf

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUTPUT) .output-asan .output-fuzz bloomblock
