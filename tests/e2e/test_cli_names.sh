#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The CLI's options for name screening, without traffic: --hook, --addr, the port
# lists, --mark and --block-quic are parsed strictly (exit 2, nothing created), land
# in the filter's config block as given (read back with plain bpftool), and survive
# a reload unless given again; `status` names the hooks; `unload -i` removes XDP and
# tc attachments alike; two instances share a tc hook. TAP; root needed (else skipped).
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

command -v tc >/dev/null || skip_all "needs tc (iproute2)"
BB_PIN_DIR2=${BB_PIN_DIR}-b	# a second instance on the same interface
cli_names_cleanup() {
	case $BB_PIN_DIR2 in
	/sys/fs/bpf/?*)
		if [ -d "$BB_PIN_DIR2" ]; then
			[ -e "/run/netns/$NS_DUT" ] && timeout 20 nsenter --net="/run/netns/$NS_DUT" "$BB" \
				--pin-dir "$BB_PIN_DIR2" unload --all >/dev/null 2>&1
			rm -rf "$BB_PIN_DIR2"
		fi ;;
	esac
	cleanup
}
e2e_begin
trap cli_names_cleanup EXIT

LIST=$BB_TMP/list.txt
printf 'evil.example\nphish.test/login/\n203.0.113.0/24\n' >"$LIST"
bb2() { timeout "$BB_TIMEOUT" nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$BB_PIN_DIR2" "$@"; }
hooks() { bb status -j | jq -r '[.interfaces[] | .ifname + ":" + .hook] | sort | join(",")'; }
# tc_ids DIR [PREF]: the program ids of the tc filters on bbd0's DIR at PREF (0xb10c,
# bloomblock's screening filters; 45325 is the reset helper beside an XDP attachment)
tc_ids() {
	in_dut tc filter show dev bbd0 "$1" pref "${2:-45324}" 2>/dev/null |
		sed -n 's/.* id \([0-9]*\) .*/\1/p' | sort | tr '\n' ' '
}
has_xdp() { in_dut ip link show dev bbd0 | grep -q 'xdp'; }
has_clsact() { in_dut tc qdisc show dev bbd0 | grep -q clsact; }

# ---- usage errors: exit 2, and nothing is created or attached ------------------------------
# usage_error NAME ARGS...: `load LIST -i bbd0 ARGS` exits 2 and leaves no pin dir (few
# processes a case: on a loaded machine each costs; what is attached is checked after all)
usage_error() {
	local name=$1 r
	shift
	bb load "$LIST" -i bbd0 "$@" >/dev/null 2>"$BB_TMP/usage.err"
	r=$?
	if [ "$r" = 2 ] && [ ! -e "$BB_PIN_DIR" ]; then
		tap_ok "$name"
	else
		tap_not_ok "$name"; echo "# load ... $*: exit $r (expected 2); pin dir $(test -e "$BB_PIN_DIR" && echo exists || echo absent)"
		diag "$(<"$BB_TMP/usage.err")"
		bb unload --all >/dev/null 2>&1
	fi
}
usage_error "--hook bogus exits 2" --hook bogus
usage_error "--hook XDP (case matters) exits 2" --hook XDP
usage_error "--hook tc exits 2" --hook tc
usage_error "--hook without a value exits 2" --hook
usage_error "--hook with a good and a bad value exits 2" --hook xdp --hook tc-sideways
run bb load "$LIST" -i bbd0 --hook bogus
check_match "--hook bogus: the message names the choices" 'xdp.*tc-ingress.*tc-egress' "$err"
usage_error "--addr bogus exits 2" --addr bogus
for bad in 0 65536 99999999999 -1 a 0x35 '' ,53 53,,54 1,2,3,4,5 '53 '; do
	usage_error "--dns-ports '$bad' exits 2" --dns-ports "$bad"
done
for opt in --tls-ports --http-ports --quic-ports; do	# the same parser
	for bad in 0 65536 a 1,2,3,4,5; do
		usage_error "$opt '$bad' exits 2" "$opt" "$bad"
	done
done
run bb load "$LIST" -i bbd0 --dns-ports 70000
check_match "a bad port list: the message says what a port list is" '1-65535' "$err"
for bad in 42x '' 4294967296 -1 0x1ffffffff abc; do
	usage_error "--mark '$bad' exits 2" --mark "$bad"
done
run bb load "$LIST" -i bbd0 --mark junk
check_match "--mark junk: the message says a 32-bit number" '32-bit' "$err"
check_fails "after the usage errors: no XDP on bbd0" has_xdp
check_eq "after the usage errors: no tc filter on bbd0" "$(tc_ids ingress)$(tc_ids egress)" ""

# ---- the config block, read back with bpftool ------------------------------------------------------
# bb_config: "dns=P P P P tls=... http=... quic=... mark=M" from element 1 of the live
# filter map (include/bloomblock.h: struct bb_config, little-endian)
bb_config() {
	local ids b=() x i p=()
	ids=$(bpftool -j map lookup pinned "$BB_PIN_DIR/filters" key 0 0 0 0 | jq -r '.value[]') || return 1
	# shellcheck disable=SC2086
	set -- $ids
	[ $# = 4 ] || return 1
	for x in $(bpftool -j map lookup id $(($1 | $2 << 8 | $3 << 16 | $4 << 24)) key 1 0 0 0 |
		jq -r '.value[]'); do
		b+=($((x)))
	done
	[ ${#b[@]} = 64 ] || return 1
	for i in $(seq 0 15); do p+=($((b[2 * i] | b[2 * i + 1] << 8))); done
	echo "dns=${p[*]:0:4} tls=${p[*]:4:4} http=${p[*]:8:4} quic=${p[*]:12:4}" \
		"mark=$((b[32] | b[33] << 8 | b[34] << 16 | b[35] << 24))"
}
if command -v bpftool >/dev/null; then
	run bb load "$LIST" -i bbd0
	check_rc "load with default options exits 0" 0
	check_eq "defaults: DNS 53, TLS 443, HTTP 80 and 8080, QUIC 443, no mark" "$(bb_config)" \
		"dns=53 0 0 0 tls=443 0 0 0 http=80 8080 0 0 quic=443 0 0 0 mark=0"
	run bb load "$LIST" --dns-ports 5353,53 --tls-ports 443,8443,853,4433 --http-ports 8000 \
		--quic-ports 443,8443 --mark 0x2a
	check_rc "reload with every port list and --mark 0x2a exits 0" 0
	check_eq "the ports and the mark land in the config as given" "$(bb_config)" \
		"dns=5353 53 0 0 tls=443 8443 853 4433 http=8000 0 0 0 quic=443 8443 0 0 mark=42"
	run bb load "$LIST" --http-ports 80
	check_eq "a reload keeps what it does not give" "$(bb_config)" \
		"dns=5353 53 0 0 tls=443 8443 853 4433 http=80 0 0 0 quic=443 8443 0 0 mark=42"
	run bb load "$LIST" --mark 4294967295
	check_rc "--mark 4294967295 exits 0" 0
	check_eq "--mark 4294967295 is stored" "$(bb_config | sed 's/.*mark=//')" 4294967295
	run bb load "$LIST" --mark 42
	check_eq "--mark 42 (decimal) is stored" "$(bb_config | sed 's/.*mark=//')" 42
	run bb load "$LIST" --mark 0
	check_eq "--mark 0 clears it" "$(bb_config | sed 's/.*mark=//')" 0

	# An instance whose live filter has another ABI was loaded by another bloomblock
	# version: its programs would refuse this version's filter, so load refuses.
	# set_abi N: write N into the live header's abi_version (byte 8), echo the old one.
	set_abi() {
		local ids inner b=()
		ids=$(bpftool -j map lookup pinned "$BB_PIN_DIR/filters" key 0 0 0 0 | jq -r '.value[]')
		# shellcheck disable=SC2086
		set -- $ids "$1"
		inner=$(($1 | $2 << 8 | $3 << 16 | $4 << 24))
		for x in $(bpftool -j map lookup id "$inner" key 0 0 0 0 | jq -r '.value[]'); do
			b+=($((x)))
		done
		echo "${b[8]}"
		b[8]=$5
		bpftool map update id "$inner" key 0 0 0 0 value "${b[@]}"
	}
	gen=$(bb_status .filter.generation)
	abi=$(set_abi 2)
	run bb load "$LIST"
	check_rc "load onto an instance of another filter ABI exits 1" 1
	check_match "... and says another version loaded it" 'another bloomblock version' "$err"
	set_abi "$abi" >/dev/null
	check_eq "... and leaves the live filter (generation $gen)" "$(bb_status .filter.generation)" "$gen"
	run bb unload -i bbd0
else
	tap_skip "the config block, read back with bpftool" "needs bpftool"
fi

# ---- --addr and --block-quic are accepted and reloads keep them ------------------------------------
run bb load "$LIST" -i bbd0 --addr both --block-quic
check_rc "--addr both --block-quic exits 0" 0
run bb load "$LIST" --addr peer
check_rc "reload --addr peer exits 0" 0
run bb unload -i bbd0

# ---- hooks: status names them, unload -i removes them all ---------------------------------------------
run bb load "$LIST" -i bbd0 --hook xdp --hook tc-ingress --hook tc-egress
check_rc "load --hook xdp --hook tc-ingress --hook tc-egress exits 0" 0
check_match "load reports tc ingress" 'bbd0: attached \(tc ingress\)' "$err$out"
check_match "load reports tc egress" 'bbd0: attached \(tc egress\)' "$err$out"
check_match "load reports XDP" 'bbd0: attached \((native|generic) XDP\)' "$err$out"
check_eq "status -j: the three hooks on bbd0" "$(hooks)" "bbd0:tc-egress,bbd0:tc-ingress,bbd0:xdp"
st=$(bb status -j)
check_eq "status -j: xdp_mode is none for tc hooks" \
	"$(jq -r '[.interfaces[] | select(.hook != "xdp") | .xdp_mode] | unique | join(",")' <<<"$st")" none
check_match "status -j: xdp_mode native or generic for the xdp hook" '^(native|generic)$' \
	"$(jq -r '.interfaces[] | select(.hook == "xdp") | .xdp_mode' <<<"$st")"
check_eq "status -j: the tc-ingress prog id is the one tc shows" \
	"$(jq -r '.interfaces[] | select(.hook == "tc-ingress") | .prog_id' <<<"$st") " "$(tc_ids ingress)"
check_eq "status -j: the tc-egress prog id is the one tc shows" \
	"$(jq -r '.interfaces[] | select(.hook == "tc-egress") | .prog_id' <<<"$st") " "$(tc_ids egress)"
check "ip link shows XDP on bbd0" has_xdp
run bb status
check_match "status (text) names tc-ingress" 'bbd0 .*tc-ingress' "$out"
check_match "status (text) names tc-egress" 'bbd0 .*tc-egress' "$out"
check_match "status (text) names xdp" 'bbd0 .*xdp' "$out"
gen=$(bb_status .filter.generation)
run bb load "$LIST" -i bbd0 --hook tc-egress --hook xdp
check_rc "load again with hooks already attached exits 0 (a reload)" 0
check_no_match "... and attaches nothing twice" 'attached' "$err$out"
check_eq "... generation +1" "$(bb_status .filter.generation)" $((gen + 1))
check_eq "... still three hooks" "$(hooks)" "bbd0:tc-egress,bbd0:tc-ingress,bbd0:xdp"
run bb unload -i bbd0
check_rc "unload -i bbd0 exits 0" 0
check_eq "unload -i: no tc filter left on bbd0 ingress or egress" "$(tc_ids ingress)$(tc_ids egress)" ""
check_fails "unload -i: no XDP left on bbd0" has_xdp
check_fails "unload -i: the pin dir is gone" test -e "$BB_PIN_DIR"
check_fails "unload -i: the clsact qdisc load added is gone" has_clsact
run bb unload -i bbd0
check_rc "unload -i bbd0 again exits 0 (nothing is left attached there)" 0
check_match "... and says nothing is loaded" 'nothing is loaded' "$err$out"

# unload --hook: tc off, XDP kept; then XDP off
run bb load "$LIST" -i bbd0 --hook xdp --hook tc-ingress
check_rc "load --hook xdp --hook tc-ingress exits 0" 0
run bb unload -i bbd0 --hook tc-ingress
check_rc "unload -i bbd0 --hook tc-ingress exits 0" 0
check_eq "... tc ingress is gone, XDP stays" "$(hooks)" "bbd0:xdp"
check_eq "... no screening tc filter left" "$(tc_ids ingress)" ""
check_ne "... the XDP attachment's reset helper stays at tc ingress" "$(tc_ids ingress 45325)" ""
check "... the pin dir stays (XDP is attached)" test -e "$BB_PIN_DIR"
run bb unload -i bbd0 --hook tc-egress
check_rc "unload --hook of a hook not attached exits 0" 0
check_match "... and says so" 'not attached there \(at those hooks\)' "$err$out"
check_eq "... XDP still there" "$(hooks)" "bbd0:xdp"
run bb unload -i bbd0 --hook xdp
check_rc "unload -i bbd0 --hook xdp exits 0" 0
check_eq "... its reset helper gone with it" "$(tc_ids ingress 45325)" ""
check_fails "... and the emptied clsact qdisc" has_clsact
check_fails "... nothing left: the pin dir is gone" test -e "$BB_PIN_DIR"
run bb unload --all --hook xdp
check_rc "unload --all --hook exits 2 (--all is everything)" 2

# tc only: no XDP at all
run bb load "$LIST" -i bbd0 --hook tc-egress
check_rc "load --hook tc-egress alone exits 0" 0
check_eq "tc-egress alone: status -j shows only it" "$(hooks)" "bbd0:tc-egress"
check_fails "tc-egress alone: no XDP on bbd0" has_xdp
check_eq "tc-egress alone: nothing at tc ingress" "$(tc_ids ingress)" ""
# the XDP family is loaded only when a load asks for the XDP hook
table_len() { bpftool -j map dump pinned "$BB_PIN_DIR/$1" 2>/dev/null | jq length; }
check_fails "tc-egress alone: the XDP programs are not loaded (no prog_xdp pin)" \
	test -e "$BB_PIN_DIR/prog_xdp"
check "tc-egress alone: the tc programs are (prog_tc_egress pinned)" test -e "$BB_PIN_DIR/prog_tc_egress"
if command -v bpftool >/dev/null; then
	check_eq "tc-egress alone: the tc tail-call table holds the URL, answer (2) and reset programs" \
		"$(table_len url_tc)" 4
	check_eq "tc-egress alone: the XDP tail-call table is empty" "$(table_len url_xdp)" 0
else
	tap_skip "tc-egress alone: the tail-call tables, read with bpftool" "needs bpftool"
fi
run bb load "$LIST" -i bbd0
check_eq "a later load -i without --hook adds XDP (the default hook)" "$(hooks)" "bbd0:tc-egress,bbd0:xdp"
check "... loading the XDP programs then (prog_xdp pinned)" test -e "$BB_PIN_DIR/prog_xdp"
if command -v bpftool >/dev/null; then
	check_eq "... and filling the XDP tail-call table (URL, answer, reset programs)" \
		"$(table_len url_xdp)" 3
	check_eq "... the tc one as it was" "$(table_len url_tc)" 4
else
	tap_skip "the added XDP family's tail-call table, read with bpftool" "needs bpftool"
fi

# two instances (pin dirs) on the same tc hook: each its own tc filter
run bb2 load "$LIST" -i bbd0 --hook tc-egress
check_rc "a second instance on the same tc hook loads" 0
check_eq "two tc filters on bbd0 egress" "$(wc -w <<<"$(tc_ids egress)")" 2
check_eq "the second instance's status shows its own hook" \
	"$(bb2 status -j | jq -r '[.interfaces[] | .ifname + ":" + .hook] | join(",")')" "bbd0:tc-egress"
run bb unload -i bbd0
check_rc "unload -i bbd0 of the first instance exits 0" 0
check_eq "the second instance's tc filter stays" "$(tc_ids egress)" \
	"$(bb2 status -j | jq -r '.interfaces[0].prog_id') "
check_fails "the first instance's pin dir is gone" test -e "$BB_PIN_DIR"
check "the clsact qdisc stays: the second instance's filter is on it" has_clsact
run bb2 unload -i bbd0
check_rc "unload -i bbd0 of the second instance exits 0" 0
check_eq "no tc filter left on bbd0" "$(tc_ids ingress)$(tc_ids egress)" ""
check_fails "... and no clsact qdisc" has_clsact
check_fails "the second instance's pin dir is gone" test -e "$BB_PIN_DIR2"

# unload --all (in the namespace of the attachments) removes tc and XDP too
run bb load "$LIST" -i bbd0 --hook tc-ingress --hook xdp
run bb unload --all
check_rc "unload --all exits 0" 0
check_eq "unload --all: no tc filter left" "$(tc_ids ingress)$(tc_ids egress)" ""
check_fails "unload --all: no XDP left" has_xdp
check_fails "unload --all: the pin dir is gone" test -e "$BB_PIN_DIR"

# one instance, however its pin dir is spelled: /x, /x/, //x, /./x
bbp() { timeout "$BB_TIMEOUT" nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$1" "${@:2}"; }
tag=${BB_PIN_DIR#/sys/fs/bpf/}
out=$(bbp "$BB_PIN_DIR" load "$LIST" -i bbd0 --hook tc-ingress 2>&1)
check_eq "pin dir /sys/fs/bpf/$tag: loaded, one tc filter" "$(tc_ids ingress | wc -w)" 1
out=$(bbp "$BB_PIN_DIR/" load "$LIST" -i bbd0 --hook tc-ingress 2>&1)
out=$(bbp "/sys/fs/bpf//$tag" load "$LIST" -i bbd0 --hook tc-ingress 2>&1)
out=$(bbp "/sys/fs/bpf/./$tag" load "$LIST" -i bbd0 --hook tc-ingress 2>&1)
check_eq "... spelled /x/, //x and /./x: still the one tc filter (a reload each)" \
	"$(tc_ids ingress | wc -w)" 1
check_eq "... one pin dir" "$(find /sys/fs/bpf -maxdepth 1 -name "$tag*" | wc -l)" 1
out=$(bbp "/sys/fs/bpf//$tag/" unload -i bbd0 2>&1)
check_eq "... and one unload, spelled //x/, leaves no filter" "$(tc_ids ingress)" ""
check_fails "... nor the pin dir" test -e "$BB_PIN_DIR"
mkdir -p "/tmp/bb-not-bpffs-$$"
out=$(bbp "/tmp/bb-not-bpffs-$$/x" load "$LIST" -i bbd0 --hook tc-ingress 2>&1)
rmdir "/tmp/bb-not-bpffs-$$"
check_match "a pin dir off bpffs: said, the advice under /sys/fs/bpf" \
	'not on a BPF filesystem.*--pin-dir /sys/fs/bpf/x' "$out"
check_no_match "... never to mount over /tmp" 'mount -t bpf bpf /tmp' "$out"

tap_done
