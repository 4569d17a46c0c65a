#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End to end, sharing the XDP hook: load never replaces an XDP program it did not
# attach (without --force), and says how to remove it in a way that works for how it
# got there: ip's generic mode, xdp-filter (libxdp), another bloomblock instance's
# bpf_link; --force replaces it; unload never removes one it did not attach. At tc,
# bloomblock's filter (its priority and handle) runs between two filters of another
# program's, one before it and one after, that load, reload and unload leave as they
# were. TAP output; root needed.
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
TC_OTHER=$BB_ROOT/.output/tc_count_test.bpf.o	# counts what it sees, lets the next filter decide
[ -e "$TC_OTHER" ] || bail "$TC_OTHER is missing: make tests first"

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

# ---- tc: another program's filters on the same hook, before and after bloomblock's -----------
# tc_filters: "pref handle prog_name" of each filter on bbd0 ingress
tc_filters() {
	in_dut tc -j filter show dev bbd0 ingress |
		jq -r '.[] | select(.options) | "\(.pref) \(.options.handle) \(.options.prog.name)"' | sort -n
}
# tc_seen HANDLE: the packets tc_count_test under that handle counted
tc_seen() {
	local id map
	id=$(in_dut tc -j filter show dev bbd0 ingress |
		jq -r --arg h "$1" '.[] | select(.options.handle == $h) | .options.prog.id')
	map=$(bpftool -j prog show id "$id" | jq -r '.map_ids[0]')
	# the value as BTF formats it, else its bytes ("0x0e", little-endian) added up
	bpftool -j map lookup id "$map" key 0 0 0 0 | jq -r '.formatted.value // (.value | reverse |
		map(ltrimstr("0x") | explode | map(if . >= 97 then . - 87 else . - 48 end) |
		    .[0] * 16 + .[1]) | reduce .[] as $b (0; . * 256 + $b))'
}
in_dut tc qdisc add dev bbd0 clsact
run in_dut tc filter add dev bbd0 ingress prio 1 handle 0x77 bpf da obj "$TC_OTHER" sec tc
check_rc "another program's tc filter at priority 1 (before bloomblock's)" 0
run in_dut tc filter add dev bbd0 ingress prio 60000 handle 0x78 bpf da obj "$TC_OTHER" sec tc
check_rc "... and one at priority 60000 (after it)" 0
before=$(tc_filters)
run bb load "$LIST" -i bbd0 --hook tc-ingress
check_rc "load --hook tc-ingress beside them" 0
bb_pref=$((0xb10c))
check_match "bloomblock's filter at its documented priority ($bb_pref)" "^$bb_pref 0x[0-9a-f]+ bloomblock_tc_i" \
	"$(tc_filters)"
check_eq "... and the other two as they were" "$(tc_filters | grep -v "^$bb_pref ")" "$before"
expect_blocked "at tc: the listed source is dropped" 198.51.100.2 $V4
expect_pass "at tc: an unlisted source passes" 198.51.100.3 $V4
first=$(tc_seen 0x77) last=$(tc_seen 0x78)
check_ge "the filter before bloomblock's saw every ping (both sources)" "$first" 6
check_ge "the filter after it saw the passed ones" "$last" 3
check_ge "... and not the dropped ones (it saw fewer)" "$((first - last))" 3
run bb load "$LIST"
check_rc "a reload at tc" 0
check_eq "... leaves the other filters as they were" "$(tc_filters | grep -v "^$bb_pref ")" "$before"
check_ge "... with their counts" "$(tc_seen 0x77)" "$first"
run bb unload -i bbd0
check_rc "unload -i bbd0" 0
check_eq "unload removes bloomblock's filter only" "$(tc_filters)" "$before"
check_match "... and leaves the clsact qdisc they need" 'clsact' "$(in_dut tc qdisc show dev bbd0)"
expect_pass "... and the other filters pass traffic as before" 198.51.100.2 $V4
in_dut tc qdisc del dev bbd0 clsact

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

# ---- libxdp's dispatcher: freplace, probed; the plain link said -------------------------------
run bb status -j
freplace=$(jq -r '.xdp_attach.freplace' <<<"$out")
why=$(jq -r '.xdp_attach.why' <<<"$out")
check_match "status -j says how XDP is attached (a bpf_link) and whether freplace works" \
	'^(true|false)$' "$freplace"
run bb status
check_match "status says it: xdp attach, a plain bpf_link" '^xdp attach +a plain bpf_link' "$out"
run bb unload --all
check_rc "unload --all" 0
if command -v xdp-loader >/dev/null; then
	# libxdp's own check, on the same kernel: does it fall back to a single program?
	run in_dut_bpffs xdp-loader load -m skb -vv bbd0 "$FOREIGN"
	check_rc "xdp-loader loads a program (libxdp)" 0
	if grep -q 'Compatibility check for dispatcher program failed' <<<"$err"; then libxdp=false
	else libxdp=true; fi
	check_eq "bloomblock's freplace probe agrees with libxdp's own check" "$freplace" "$libxdp"
	run in_dut_bpffs xdp-loader unload --all bbd0
	[ "$had_xdp" = 0 ] && rm -rf /sys/fs/bpf/xdp
else
	tap_skip "the probe agrees with libxdp" "xdp-loader not installed (xdp-tools)"
fi
if [ "$freplace" = false ]; then
	check_match "... naming the kernel's refusal" 'refuses an extension \(freplace\) program' "$why"
	# the one skip CI allows: the refusal is the kernel's, proved just above twice
	tap_skip_kernel "attach through libxdp's dispatcher beside another program" \
		"it refuses freplace ($why; libxdp falls back too): a plain bpf_link, as status says"
else
	tap_not_ok "attach through libxdp's dispatcher beside another program: freplace works here, and bloomblock does not attach through the dispatcher yet"
fi

tap_done
