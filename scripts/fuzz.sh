#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every fuzzer built in OUT/fuzz for SECONDS each (make fuzz; FUZZ_S=), from its
# committed seeds (tests/fuzz/seeds/NAME) and the project's own fixtures, into a working
# corpus in OUT/corpus/NAME that later runs start from. A crash leaves its input in
# OUT/crashes and fails the run; the summary gives inputs run per fuzzer.
set -u
OUT=${1:-.output-fuzz}
SECS=${2:-60}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
mkdir -p "$OUT/corpus" "$OUT/crashes" "$OUT/seeds"

# seeds: the committed ones, and the fixtures each reads
seeds_of() {
	local name=$1
	[ -d "tests/fuzz/seeds/$name" ] && echo "tests/fuzz/seeds/$name"
	case $name in
	fuzz_list_line)
		# every line of the test lists, one seed each (kept small: the first 400)
		mkdir -p "$OUT/seeds/lines"
		if [ -z "$(ls -A "$OUT/seeds/lines")" ]; then
			cat tests/lists/* | head -n 400 |
				awk -v d="$OUT/seeds/lines" '{ f = sprintf("%s/%04d", d, NR); printf "%s", $0 > f; close(f) }'
		fi
		echo "$OUT/seeds/lines" ;;
	fuzz_list_file)
		# a format byte (0: auto) then the file
		mkdir -p "$OUT/seeds/files"
		local f
		for f in tests/lists/*; do
			{ printf '\0'; head -c 4096 "$f"; } >"$OUT/seeds/files/$(basename "$f")"
		done
		if command -v gzip >/dev/null; then
			{ printf '\0'; head -c 4096 tests/lists/hosts.txt | gzip -c; } >"$OUT/seeds/files/hosts.gz"
		fi
		if command -v xz >/dev/null; then
			{ printf '\0'; head -c 4096 tests/lists/adblock.txt | xz -c; } >"$OUT/seeds/files/adblock.xz"
		fi
		echo "$OUT/seeds/files" ;;
	fuzz_config)
		mkdir -p "$OUT/seeds/config"
		cp docs/bloomblock.conf.example "$OUT/seeds/config/example.conf"
		echo "$OUT/seeds/config" ;;
	fuzz_bbf)
		mkdir -p "$OUT/seeds/bbf"
		[ -e "$OUT/seeds/bbf/hosts.bbf" ] ||
			./bloomblock build tests/lists/hosts.txt -o "$OUT/seeds/bbf/hosts.bbf" >/dev/null 2>&1
		echo "$OUT/seeds/bbf" ;;
	esac
}

fail=0
summary=()
for bin in "$OUT"/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	corpus="$OUT/corpus/$name"
	mkdir -p "$corpus"
	log="$OUT/$name.log"
	# shellcheck disable=SC2046
	"$bin" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
		-print_final_stats=1 -artifact_prefix="$OUT/crashes/$name-" "$corpus" \
		$(seeds_of "$name") >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	units=$(find "$corpus" -type f | wc -l)
	if [ "$rc" -ne 0 ]; then
		fail=1
		summary+=("$name: FAILED (status $rc), see $log and $OUT/crashes/")
		grep -m 5 -E 'ERROR|runtime error|==[0-9]+==' "$log" | sed 's/^/    /'
	else
		summary+=("$name: ${runs:-0} inputs in ${SECS} s, corpus $units")
	fi
done
printf '%s\n' "${summary[@]}"
[ ${#summary[@]} -gt 0 ] || { echo "no fuzzer in $OUT/fuzz (make fuzz builds them)"; exit 1; }
exit $fail
