#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every test program and script, pass their TAP through, and total them:
# the last line is "N passed, N failed, N skipped".
#   tests/run.sh            unit, BPF_PROG_TEST_RUN and netns end-to-end tests
#   tests/run.sh --unit     unit tests only (no root needed)
#   tests/run.sh --unit --e2e "test_a test_b"
#                           the unit tests, then those end-to-end scripts
#   BB_VALGRIND=1           run the unit tests under valgrind, and every bloomblock
#                           an end-to-end script runs (tests/e2e/lib.sh)
#   BB_OUTPUT=DIR           where the test binaries are (default .output)
#   CI=true                 a skipped test counts as failed
#   BB_BUILD_ONLY=1         only the tests of the build under test (make asan): the
#                           package's and the deployment's tests, which build and check
#                           what ships rather than this build, are not run again
set -u
cd "$(dirname "$0")/.."

out=${BB_OUTPUT:-.output}
only_unit=0 e2e_only=''
while [ $# -gt 0 ]; do
	case $1 in
	--unit) only_unit=1 ;;
	--e2e) e2e_only=${2:-}; shift ;;
	*) echo "usage: tests/run.sh [--unit [--e2e \"SCRIPT...\"]]" >&2; exit 2 ;;
	esac
	shift
done

passed=0 failed=0 skipped=0
failed_names=()

run_one() {
	local name=$1 status rc log
	shift
	log=$(mktemp)
	echo "# ---- $name"
	"$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	local p f s
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
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	[ "$f" -gt 0 ] && failed_names+=("$name")
	rm -f "$log"
}

echo "TAP version 13"
for t in tests/unit/test_*.c; do
	bin="$out/tests/$(basename "$t" .c)"
	if [ "${BB_VALGRIND:-0}" = 1 ]; then
		run_one "$bin (valgrind)" valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
			--error-exitcode=99 "$bin"
	else
		run_one "$bin" "$bin"
	fi
done

if [ "$only_unit" = 0 ]; then
	for t in tests/bpf/test_*.c; do
		[ -e "$t" ] || continue
		bin="$out/tests/$(basename "$t" .c)"
		run_one "$bin" "$bin"
	done
	for t in tests/e2e/test_*.sh; do
		[ -e "$t" ] || continue
		case "$(basename "$t")" in
		test_package_e2e.sh | test_deploy.sh)
			if [ "${BB_BUILD_ONLY:-0}" = 1 ]; then
				echo "# ---- $t: not run again here (BB_BUILD_ONLY: it tests what ships)"
				continue
			fi ;;
		esac
		run_one "$t" bash "$t"
	done
fi

for t in $e2e_only; do
	run_one "tests/e2e/$t.sh" bash "tests/e2e/$t.sh"
done

[ ${#failed_names[@]} -gt 0 ] && echo "# failed: ${failed_names[*]}"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
