#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make lint: cppcheck and clang-tidy over the userspace C (user/), with the checks
# chosen in docs/RELIABILITY.md ("Static analysis"). Any finding fails the run.
# A false positive is silenced where it is, with the reason beside it:
# /* cppcheck-suppress ID: why */ on the line before, or NOLINT(check) on the line.
#   scripts/lint.sh [FILE...]     (default: user/*.c user/*/*.c)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUTPUT:-.output}
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(user/*.c user/*/*.c)
[ -e "$out/bloomblock.skel.h" ] || { echo "lint: build first (make): it reads the skeletons"; exit 2; }
fail=0

# cppcheck: errors, warnings, portability and performance; the system headers are
# not read (the library macros that matter are in scripts/lint/cppcheck.h), nor the
# generated skeletons: cppcheck spent three minutes a file on bloomblock.skel.h's 2 MB
# of object bytes (clang-tidy below reads them, as system headers).
if ! cppcheck -q --std=c11 --enable=warning,portability,performance --inline-suppr \
	--error-exitcode=1 --include=scripts/lint/cppcheck.h -D__GNUC__ -Iinclude -Iuser/core -Iuser/kernel -Iuser/commands -Iuser/daemon \
	-j "$(nproc)" "${files[@]}"; then
	echo "lint: cppcheck found the above"
	fail=1
fi

# clang-tidy: the static analyzer and the bugprone checks, less those listed with
# their reasons in docs/RELIABILITY.md. The skeletons are generated: system headers.
checks='-*,clang-analyzer-*,bugprone-*'
checks+=',-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling'
checks+=',-clang-analyzer-optin.performance.Padding'
checks+=',-bugprone-easily-swappable-parameters,-bugprone-narrowing-conversions'
checks+=',-bugprone-reserved-identifier,-bugprone-assignment-in-if-condition'
checks+=',-bugprone-suspicious-string-compare,-bugprone-integer-division'
checks+=',-bugprone-not-null-terminated-result,-bugprone-branch-clone'
# shellcheck disable=SC2046  # the flags are words
cflags=(-std=gnu11 -D_GNU_SOURCE -Iinclude -Iuser/core -Iuser/kernel -Iuser/commands -Iuser/daemon -isystem "$out" $(pkg-config --cflags libbpf jansson 2>/dev/null))
log=$(mktemp)
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -I{} clang-tidy -quiet --checks="$checks" \
	--warnings-as-errors='*' {} -- "${cflags[@]}" >"$log" 2>/dev/null
# findings placed in the project's files (the generated skeletons' own are not ours)
if grep -Eq '^(\S*/)?(user|include)/[^:]+:[0-9]+:[0-9]+: (warning|error):' "$log"; then
	grep -E -A12 '^(\S*/)?(user|include)/[^:]+:[0-9]+:[0-9]+: (warning|error):' "$log" |
		head -n 400
	echo "lint: clang-tidy found the above"
	fail=1
fi
rm -f "$log"
[ "$fail" = 0 ] && echo "lint: cppcheck and clang-tidy clean over ${#files[@]} files"
exit "$fail"
