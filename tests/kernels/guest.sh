#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bloomblock's checks of one kernel, run inside each guest of scripts/test-kernels.sh
# (or on the host, as root, for the running kernel), as one TAP stream:
#   1. progcheck: every program of every BPF object in $BB_OUTPUT through this kernel's
#      verifier, alone: accepted or not, verified_insns, the refusal's source line
#   2. the BPF_PROG_TEST_RUN suites (tests/bpf/): a line each, with their counts
#   3. tests/kernels/smoke.sh: load, traffic, stats, reload and unload, for real
# The full log of each is written to $BB_RESULTS (default: a new /tmp/bbkernel.* dir).
#   BB_OUTPUT=.output BB_RESULTS=DIR tests/kernels/guest.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

out=${BB_OUTPUT:-.output}
results=${BB_RESULTS:-$(mktemp -d /tmp/bbkernel.XXXXXX)}
n=0

# renumber: a TAP stream's test lines numbered on from $n, its plan lines dropped; the
# last number lands in $results/.n (the end of a pipeline runs in a subshell: read it
# back with `n=$(cat "$results/.n")`)
renumber() {
	awk -v n="$n" -v f="$results/.n" '
		/^1\.\.[0-9]+$/ { next }
		/^(not )?ok [0-9]+/ { n++; sub(/ok [0-9]+/, "ok " n) }
		{ print; fflush() }
		END { print n > f }'
}

echo "# kernel $(uname -r); BTF: $(stat -c %s /sys/kernel/btf/vmlinux 2>/dev/null || echo none)" \
	"bytes; bpffs: $(mountpoint -q /sys/fs/bpf && echo yes || echo no)"

echo "# ---- 1. every BPF program through the verifier (progcheck)"
objs=()
for o in "$out"/*.bpf.o; do
	case $o in *.tmp.bpf.o) continue ;; esac
	objs+=("$o")
done
start=$SECONDS
"$out/tests/progcheck" --log-lines 40 "${objs[@]}" 2>&1 | tee "$results/progcheck.log" |
	grep -vE '^#   (\||verifier log, last)' | renumber || true
echo "# (each refusal's verifier log, its last 40 lines: ${BB_RESULTS_SHOWN:-$results}/progcheck.log)"
n=$(cat "$results/.n")
echo "# progcheck took $((SECONDS - start)) s"

echo "# ---- 2. the BPF_PROG_TEST_RUN suites"
# as many at once as the guest has CPUs (BB_GUEST_JOBS), each to its own log; their
# lines in the suites' order once each has ended
suites=()
for t in tests/bpf/test_*.c; do suites+=("$(basename "$t" .c)"); done
jobs_max=${BB_GUEST_JOBS:-$(nproc)}
for t in "${suites[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
	(
		start=$SECONDS
		rc=0
		timeout 1200 "$out/tests/$t" >"$results/$t.log" 2>&1 || rc=$?
		echo "$rc $((SECONDS - start))" >"$results/$t.rc"
	) &
done
wait
for t in "${suites[@]}"; do
	log=$results/$t.log
	read -r rc secs <"$results/$t.rc" || { rc=none; secs=0; }
	p=$(grep -cE '^ok [0-9]+' "$log" || true)
	s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$log" || true)
	f=$(grep -cE '^not ok [0-9]+' "$log" || true)
	n=$((n + 1))
	if [ "$rc" = 0 ] && [ "$f" = 0 ] && [ "$p" -gt 0 ]; then
		echo "ok $n $t: $((p - s)) checks passed, $s skipped (${secs} s)"
	else
		echo "not ok $n $t: $((p - s)) passed, $f failed, exit status $rc (${secs} s)"
		grep -m 4 -E '^not ok|^Bail out|failed to load: ' "$log" | cut -c1-200 |
			sed 's/^/#   /' || true
	fi
done
echo "$n" >"$results/.n"

echo "# ---- 3. load, traffic, reload, unload (tests/kernels/smoke.sh)"
start=$SECONDS
BB=$PWD/bloomblock bash tests/kernels/smoke.sh 2>&1 | tee "$results/smoke.log" | renumber || true
n=$(cat "$results/.n")
if grep -q '^Bail out!' "$results/smoke.log"; then	# stopped before its checks: a failure
	n=$((n + 1))
	echo "not ok $n smoke: $(grep -m 1 '^Bail out!' "$results/smoke.log")"
fi
echo "# smoke took $((SECONDS - start)) s"
echo "1..$n"
