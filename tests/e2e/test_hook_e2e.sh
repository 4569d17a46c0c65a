#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End to end, sharing the XDP hook: load never replaces an XDP program it did not
# attach (without --force), and says how to remove it in a way that works for how it
# got there: ip's generic mode, xdp-filter (libxdp), another bloomblock instance's
# bpf_link; --force replaces it; unload never removes one it did not attach. TAP
# output; root needed.
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

e2e_begin

V4=198.51.100.1
LIST=$BB_TMP/hook.txt
printf '198.51.100.2\n' >"$LIST"
FOREIGN=$BB_ROOT/.output/xxhash_test.bpf.o	# a program of this project's, not bloomblock's
OTHER=/sys/fs/bpf/$BB_TAG-other
# xdp-filter's pins (libxdp) are left as they were found
had_xdp_filter=0 had_xdp=0
[ -e /sys/fs/bpf/xdp-filter ] && had_xdp_filter=1
[ -e /sys/fs/bpf/xdp ] && had_xdp=1
hook_cleanup() {
	timeout 20 "$BB" --pin-dir "$OTHER" unload --all >/dev/null 2>&1
	[ "$had_xdp_filter" = 0 ] && rm -rf /sys/fs/bpf/xdp-filter
	[ "$had_xdp" = 0 ] && rm -rf /sys/fs/bpf/xdp
	cleanup
}
trap hook_cleanup EXIT

xdp_prog() { in_dut ip -d link show dev bbd0 | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' | head -n 1; }
in_dut_bpffs() { nsenter --net="/run/netns/$NS_DUT" "$@"; }

[ -e "$FOREIGN" ] || bail "$FOREIGN is missing: make tests first"

# ---- a generic-mode program attached with ip ---------------------------------------------
run in_dut ip link set dev bbd0 xdpgeneric obj "$FOREIGN" sec xdp
check_rc "a foreign program attached with ip (generic mode)" 0
id=$(xdp_prog)
run bb load "$LIST" -i bbd0
check_rc "load -i bbd0 refuses: exit 1" 1
check_match "... naming the program: its id and name, generic mode" \
	"already has an XDP program bloomblock did not attach: id $id, \"[a-z_0-9]+\" \\(generic mode\\)" "$err"
check_match "... and how to remove it: xdpgeneric off, not xdp off" \
	'remove it: ip link set dev bbd0 xdpgeneric off' "$err"
check_match "... or --force" 'or load --force to replace it' "$err"
check_eq "the foreign program is still attached" "$(xdp_prog)" "$id"
run in_dut ip link set dev bbd0 xdpgeneric off
check_rc "the advice works: ip link set dev bbd0 xdpgeneric off" 0
check_eq "... nothing attached after it" "$(xdp_prog)" ""
run bb load "$LIST" -i bbd0
check_rc "load -i bbd0 then attaches" 0
expect_blocked "... and drops the listed source" 198.51.100.2 $V4
run bb unload -i bbd0
check_rc "unload -i bbd0" 0

# ---- --force replaces it -------------------------------------------------------------------
in_dut ip link set dev bbd0 xdpgeneric obj "$FOREIGN" sec xdp
id=$(xdp_prog)
run bb load "$LIST" -i bbd0 --force
check_rc "load --force -i bbd0 exits 0" 0
check_match "... saying what it replaced" "bbd0: replaced XDP program $id \"[a-z_0-9]+\" \\(--force\\)" "$err"
check_ne "... another program attached now" "$(xdp_prog)" "$id"
expect_blocked "... bloomblock's: the listed source is dropped" 198.51.100.2 $V4

# ---- unload never removes what it did not attach --------------------------------------------
run bb unload -i bbd0
check_rc "unload -i bbd0" 0
in_dut ip link set dev bbd0 xdpgeneric obj "$FOREIGN" sec xdp
id=$(xdp_prog)
run bb load "$LIST" -i bbd0 --hook tc-ingress
check_rc "load at tc-ingress beside the foreign XDP program" 0
run bb unload -i bbd0
check_rc "unload -i bbd0 (bloomblock's tc filter)" 0
check_eq "... the foreign XDP program is still attached, untouched" "$(xdp_prog)" "$id"
run bb unload --all
check_rc "unload --all" 0
check_eq "... and still after unload --all" "$(xdp_prog)" "$id"
in_dut ip link set dev bbd0 xdpgeneric off

# ---- xdp-filter (libxdp) ---------------------------------------------------------------------
if command -v xdp-filter >/dev/null; then
	run in_dut_bpffs xdp-filter load -m skb bbd0
	check_rc "xdp-filter load -m skb bbd0" 0
	id=$(xdp_prog)
	run bb load "$LIST" -i bbd0
	check_rc "load -i bbd0 refuses xdp-filter's program" 1
	check_match "... naming it" "id $id, \"xdpfilt_[a-z_]+\"" "$err"
	check_match "... the advice: xdp-filter unload bbd0" 'xdp-filter unload bbd0' "$err"
	run in_dut_bpffs xdp-filter unload bbd0
	check_rc "the advice works" 0
	check_eq "... nothing attached after it" "$(xdp_prog)" ""
else
	tap_skip "xdp-filter's program is refused" "xdp-filter not installed (xdp-tools)"
fi

# ---- another bloomblock instance's bpf_link ---------------------------------------------------
run timeout 30 nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$OTHER" load "$LIST" -i bbd0
check_rc "another instance ($OTHER) loads on bbd0" 0
id=$(xdp_prog)
run bb load "$LIST" -i bbd0
check_rc "load -i bbd0 refuses the other instance's program" 1
check_match "... naming that instance's pin dir and its unload" \
	"another bloomblock instance holds it: bloomblock --pin-dir $OTHER unload -i bbd0" "$err"
check_eq "... its program still attached" "$(xdp_prog)" "$id"
run timeout 30 nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$OTHER" unload -i bbd0
check_rc "the advice works: that instance's unload" 0
run bb load "$LIST" -i bbd0
check_rc "then load -i bbd0 attaches" 0
run bb unload --all
check_rc "unload --all" 0

tap_done
