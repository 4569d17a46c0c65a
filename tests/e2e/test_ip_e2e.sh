#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End to end, with real packets: load a list of IPv4/IPv6 addresses and CIDRs onto a
# veth in a namespace, ping from listed and unlisted sources in another namespace,
# and follow the filter through status, stats, check, reloads (good and bad, under
# traffic), flag mode and unload. TAP output; root needed (else skipped).
#
#   dut namespace: bbd0  198.51.100.1  2001:db8:51::1      <- bloomblock's XDP program
#   src namespace: bbs0  198.51.100.2 .3  2001:db8:51::2 ::3, 203.0.113.9 .20,
#                        2001:db8:52::9 ::20
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

e2e_begin
netns_add_src 203.0.113.9 && netns_add_src 2001:db8:52::9 && netns_add_src 203.0.113.20 &&
	netns_add_src 2001:db8:52::20 || bail "could not add the CIDR sources"

V4=198.51.100.1 V6=2001:db8:51::1
LIST1=$BB_TMP/list1.txt LIST2=$BB_TMP/list2.txt LIST2B=$BB_TMP/list2b.txt
cat >"$LIST1" <<'EOF'
# bloomblock e2e: first list
198.51.100.2            # a source in the src namespace
2001:db8:51::2          ; an IPv6 source, semicolon comment

203.0.113.0/24
2001:db8:52::/48
; the end
EOF
# The second list flips the verdicts: .3 and ::3 listed, .2 and ::2 and the CIDRs not.
printf '# second list\r\n198.51.100.3\r\n2001:db8:51::3\r\n' >"$LIST2"
# The same verdicts as LIST2 from a differently sized filter (a /16 expands to many keys).
{ cat "$LIST2"; echo 198.18.0.0/16; } >"$LIST2B"

# ---- before loading: every source gets through --------------------------------------
for s in 198.51.100.2 198.51.100.3 203.0.113.9; do expect_pass "baseline: $s reaches $V4" $s $V4; done
for s in 2001:db8:51::2 2001:db8:51::3 2001:db8:52::9; do expect_pass "baseline: $s reaches $V6" $s $V6; done

# ---- load and attach ------------------------------------------------------------------
run bb load "$LIST1" -i bbd0
check_rc "load LIST -i bbd0 exits 0" 0
check_match "load reports bbd0 attached" 'bbd0.*attached' "$out$err"
check "pin dir exists after load" test -d "$BB_PIN_DIR"
check_match "ip link shows an XDP program on bbd0" 'xdp' "$(in_dut ip link show dev bbd0)"

blocked_tx=0
dropped0=$(bb_stat dropped)
expect_blocked "listed 198.51.100.2 is dropped" 198.51.100.2 $V4
expect_pass "unlisted 198.51.100.3 passes" 198.51.100.3 $V4
expect_blocked "listed 2001:db8:51::2 is dropped" 2001:db8:51::2 $V6
expect_pass "unlisted 2001:db8:51::3 passes" 2001:db8:51::3 $V6
expect_blocked "203.0.113.9 (in listed 203.0.113.0/24) is dropped" 203.0.113.9 $V4
expect_blocked "2001:db8:52::9 (in listed 2001:db8:52::/48) is dropped" 2001:db8:52::9 $V6

# ---- stats ------------------------------------------------------------------------------
run bb stats -j
check_rc "stats -j exits 0" 0
stats=$out
check "stats -j is JSON" jq -e . <<<"$stats"
check_ge "dropped grew by at least the $blocked_tx pings from listed sources" \
	$(($(jq -r .dropped <<<"$stats") - dropped0)) "$blocked_tx"
check_ge "ip4_hits > 0" "$(jq -r .ip4_hits <<<"$stats")" 1
check_ge "ip6_hits > 0" "$(jq -r .ip6_hits <<<"$stats")" 1
check_ge "passed > 0 (the unlisted pings)" "$(jq -r .passed <<<"$stats")" 4
check_eq "no_filter is 0" "$(jq -r .no_filter <<<"$stats")" 0
check_eq "flagged is 0 in drop mode" "$(jq -r .flagged <<<"$stats")" 0
check_ge "packets >= dropped + passed" "$(jq -r .packets <<<"$stats")" \
	$(($(jq -r .dropped <<<"$stats") + $(jq -r .passed <<<"$stats")))
run bb stats
check_match "stats (text) names the dropped counter" '^dropped +[0-9]+' "$out"

# ---- check ------------------------------------------------------------------------------
run bb check 198.51.100.2
check_rc "check 198.51.100.2 exits 0" 0
check_eq "check 198.51.100.2 says listed, and where (the key index)" "$out" \
	"198.51.100.2: listed ($LIST1:2)"
run bb check 198.51.100.3
check_rc "check 198.51.100.3 exits 1" 1
check_match "check 198.51.100.3 says not listed" '198\.51\.100\.3.*not listed' "$out"
run bb check 2001:db8:51::2 203.0.113.200 2001:db8:52:ffff::1
check_rc "check of an IPv6 address and addresses inside listed CIDRs exits 0" 0
check_eq "check names each one's line, and a CIDR for an address inside it" "$out" \
	"2001:db8:51::2: listed ($LIST1:3)
203.0.113.200: listed: 203.0.113.0/24 ($LIST1:5)
2001:db8:52:ffff::1: listed: 2001:db8:52::/48 ($LIST1:6)"
run_stdin $'198.51.100.2\n2001:db8:51::2' bb check -
check_rc "check - (stdin, all listed) exits 0" 0
check_eq "check - prints one line per item" "$(grep -c 'listed (' <<<"$out")" 2
run_stdin $'198.51.100.2\n198.51.100.3' bb check -
check_rc "check - (stdin, one not listed) exits 1" 1
check_match "check - reports the unlisted one" '198\.51\.100\.3.*not listed' "$out"
run bb -j check 198.51.100.2 198.51.100.3
check_eq "check -j: listed flags" "$(jq -c '[.[].listed]' <<<"$out" 2>&1)" '[true,false]'

# ---- status -------------------------------------------------------------------------------
run bb status -j
check_rc "status -j exits 0" 0
status1=$out
check_eq "status -j: attached to bbd0" "$(jq -r '[.interfaces[].ifname] | join(",")' <<<"$status1")" bbd0
check_eq "status -j: generation 1" "$(jq -r .filter.generation <<<"$status1")" 1
check_eq "status -j: mode drop" "$(jq -r .filter.mode <<<"$status1")" drop
link1=$(jq -r '.interfaces[0].link_id' <<<"$status1")
prog1=$(jq -r '.interfaces[0].prog_id' <<<"$status1")
run bb -j status
check_eq "-j before the command works too" "$(jq -r .filter.generation <<<"$out" 2>&1)" 1
run timeout 20 nsenter --net="/run/netns/$NS_DUT" "$BB" status --pin-dir "$BB_PIN_DIR" -j
check_eq "--pin-dir after the command works" "$(jq -r .pin_dir <<<"$out" 2>&1)" "$BB_PIN_DIR"
run bb status
check_match "status (text) names bbd0" 'bbd0' "$out"

# ---- add and del: live, through the attached program, no reload ----------------------------
gen_live=$(bb_status .filter.generation)
expect_pass "add: before, 198.51.100.3 passes" 198.51.100.3 $V4
run bb add 198.51.100.3
check_rc "add 198.51.100.3 exits 0" 0
check_eq "add says added" "$out" "198.51.100.3: added"
expect_blocked "add: 198.51.100.3 is dropped at once" 198.51.100.3 $V4
check_eq "add: check says it was added live" "$(bb check 198.51.100.3)" \
	"198.51.100.3: listed (bloomblock add)"
run bb add 198.51.100.2
check_eq "add of a listed item: listed already, exit 0" "$rc:$out" "0:198.51.100.2: listed already"
run bb del 198.51.100.3
check_rc "del 198.51.100.3 exits 0" 0
expect_pass "del: 198.51.100.3 passes again" 198.51.100.3 $V4
run bb del 198.51.100.77
check_rc "del of what no list holds: refused, exit 1" 1
check_match "... says not listed" '^198\.51\.100\.77: not listed' "$out"
run bb del 203.0.113.9
check_rc "del of an address inside a listed /24: refused, exit 1" 1
check_match "... naming the line that blocks it" "not listed as such: .*$LIST1:5" "$out"
expect_blocked "... and it is still dropped" 203.0.113.9 $V4
run_stdin '203.0.113.0/24' bb del -
check_rc "del - (stdin) of the /24 exits 0" 0
expect_pass "del: 203.0.113.9 passes with its /24 deleted" 203.0.113.9 $V4
expect_blocked "del: ... while 198.51.100.2, listed too, is still dropped" 198.51.100.2 $V4
printf '# added\n203.0.113.0/24\n2001:db8:51::3\n' >"$BB_TMP/add.txt"
run bb add -f "$BB_TMP/add.txt"
check_rc "add -f LIST (a /24 and an IPv6 address) exits 0" 0
check_match "add -f: a summary" 'added 2 items' "$err"
expect_blocked "add -f: 203.0.113.9 dropped again" 203.0.113.9 $V4
expect_blocked "add -f: 2001:db8:51::3 dropped" 2001:db8:51::3 $V6
run bb add --max-fp 0.0000001 198.51.100.99
check_rc "add past --max-fp: refused, exit 1" 1
check_match "... saying to load with more capacity" 'nothing added.*--capacity' "$err"
check_eq "... and nothing was added" "$(bb check 198.51.100.99)" "198.51.100.99: not listed"
check_eq "add and del: no reload (generation unchanged)" "$(bb_status .filter.generation)" "$gen_live"
check_eq "status -j: the live changes counted" \
	"$(bb_status '[.index.added_live, .index.deleted_live] | join(",")')" "3,2"
check "status -j: the counting shadow kept" test "$(bb_status .index.shadow_bytes)" -gt 0
check "the shadow is in the state dir" test -s "$BB_STATE_DIR/shadow.bin"
run bb del 2001:db8:51::3
expect_pass "del: 2001:db8:51::3 passes again" 2001:db8:51::3 $V6

# ---- reload with a different list: verdicts flip, no re-attach ----------------------------
run bb load "$LIST2" -i bbd0
check_rc "reload with a different list exits 0" 0
status2=$(bb status -j)
check_eq "reload: generation 2" "$(jq -r .filter.generation <<<"$status2")" 2
check_eq "reload: link id unchanged (no re-attach)" "$(jq -r '.interfaces[0].link_id' <<<"$status2")" "$link1"
check_eq "reload: prog id unchanged" "$(jq -r '.interfaces[0].prog_id' <<<"$status2")" "$prog1"
expect_pass "after reload: 198.51.100.2 passes" 198.51.100.2 $V4
expect_blocked "after reload: 198.51.100.3 is dropped" 198.51.100.3 $V4
expect_pass "after reload: 2001:db8:51::2 passes" 2001:db8:51::2 $V6
expect_blocked "after reload: 2001:db8:51::3 is dropped" 2001:db8:51::3 $V6
expect_pass "after reload: 203.0.113.9 (CIDR no longer listed) passes" 203.0.113.9 $V4
run bb check 198.51.100.3
check_eq "after reload: check names the new list's line (a CRLF list)" "$out" \
	"198.51.100.3: listed ($LIST2:2)"
check_match "status: the index of this filter, its keys and lists" \
	'^index +2 keys from [0-9]+ lists?, [0-9]+ bytes' "$(bb status)"
check_eq "status -j: the index names the list" "$(bb_status '.index.lists[0]')" "$LIST2"

# ---- reloads that must fail and leave the live filter alone ---------------------------------
gen_unchanged() { check_eq "$1: generation still 2" "$(bb_status .filter.generation)" 2; }
missing=$BB_TMP/no-such-list.txt
run bb load "$missing" -i bbd0
check_rc "reload with a nonexistent file fails" nonzero
check_match "the message names the missing file" "no-such-list\.txt" "$err"
gen_unchanged "nonexistent file"

bad=$BB_TMP/bad-line.txt
printf '198.51.100.2\n198.51.100.9\nthis is not a valid entry!\n' >"$bad"
run bb load "$bad" --strict -i bbd0
check_rc "reload --strict with a bad line fails" nonzero
check_match "the message names file:line of the bad line" "bad-line\.txt:3" "$err"
gen_unchanged "--strict bad line"

empty=$BB_TMP/nothing-usable.txt
printf '# only comments\n\n; and junk\nnot!valid\n999.1.2.3\n' >"$empty"
run bb load "$empty"
check_rc "reload with zero usable entries fails" nonzero
check_match "the message names the empty list" "nothing-usable\.txt" "$err"
gen_unchanged "zero usable entries"
check_eq "status after failed reloads: link id unchanged" "$(bb_status '.interfaces[0].link_id')" "$link1"
expect_pass "after failed reloads: 198.51.100.2 still passes" 198.51.100.2 $V4
expect_blocked "after failed reloads: 198.51.100.3 still dropped" 198.51.100.3 $V4

# ---- atomic swap under traffic: listed stays dropped, unlisted stays answered -----------------
nofilter0=$(bb_stat no_filter)
gen0=$(bb_status .filter.generation)
ping_from 198.51.100.3 $V4 300 0.005 >/dev/null &
p_listed=$!
(ping_from 198.51.100.2 $V4 300 0.005 && [ "$ping_rx" = "$ping_tx" ] && [ "$ping_tx" -gt 0 ] ||
	{ echo "# unlisted flood: $ping_tx sent, $ping_rx answered"; exit 1; }) &
p_unlisted=$!
sleep 0.2
reload_fail=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	if [ $((i % 2)) = 1 ]; then l=$LIST2B; else l=$LIST2; fi
	bb load "$l" >/dev/null 2>&1 || reload_fail=$((reload_fail + 1))
done
wait $p_listed
rc_listed=$?
wait $p_unlisted
rc_unlisted=$?
check_eq "10 reloads under traffic succeed" "$reload_fail" 0
check_eq "generation advanced by 10" "$(bb_status .filter.generation)" $((gen0 + 10))
check_eq "no packet of the listed flood got through during the swaps" "$rc_listed" 1
check_eq "every packet of the unlisted flood was answered during the swaps" "$rc_unlisted" 0
check_eq "no packet saw a missing filter (no_filter unchanged)" "$(bb_stat no_filter)" "$nofilter0"

# ---- VLAN-tagged frames (hand-built, tags in the packet data) ---------------------------------
if command -v python3 >/dev/null; then
	s0=$(bb stats -j)
	send_frames 198.51.100.3 $V4 5 10 && send_frames 2001:db8:51::3 $V6 5 10 &&
		send_frames 198.51.100.3 $V4 5 100 10 && send_frames 198.51.100.2 $V4 5 10
	check_eq "raw frames sent" "$?" 0
	sleep 0.2
	s1=$(bb stats -j)
	d() { echo $(($(jq -r ".$1" <<<"$s1") - $(jq -r ".$1" <<<"$s0"))); }
	check_ge "vlan counter counts tagged frames (single and double)" "$(d vlan)" 20
	check_ge "listed sources inside VLAN tags are dropped (v4, v6, QinQ)" "$(d dropped)" 15
	check_ge "ip6_hits counts the tagged IPv6 frames" "$(d ip6_hits)" 5
else
	tap_skip "VLAN-tagged frames" "needs python3"
fi

# ---- flag mode: listed traffic passes and is counted ----------------------------------------
run bb load "$LIST2" --mode flag
check_rc "reload --mode flag exits 0" 0
check_eq "status: mode flag" "$(bb_status .filter.mode)" flag
flagged0=$(bb_stat flagged) dropped0=$(bb_stat dropped)
expect_pass "flag mode: listed 198.51.100.3 passes" 198.51.100.3 $V4
check_ge "flag mode: flagged grew by the pings sent" $(($(bb_stat flagged) - flagged0)) "$ping_tx"
check_eq "flag mode: dropped did not grow" "$(bb_stat dropped)" "$dropped0"
run bb load "$LIST2"
check_eq "a reload without --mode keeps flag" "$(bb_status .filter.mode)" flag
run bb load "$LIST2" --mode drop
check_eq "reload --mode drop: mode drop" "$(bb_status .filter.mode)" drop
expect_blocked "drop mode again: 198.51.100.3 is dropped" 198.51.100.3 $V4

# ---- the allowlist: live, at once, kept across reloads -----------------------------------------
a0=$(bb_stat allowed) gen_a=$(bb_status .filter.generation)
run bb allow 198.51.100.3 2001:db8:51::3
check_rc "allow two listed addresses live exits 0" 0
check_eq "allow: no reload (generation unchanged)" "$(bb_status .filter.generation)" "$gen_a"
expect_pass "allow: 198.51.100.3 passes at once" 198.51.100.3 $V4
expect_pass "allow: 2001:db8:51::3 passes at once" 2001:db8:51::3 $V6
check_ge "allow: the allowed counter grew by the pings" $(($(bb_stat allowed) - a0)) 4
run bb check 198.51.100.3
check_rc "check of an allowed address exits 1 (not blocked)" 1
check_match "check says allowed" 'allowed' "$out"
run bb load "$LIST1"
check_rc "reload with LIST1 (its CIDRs listed) exits 0" 0
expect_blocked "LIST1: 198.51.100.2 is dropped" 198.51.100.2 $V4
run bb allow 203.0.113.0/28
check_rc "allow a /28 inside the listed /24 exits 0" 0
expect_pass "allow: 203.0.113.9 (in the allowed /28) passes" 203.0.113.9 $V4
run bb load "$LIST2"
expect_pass "after a reload: 198.51.100.3 still passes (kept)" 198.51.100.3 $V4
run bb disallow 198.51.100.3
check_rc "disallow exits 0" 0
expect_blocked "disallow: 198.51.100.3 is dropped at once" 198.51.100.3 $V4
expect_pass "the other kept item still passes: 2001:db8:51::3" 2001:db8:51::3 $V6
run bb disallow 2001:db8:51::3 203.0.113.0/28
check_rc "disallow the rest exits 0" 0
expect_blocked "disallow: 2001:db8:51::3 is dropped" 2001:db8:51::3 $V6

# An ipset's nomatch entries are the list's own exceptions: allowlist entries, consulted
# after a hit, counted as allowed (as an Adblock @@ rule is: test_names_e2e.sh).
IPSETL=$BB_TMP/sets.ipset
cat >"$IPSETL" <<'EOF'
create BLOCK4 hash:net family inet hashsize 1024 maxelem 65536
add BLOCK4 203.0.113.0/24
add BLOCK4 203.0.113.8/29 nomatch
add BLOCK4 198.51.100.3
create BLOCK6 hash:net family inet6 hashsize 1024 maxelem 65536
add BLOCK6 2001:db8:52::/48
add BLOCK6 2001:db8:52::9 nomatch
COMMIT
EOF
run bb load "$IPSETL"
check_rc "ipset: a save file with nomatch entries loads" 0
check_match "ipset: the two nomatch entries are allowlist entries" \
	'allowlist ipv4 1, ipv6 1, names 0' "$err"
a0=$(bb_stat allowed) d0=$(bb_stat dropped) blocked_tx=0
expect_pass "ipset: 203.0.113.9 (in the nomatch /29) passes" 203.0.113.9 $V4
allowed_tx=$ping_tx
expect_pass "ipset: 2001:db8:52::9 (nomatch) passes" 2001:db8:52::9 $V6
allowed_tx=$((allowed_tx + ping_tx))
expect_blocked "ipset: 203.0.113.20 (in the /24, not the /29) is dropped" 203.0.113.20 $V4
expect_blocked "ipset: 2001:db8:52::20 (in the /48) is dropped" 2001:db8:52::20 $V6
expect_blocked "ipset: 198.51.100.3 is dropped" 198.51.100.3 $V4
# (at least: neighbour discovery from the allowed IPv6 source is allowed hits too)
check_ge "ipset: allowed grew by the $allowed_tx pings the nomatch entries let through" \
	$(($(bb_stat allowed) - a0)) "$allowed_tx"
check_ge "ipset: dropped grew by the $blocked_tx blocked pings" $(($(bb_stat dropped) - d0)) \
	"$blocked_tx"
run bb check 203.0.113.10
check_match "ipset: check 203.0.113.10 says allowed" 'allowed' "$out"

# ---- the guard: what the host needs is never dropped; too wide a prefix is refused ---------------
GUARDL=$BB_TMP/guard-list.txt
printf '198.51.100.2\n0.0.0.0/0\n224.0.0.0/3\n' >"$GUARDL"
in_dut ip route add default via 198.51.100.2 || bail "could not add a default route in the dut"
run bb load "$GUARDL"
check_rc "guard: a list with the gateway, 0.0.0.0/0 and 224.0.0.0/3 loads" 0
check_match "guard: the summary warns about the gateway, naming the line" \
	'guard-list\.txt:1: 198\.51\.100\.2 covers 198\.51\.100\.2, the default gateway \(via bbd0\)' "$err"
check_match "guard: 0.0.0.0/0 is refused, naming its line" \
	'guard-list\.txt:2: covers more global unicast space than a /8' "$err"
check_match "guard: 224.0.0.0/3 loads, noted" '1 prefix wider than a /8, of reserved space' "$err"
expect_pass "guard: the listed default gateway 198.51.100.2 is not dropped" 198.51.100.2 $V4
expect_pass "guard: 198.51.100.3 passes (0.0.0.0/0 was not loaded)" 198.51.100.3 $V4
check_eq "status -j: the guard is on" "$(bb_status .guard.on)" true
check_match "status -j: it lists the gateway and why" '198\.51\.100\.2 the default gateway' \
	"$(bb status -j | jq -r '.guard.items[] | .item + " " + .why')"
check_match "status -j: and bbd0's own address" "198\.51\.100\.1 bbd0's address" \
	"$(bb status -j | jq -r '.guard.items[] | .item + " " + .why')"
run bb check 198.51.100.2
check_match "check: the gateway is allowed" 'allowed' "$out"
run bb load "$GUARDL" --no-guard
check_rc "guard: load --no-guard exits 0" 0
check_match "guard: --no-guard: the warning says it is dropped" 'dropped, the guard is off' "$err"
expect_blocked "guard: --no-guard: the listed gateway is dropped" 198.51.100.2 $V4
run bb load "$GUARDL"
check_eq "guard: a reload keeps it off" "$(bb_status .guard.on)" false
expect_blocked "guard: ... and the gateway dropped" 198.51.100.2 $V4
run bb load "$GUARDL" --guard
check_eq "guard: --guard turns it on again" "$(bb_status .guard.on)" true
expect_pass "guard: --guard: the gateway passes" 198.51.100.2 $V4
run bb load "$GUARDL" --allow-wide
check_rc "guard: --allow-wide loads 0.0.0.0/0" 0
check_no_match "guard: --allow-wide: nothing refused" 'too_wide' "$err"
expect_blocked "guard: 0.0.0.0/0 drops 198.51.100.3 too" 198.51.100.3 $V4
expect_pass "guard: ... but never the gateway" 198.51.100.2 $V4
in_dut ip route del default
run bb load "$LIST2"
check_rc "the second list again" 0

# ---- a list large enough to stream: parsed once, its index sorted a bucket at a time ----------
# 120,000 addresses (1.7 MB: streamed), one of them listed twice, a /24, a /16, IPv6: the
# index's records spooled in buckets by hash and sorted into the index file a bucket at
# a time. check names the first line that holds each of 61 addresses from all over the
# list (so from every part of it and many buckets), as the in-memory load does.
BIG=$BB_TMP/big.txt
awk 'BEGIN { x = 12345
	for (i = 1; i <= 120000; i++) {
		x = (x * 69069 + 1) % 4294967296
		if (i == 50000) print "30.40.50.0/24"
		else if (i == 60000) print "20.1.2.3"
		else if (i == 70000) print "2001:db8:77::/48"
		else if (i == 80000) print "40.50.0.0/16"
		else if (i == 7) print "20.1.2.3"
		else printf "%d.%d.%d.%d\n", 20 + x % 80, int(x / 80) % 256, int(x / 20480) % 256,
			int(x / 5242880) % 256 } }' >"$BIG"
mapfile -t BIG_ADDRS < <(awk 'NR % 2000 == 1 || NR == 7 || NR == 60000' "$BIG")
# what check says of each: the first line holding it, and the prefixes by the line of their own
BIG_WANT=$(awk -v f="$BIG" 'NR == FNR { if (!($0 in first)) first[$0] = FNR; next }
	{ print $0 ": listed (" f ":" first[$0] ")" }' "$BIG" <(printf '%s\n' "${BIG_ADDRS[@]}"))
BIG_WANT+=$'\n'"30.40.50.7: listed: 30.40.50.0/24 ($BIG:50000)"
BIG_WANT+=$'\n'"40.50.255.1: listed: 40.50.0.0/16 ($BIG:80000)"
BIG_WANT+=$'\n'"2001:db8:77:1::1: listed: 2001:db8:77::/48 ($BIG:70000)"
for how in "" "--stream never"; do
	# shellcheck disable=SC2086  # $how is zero or two words
	run bb -j load "$BIG" $how
	check_rc "a 120,000-line list${how:+ ($how)} loads" 0
	check_eq "... $([ -n "$how" ] && echo "held in memory" || echo "streamed, in one pass")" \
		"$(jq -r .streamed <<<"$out")" "$([ -n "$how" ] && echo false || echo true)"
	run bb check "${BIG_ADDRS[@]}" 30.40.50.7 40.50.255.1 2001:db8:77:1::1
	check_eq "... check names the first line holding each of 64 items, across the list" \
		"$out" "$BIG_WANT"
done
check_eq "the spool left nothing in the state directory but the index" \
	"$(find "$BB_STATE_DIR" -name '*.tmp' -o -name '*spool*' | wc -l)" 0
run bb load "$LIST2" --allow-shrink	# 120,000 keys to 2: on purpose
check_rc "the second list again" 0

# ---- --no-index: no stale index answers for this filter ----------------------------------------
run bb load "$LIST2" --no-index
check_rc "load --no-index exits 0" 0
run bb check 198.51.100.3
check_eq "--no-index: check says listed (maybe), naming no list" "$out" \
	"198.51.100.3: listed (maybe)"
check_eq "--no-index: status -j says there is no index" "$(bb_status .index)" null
check_fails "--no-index: no index file is left" test -e "$BB_STATE_DIR/index.bin"
run bb add 198.51.100.9
check_rc "--no-index: add is refused (exit 1, an error)" 1
check_match "... saying it needs the key index" 'needs the live filter.s key index' "$err"

# ---- a live add needs a probe length: four a family, then a reload ---------------------------------
# A prefix longer than /16 is probed at a length at least its own. add appends a new
# length while the header has room (BB_MAX_PLENS, 4 a family); with all four taken and
# none long enough, the item is refused, saying to load again, and nothing changes.
PLL=$BB_TMP/plens.txt
printf '2001:db8:52::/48\n' >"$PLL"
run bb load "$PLL"
check_rc "plens: a list with one IPv6 length (/48) loads" 0
gen_p=$(bb_status .filter.generation)
run bb add 2001:db8:53::/64 2001:db8:54::/80 2001:db8:55::/96
check_rc "plens: add of a /64, a /80 and a /96 (three new lengths) exits 0" 0
check_eq "plens: status -j: the filter probes four IPv6 lengths" \
	"$(bb_status '.filter.ipv6_prefix_lengths | sort | join(",")')" "48,64,80,96"
run bb add 2001:db8:51::2/127
check_rc "plens: add of a /127 with every length taken: refused, exit 1" 1
check_match "plens: ... saying no probed length holds it and to load again" \
	'^2001:db8:51::2/127: not added: the live filter probes no prefix length that holds it, and has room for no more: load again$' \
	"$out"
check_eq "plens: ... nothing added (check says not listed)" "$(bb check 2001:db8:51::3)" \
	"2001:db8:51::3: not listed"
expect_pass "plens: ... and 2001:db8:51::3 still passes" 2001:db8:51::3 $V6
check_eq "plens: the three adds stand" "$(bb check 2001:db8:55::9)" "2001:db8:55::9: listed: 2001:db8:55::/96 (bloomblock add)"
check_eq "plens: no reload (generation unchanged)" "$(bb_status .filter.generation)" "$gen_p"
printf '2001:db8:51::2/127\n' >>"$PLL"
run bb load "$PLL"
check_rc "plens: a load with the /127 in the list exits 0" 0
expect_blocked "plens: after the load 2001:db8:51::3 is dropped" 2001:db8:51::3 $V6

# ---- unload -------------------------------------------------------------------------------------
run bb unload -i bbd0
check_rc "unload -i bbd0 exits 0" 0
check_fails "pin dir is gone after the last unload" test -e "$BB_PIN_DIR"
check_no_match "no XDP program left on bbd0" 'xdp' "$(in_dut ip link show dev bbd0)"
expect_pass "after unload: 198.51.100.3 passes" 198.51.100.3 $V4
expect_pass "after unload: 2001:db8:51::3 passes" 2001:db8:51::3 $V6
expect_pass "after unload: 198.51.100.2 passes" 198.51.100.2 $V4
run bb status
check_rc "status with nothing loaded exits 1" 1

# ---- errors -------------------------------------------------------------------------------------
# ---- staging: a load without -i builds and pins the filter, attached nowhere ---------------------
run bb load "$LIST1"
check_rc "load without -i on a new instance exits 0" 0
check_match "it says the filter is staged" 'staged under .*attached nowhere' "$err$out"
check_eq "status -j: no interface" "$(bb_status '.interfaces | length')" 0
expect_pass "staged: nothing is dropped yet (198.51.100.2 passes)" 198.51.100.2 $V4
run bb check 198.51.100.2
check_rc "check answers from the staged filter" 0
run bb load "$LIST1" -i bbd0
check_rc "load -i attaches the staged instance" 0
expect_blocked "attached: 198.51.100.2 is dropped" 198.51.100.2 $V4
run bb unload --all
check_rc "unload --all after staging exits 0" 0

run bb load "$LIST1" -i nosuchif
check_rc "load -i nosuchif exits 1" 1
check_match "the message names the interface" nosuchif "$err"
check_fails "a failed first load leaves no pin dir behind" test -e "$BB_PIN_DIR"
run bb load
check_rc "load without a list exits 2" 2
run bb load -i bbd0
check_rc "load -i bbd0 without a list exits 2" 2
run bb load "$LIST1" -i bbd0 --mode bogus
check_rc "load --mode bogus exits 2" 2
mkdir -p "$BB_TMP/notbpffs"
run timeout 20 nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$BB_TMP/notbpffs/x" load "$LIST1" -i bbd0
check_rc "--pin-dir outside bpffs: load fails" 1
check_match "--pin-dir outside bpffs: the message says so" '[Bb][Pp][Ff] ?(file ?system|fs)' "$err"
check_no_match "--pin-dir outside bpffs: nothing attached" 'xdp' "$(in_dut ip link show dev bbd0)"

tap_done
