#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The hardened build, read back from the binary (readelf): position-independent
# (ELF type DYN with an interpreter), full RELRO (GNU_RELRO and BIND_NOW), no
# executable stack, the stack protector in (__stack_chk_fail) and fortified libc calls
# (__*_chk); and a UBSan build's undefined behaviour fatal. No root, no namespaces.
# TAP output.
set -u
BB_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BB=${BB:-$BB_ROOT/bloomblock}
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n $1"; [ -n "${2:-}" ] && echo "# $2"; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1" "${3:-}"; fi; }

echo "TAP version 13"
if ! command -v readelf >/dev/null; then
	echo "1..0 # SKIP needs readelf (binutils; scripts/install-deps.sh installs it)"
	exit 0
fi
[ -x "$BB" ] || { echo "Bail out! build bloomblock first (make)"; exit 1; }

hdr=$(readelf -h "$BB") dyn=$(readelf -d "$BB") seg=$(readelf -lW "$BB") syms=$(readelf -sW --dyn-syms "$BB")
check "PIE: ELF type DYN" '[[ $hdr == *"Type:"*"DYN"* ]]' "$(grep Type: <<<"$hdr")"
check "PIE: with a program interpreter (an executable, not a library)" '[[ $seg == *INTERP* ]]'
check "RELRO: a GNU_RELRO segment" '[[ $seg == *GNU_RELRO* ]]'
check "full RELRO: bound now (BIND_NOW or FLAGS NOW)" \
	'grep -Eq "BIND_NOW|FLAGS.*NOW" <<<"$dyn"'
check "no executable stack (GNU_STACK RW)" \
	'grep -E "GNU_STACK" <<<"$seg" | grep -qv "RWE"'
check "the stack protector: __stack_chk_fail referenced" '[[ $syms == *__stack_chk_fail* ]]'
check "fortified libc calls: __*_chk referenced" 'grep -Eq "__[a-z_]+_chk(@|$| )" <<<"$syms"'
# the AddressSanitizer build (make asan): UBSan's every report fatal, as ASan's, so
# that a test meeting undefined behaviour fails (-fno-sanitize-recover=undefined: the
# handlers it calls are the *_abort ones); before, UB was printed and the test passed
ubsan=$(grep -Eo "__ubsan_handle_[a-z0-9_]+" <<<"$syms" | sort -u)
if [ -n "$ubsan" ]; then
	check "UBSan build: every UB handler referenced is one that aborts" \
		'! grep -Ev "_abort$|_builtin_unreachable$|_missing_return$" <<<"$ubsan" | grep -q .' \
		"$(grep -Ev "_abort$" <<<"$ubsan" | head -n 5 | tr '\n' ' ')"
fi
echo "1..$n"
[ "$fail" -eq 0 ]
