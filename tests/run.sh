#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every test program and script, several at once, and total them. Each suite's TAP
# goes to a log of its own and is printed whole when the suite ends, never interleaved
# with another's; the run ends with the ten slowest suites (wall and CPU time, as TAP
# comments), and the last line is "N passed, N failed" (", N skipped" when any was).
#   tests/run.sh            unit, BPF_PROG_TEST_RUN and netns end-to-end tests
#   tests/run.sh -j N       N suites at once (default: twice the CPUs, as the end-to-end
#                           suites mostly wait on clients and timeouts; make test J=N)
#   tests/run.sh --unit     unit tests only (no root needed)
#   tests/run.sh --unit [--bpf] --e2e "test_a test_b"
#                           the unit tests (and the BPF_PROG_TEST_RUN suites), and those
#                           end-to-end scripts (make asan, make valgrind)
#   BB_VALGRIND=1           run the unit tests under valgrind, and every bloomblock
#                           an end-to-end script runs (tests/e2e/lib.sh)
#   BB_OUTPUT=DIR           where the test binaries are (default .output)
#   CI=true                 a skipped test counts as failed
#   BB_BUILD_ONLY=1         only the tests of the build under test (make asan): the
#                           package's and the deployment's tests, which build and check
#                           what ships rather than this build, are not run again
#
# Serial suites: a suite whose source has a line "# bb-test: serial: WHY" (a script) or
# "/* bb-test: serial: WHY */" (a C test) runs alone, after the others have ended: it
# counts what the whole machine holds (every BPF map or program, memlock), installs
# system-wide, or times itself, and another suite beside it would change its answer.
# Every other suite keeps to its own namespaces, pin dir, state and scratch directories
# (tests/e2e/lib.sh: BB_TAG) and runs beside the others.
#
# The order: the suites that took longest in the last run first (their times are kept in
# $BB_OUTPUT/tests/run-times), so the long ones do not start last.
set -u
cd "$(dirname "$0")/.."

out=${BB_OUTPUT:-.output}
only_unit=0 bpf_too=0 e2e_only='' jobs=${BB_JOBS:-}
usage() { echo "usage: tests/run.sh [-j N] [--unit [--bpf] [--e2e \"SCRIPT...\"]]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--unit) only_unit=1 ;;
	--bpf) bpf_too=1 ;;
	--e2e) e2e_only=${2:-}; shift ;;
	-j) jobs=${2:-}; shift ;;
	-j*) jobs=${1#-j} ;;
	*) usage ;;
	esac
	shift
done
[ -n "$jobs" ] || jobs=$((2 * $(nproc 2>/dev/null || echo 1)))
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || usage

times_file=$out/tests/run-times

# ---- the suites: a name, how to run it, its source (for the serial mark) ----------------
names=() cmds=() srcs=()
add_suite() { names+=("$1"); srcs+=("$2"); shift 2; cmds+=("$(printf '%q ' "$@")"); }
skipped_here=()

for t in tests/unit/test_*.c; do
	bin="$out/tests/$(basename "$t" .c)"
	if [ "${BB_VALGRIND:-0}" = 1 ]; then
		add_suite "$bin (valgrind)" "$t" valgrind -q --leak-check=full \
			--errors-for-leak-kinds=definite --error-exitcode=99 "$bin"
	else
		add_suite "$bin" "$t" "$bin"
	fi
done
if [ "$only_unit" = 0 ] || [ "$bpf_too" = 1 ]; then
	for t in tests/bpf/test_*.c; do
		[ -e "$t" ] || continue
		bin="$out/tests/$(basename "$t" .c)"
		add_suite "$bin" "$t" "$bin"
	done
fi
if [ "$only_unit" = 0 ]; then
	for t in tests/e2e/test_*.sh; do
		[ -e "$t" ] || continue
		case "$(basename "$t")" in
		test_package_e2e.sh | test_deploy.sh)
			if [ "${BB_BUILD_ONLY:-0}" = 1 ]; then
				skipped_here+=("$t")
				continue
			fi ;;
		esac
		add_suite "$t" "$t" bash "$t"
	done
fi
for t in $e2e_only; do
	[ -e "tests/e2e/$t.sh" ] || { echo "tests/run.sh: no tests/e2e/$t.sh" >&2; exit 2; }
	add_suite "tests/e2e/$t.sh" "tests/e2e/$t.sh" bash "tests/e2e/$t.sh"
done

# serial_why SRC: the reason a suite runs alone, empty when it need not
serial_why() {
	sed -n -E 's@^(#|/\*) bb-test: serial: (.*[^ */])[ */]*$@\2@p' "$1" 2>/dev/null | head -n 1
}
# The last run's wall times (tenths of a second), by suite: a suite not timed yet starts
# early, being perhaps long (and the end-to-end scripts, listed last, before the others)
declare -A last=()
if [ -r "$times_file" ]; then
	while IFS=$'\t' read -r w name; do last[$name]=$w; done <"$times_file"
fi
parallel=() serial=() why=()
order=$(for i in "${!names[@]}"; do echo "${last[${names[i]}]:-999999} $i"; done |
	sort -k1,1nr -k2,2nr | awk '{ print $2 }')
for i in $order; do
	why[i]=$(serial_why "${srcs[i]}")
	if [ -n "${why[i]}" ]; then serial+=("$i"); else parallel+=("$i"); fi
done

# ---- running them ------------------------------------------------------------------------
tmp=$(mktemp -d /tmp/bbrun.XXXXXX)
passed=0 failed=0 skipped=0
failed_names=()
declare -A running=()	# pid -> suite index
wall=() cpu=()

# start I: suite I in the background, in a process group of its own (job control), its
# output in its log, its wall and CPU time (user + sys, its children's too) in its .time
set -m
start() {
	local i=$1
	(
		TIMEFORMAT='%R %U %S'
		# shellcheck disable=SC2086,SC2294  # cmds[] holds a quoted command line
		{ time eval "${cmds[i]}" >"$tmp/$i.log" 2>&1 </dev/null; } 2>"$tmp/$i.time"
	) &
	running[$!]=$i
}

# finish I RC: print suite I's log whole and count its checks
finish() {
	local i=$1 rc=$2 log=$tmp/$1.log name=${names[$1]} p f s w u sy
	read -r w u sy <"$tmp/$i.time" 2>/dev/null || w=0 u=0 sy=0
	wall[i]=$(awk -v w="$w" 'BEGIN { printf "%.1f", w }')
	cpu[i]=$(awk -v u="$u" -v s="$sy" 'BEGIN { printf "%.1f", u + s }')
	echo "# ---- $name"
	cat "$log"
	p=$(grep -cE '^ok [0-9]+' "$log" | tr -d ' ')
	s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$log" | tr -d ' ')
	f=$(grep -cE '^not ok [0-9]+' "$log" | tr -d ' ')
	p=$((p - s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		# died without saying which check failed: a crash, a sanitizer, valgrind
		echo "not ok - $name exited with status $rc"
		f=1
	fi
	if [ $((p + f + s)) -eq 0 ]; then
		echo "not ok - $name ran no test"
		f=1
	fi
	printf '# %s took %s s, %s s CPU%s\n' "$name" "${wall[i]}" "${cpu[i]}" \
		"${why[i]:+ (alone: ${why[i]})}"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	[ "$f" -gt 0 ] && failed_names+=("$name")
}

# reap: wait for any one running suite to end, and finish it
reap() {
	local pid rc
	wait -n -p pid "${!running[@]}"
	rc=$?
	[ -n "${pid:-}" ] && [ -n "${running[$pid]:-}" ] || return 0
	finish "${running[$pid]}" "$rc"
	unset "running[$pid]"
}

# Interrupted: every running suite is told to stop (its group: the script and what it
# runs; the scripts' traps clean up), and the run ends failed.
stop_all() {
	local pid
	trap - INT TERM
	for pid in "${!running[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
	wait
	echo "Bail out! interrupted"
	rm -rf "$tmp"
	exit 130
}
trap stop_all INT TERM

t0=$EPOCHREALTIME
echo "TAP version 13"
for t in "${skipped_here[@]}"; do
	echo "# ---- $t: not run again here (BB_BUILD_ONLY: it tests what ships)"
done
echo "# ${#parallel[@]} suites, $jobs at a time; then ${#serial[@]} alone"
for i in "${parallel[@]}"; do
	while [ "${#running[@]}" -ge "$jobs" ]; do reap; done
	start "$i"
done
while [ "${#running[@]}" -gt 0 ]; do reap; done
for i in "${serial[@]}"; do
	start "$i"
	reap
done
t1=$EPOCHREALTIME

# ---- the time table, and the times for the next run's order ----------------------------------
{
	for i in "${!names[@]}"; do
		[ -n "${wall[i]:-}" ] || continue
		printf '%s\t%s\t%s\n' "${wall[i]}" "${cpu[i]}" "${names[i]}"
	done
} | sort -t $'\t' -k1,1nr >"$tmp/times"
echo "# the ten slowest suites: wall s, CPU s (user + sys, with their children)"
head -n 10 "$tmp/times" | awk -F '\t' '{ printf "#   %7.1f %7.1f  %s\n", $1, $2, $3 }'
awk -F '\t' -v w="$(awk -v a="${t0/,/.}" -v b="${t1/,/.}" 'BEGIN { print b - a }')" \
	'{ c += $2 } END { printf "# all %d suites: %.0f s wall, %.0f s CPU\n", NR, w, c }' "$tmp/times"
if [ -d "$out/tests" ]; then
	awk -F '\t' '{ printf "%d\t%s\n", $1 * 10, $3 }' "$tmp/times" >"$times_file.tmp" &&
		mv "$times_file.tmp" "$times_file"
fi
rm -rf "$tmp"

[ ${#failed_names[@]} -gt 0 ] && echo "# failed: ${failed_names[*]}"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
