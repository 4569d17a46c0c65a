#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The pinned objects are readable with plain bpftool: the stats map prints named
# counters whose per-CPU sums are what `bloomblock stats` says, and the program,
# the link and the filter map are where the design puts them. TAP; root needed.
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

command -v bpftool >/dev/null || skip_all "needs bpftool"
e2e_begin

LIST=$BB_TMP/list.txt
printf '198.51.100.2\n2001:db8:51::2\n' >"$LIST"
check "load" bb load "$LIST" -i bbd0
ping_from 198.51.100.2 198.51.100.1
ping_from 198.51.100.3 198.51.100.1
ping_from 2001:db8:51::2 2001:db8:51::1

run bpftool map dump pinned "$BB_PIN_DIR/stats"
check_rc "bpftool map dump pinned .../stats exits 0" 0
for name in packets dropped ip4_hits ip6_hits passed; do
	check_match "bpftool's dump names the counter '$name'" "\"?$name\"?:? +[0-9]+" "$out"
done

# Per-CPU sums from bpftool equal bloomblock's (retry if a stray packet lands between reads).
sum='[.[0].formatted.values[].value] | reduce .[] as $c ({}; reduce ($c | keys[]) as $k (.; .[$k] += $c[$k]))'
for _ in 1 2 3; do
	a=$(bpftool -j map dump pinned "$BB_PIN_DIR/stats" | jq -cS "$sum")
	b=$(bb stats -j | jq -cS .)
	[ "$a" = "$b" ] && break
	sleep 0.3
done
check_eq "bpftool's per-CPU sums equal bloomblock stats -j" "$a" "$b"
check_ge "... and they saw drops" "$(jq -r .dropped <<<"$b")" 1

run bpftool prog show pinned "$BB_PIN_DIR/prog_xdp"
check_match "the pinned program is an XDP program" 'xdp' "$out"
st=$(bb status -j)
link_pin=$(ls "$BB_PIN_DIR"/link_xdp_bbd0:* 2>/dev/null)	# :NETNS, the namespace's inode
check_eq "the link's pin names bbd0 and this network namespace" "$link_pin" \
	"$BB_PIN_DIR/link_xdp_bbd0:$(stat -L -c %i "/run/netns/$NS_DUT")"
run bpftool -j link show pinned "$link_pin"
check_eq "the pinned link is the XDP link status reports for bbd0" \
	"$(jq -r '"\(.type) \(.id) \(.prog_id)"' <<<"$out" 2>&1)" \
	"$(jq -r '.interfaces[] | select(.ifname == "bbd0") | "xdp \(.link_id) \(.prog_id)"' <<<"$st")"
check_match "ip link shows that program on bbd0" "prog/xdp id $(jq -r '.interfaces[0].prog_id' <<<"$st") " \
	"$(in_dut ip -d link show dev bbd0)"
run bpftool -j map show pinned "$BB_PIN_DIR/filters"
check_eq "the filter slot is an array of maps" "$(jq -r .type <<<"$out" 2>&1)" array_of_maps

tap_done
