#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The pinned objects are readable with plain bpftool: the stats map prints named
# counters, a slot a hook, whose sums over slots and CPUs are what `bloomblock stats`
# says, and the program, the link and the filter map are where the design puts them.
# A pinned map another version made is refused by name. TAP; root needed.
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
# Then nothing more reaches bbd0 (no neighbour discovery, no router solicitation): the
# counters hold still, so two readings of them, bpftool's and bloomblock's, cannot race.
ip -n "$NS_SRC" link set bbs0 down

run bpftool map dump pinned "$BB_PIN_DIR/stats"
check_rc "bpftool map dump pinned .../stats exits 0" 0
for name in packets dropped ip4_hits ip6_hits passed; do
	check_match "bpftool's dump names the counter '$name'" "\"?$name\"?:? +[0-9]+" "$out"
done

# A slot a hook (include/bloomblock.h: BB_STATS_SLOTS): key 1 is XDP's, where the drops are.
check_eq "the stats map: 4 slots, one a hook (0 none's, 1 xdp, 2 tc-ingress, 3 tc-egress)" \
	"$(bpftool -j map dump pinned "$BB_PIN_DIR/stats" | jq -c '[.[].formatted.key]')" "[0,1,2,3]"
xdp_dropped='[.[] | select(.formatted.key == 1) | .formatted.values[].value.dropped] | add'
check_ge "... key 1 (xdp) holds the drops" \
	"$(bpftool -j map dump pinned "$BB_PIN_DIR/stats" | jq "$xdp_dropped")" 1
tc_packets='[.[] | select(.formatted.key != 1) | .formatted.values[].value.packets] | add'
check_eq "... the others none: nothing is attached at tc" \
	"$(bpftool -j map dump pinned "$BB_PIN_DIR/stats" | jq "$tc_packets")" 0

# Sums over slots and CPUs from bpftool equal bloomblock's (the link is down: no packet
# lands between the reads).
sum='[.[].formatted.values[].value] | reduce .[] as $c ({}; reduce ($c | keys[]) as $k (.; .[$k] += $c[$k]))'
a=$(bpftool -j map dump pinned "$BB_PIN_DIR/stats" | jq -cS "$sum")
b=$(bb stats -j | jq -cS .)
check_eq "bpftool's per-CPU sums equal bloomblock stats -j" "$a" "$b"
check_ge "... and they saw drops" "$(jq -r .dropped <<<"$b")" 1

# stats --by-hook: the same slots, a column (-j: an object) a hook beside the total
h=$(bb stats --by-hook -j)
check_eq "stats --by-hook -j: its total is stats -j" "$(jq -cS .total <<<"$h")" "$b"
check_eq "... an object a hook, no 'any' (this version's instance)" "$(jq -c 'keys' <<<"$h")" \
	'["tc-egress","tc-ingress","total","xdp"]'
check_eq "... the drops at xdp" "$(jq '.xdp.dropped' <<<"$h")" "$(jq '.total.dropped' <<<"$h")"
check_eq "... none at tc" "$(jq '."tc-ingress".packets + ."tc-egress".packets' <<<"$h")" 0
run bb stats --by-hook
check_match "stats --by-hook: a column a hook" '^counter +total +xdp +tc-ingress +tc-egress$' "$out"
check_match "... the drops in the xdp column" "^dropped +([0-9]+) +\\1 +0 +0\$" "$out"

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

# A pinned map another version made (here: the stats map of one slot, as before a slot a
# hook) cannot be shared by this version's programs: the load says which and what to do.
OLD_PIN=$BB_PIN_DIR-old
mkdir -p "$OLD_PIN"
bpftool map create "$OLD_PIN/stats" type percpu_array key 4 value "$(bpftool -j map show pinned "$BB_PIN_DIR/stats" | jq .bytes_value)" entries 1 name stats
run timeout "$BB_TIMEOUT" nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$OLD_PIN" load "$LIST"
check_rc "a stats map of one slot (another version's) pinned: load fails" nonzero
check_match "... naming the map, the sizes and the way out" \
	"$OLD_PIN/stats: made by another version of bloomblock \\(1 entries of [0-9]+ bytes; this version's: 4 of [0-9]+\\).*unload --all" "$err"
run timeout "$BB_TIMEOUT" nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$OLD_PIN" unload --all
check_rc "... and unload --all removes it" 0
check_eq "... nothing of the instance's left" "$(ls -A "$OLD_PIN" 2>&1)" ""
check "... in the directory this test made, which bloomblock did not, so it stays" \
	test -d "$OLD_PIN"
rm -rf "$OLD_PIN"	# whatever a failure above left

tap_done
