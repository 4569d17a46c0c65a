#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The compiler matrix (docs/KERNELS.md): the BPF objects built by each compiler at each
# -mcpu, each build in an output directory of its own, and every program of each
# verified by the running kernel (progcheck). A TAP section a build; the last line is
# "N passed, N failed[, N skipped]": a build that fails is one failure, a refused
# program another.
#
#   scripts/test-compilers.sh [--compilers "clang-14 clang-19"] [--cpus "v1 v2 v3"]
#   make test-compilers [COMPILERS="..."] [BPF_CPUS="..."]     (root: progcheck loads)
#
# Builds go to $BB_OUTPUT/compilers/COMPILER-CPU/ (default .output); progcheck is
# $BB_OUTPUT/tests/progcheck (make tests builds it). Each object is built with -g, so a
# refusal's log names its source lines.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${BB_OUTPUT:-.output}
compilers="clang-14 clang-19" cpus="v1 v2 v3"
while [ $# -gt 0 ]; do
	case $1 in
	--compilers) compilers=$2; shift ;;
	--cpus) cpus=$2; shift ;;
	-h | --help) sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "test-compilers: unknown argument $1 (--help)" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$out/tests/progcheck" ] || { echo "test-compilers: make tests first" >&2; exit 2; }
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf

pass=0 fail=0 skip=0 summary=()
echo "TAP version 13"
echo "# kernel $(uname -r)"
for cc in $compilers; do
	for cpu in $cpus; do
		dir=$out/compilers/$cc-$cpu
		log=$dir.log
		mkdir -p "$dir"
		echo "# ==== $cc -mcpu=$cpu ($("$cc" --version 2>/dev/null | head -n 1 || echo missing))"
		start=$SECONDS
		if ! command -v "$cc" >/dev/null; then
			echo "not ok 1 $cc -mcpu=$cpu: $cc is not installed (scripts/install-deps.sh)"
			p=0 f=1 s=0
		elif ! make -s OUTPUT="$dir" CLANG="$cc" BPF_CPU="$cpu" bpf-objs >"$log" 2>&1; then
			echo "not ok 1 $cc -mcpu=$cpu: the build failed; its last lines:"
			grep -E 'error|warning' "$log" | head -n 8 | sed 's/^/#   /' || true
			tail -n 4 "$log" | sed 's/^/#   /'
			p=0 f=1 s=0
		else
			objs=()
			for o in "$dir"/*.bpf.o; do
				case $o in *.tmp.bpf.o) ;; *) objs+=("$o") ;; esac
			done
			"$out/tests/progcheck" "${objs[@]}" >"$dir/progcheck.log" 2>&1 || true
			grep -v '^1\.\.' "$dir/progcheck.log"
			p=$(grep -cE '^ok [0-9]+' "$dir/progcheck.log" || true)
			s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$dir/progcheck.log" || true)
			f=$(grep -cE '^not ok [0-9]+' "$dir/progcheck.log" || true)
			p=$((p - s))
		fi
		echo "# ==== $cc -mcpu=$cpu: $p passed, $f failed, $s skipped ($((SECONDS - start)) s)"
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
		summary+=("$(printf '#   %-10s -mcpu=%s %4d passed %4d failed %4d skipped' "$cc" \
			"$cpu" "$p" "$f" "$s")")
	done
done
echo "# ==== the matrix, on $(uname -r)"
printf '%s\n' "${summary[@]}"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
