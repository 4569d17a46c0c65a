#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `status -j` tells the whole truth (issue 13.9): every attachment (interface, hook,
# XDP mode, program and link ids, as the kernel reports them), the filter (entries and
# keys by kind, bytes, k, fill, estimated FPR, generation, loaded at, from which files
# or filter file), the allowlist (entries by kind), the index and the counting shadow
# (entries, bytes), and the capacity left, `load --capacity N` among it. Each field is
# checked against what was loaded or what the kernel says, not only for presence.
# TAP output; root needed (else skipped; a skip fails under CI=true).
#
#   dut namespace: bbd0  198.51.100.1   <- bloomblock at XDP and tc egress
# shellcheck disable=SC2016  # jq programs, their $variables jq's own
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

for c in bpftool jq tc; do
	command -v "$c" >/dev/null || skip_all "needs $c (scripts/install-deps.sh installs it)"
done

e2e_begin

LIST=$BB_TMP/block.txt ALLOW=$BB_TMP/allow.txt BBF=$BB_TMP/block.bbf
cat >"$LIST" <<'EOF'
# status e2e: 2 addresses (a /24 and an IPv6 address), 2 names, 1 URL
203.0.113.0/24
2001:db8:52::9
evil.example
bad.test
http://web.example/bad/
EOF
printf 'ok.evil.example\n203.0.113.77\n' >"$ALLOW"
CAP=50000
t0=$(date +%s)

run bb load "$LIST" --allow "$ALLOW" -i bbd0 --capacity $CAP
check_rc "load LIST --allow FILE -i bbd0 --capacity $CAP exits 0" 0
# --capacity is a sizing option, as --fp is: a load without it sizes for what it holds
run bb load "$LIST" --allow "$ALLOW" -i bbd0 --hook tc-egress --capacity $CAP
check_rc "... and the same instance at tc egress on bbd0" 0
run bb status -j
check_rc "status -j exits 0" 0
S=$out
st() { jq -r "$1" <<<"$S"; }

# ---- attachments --------------------------------------------------------------------------
check_eq "attachments: bbd0 at xdp (native) and at tc-egress" \
	"$(st '[.interfaces[] | "\(.ifname):\(.hook):\(.xdp_mode)"] | sort | join(",")')" \
	"bbd0:tc-egress:none,bbd0:xdp:native"
xdp_prog=$(st '.interfaces[] | select(.hook == "xdp") | .prog_id')
xdp_link=$(st '.interfaces[] | select(.hook == "xdp") | .link_id')
check_eq "attachments: the XDP prog id is the one ip link shows on bbd0" "$xdp_prog" \
	"$(in_dut ip -j link show dev bbd0 | jq -r '.[0].xdp.prog.id')"
check_eq "attachments: the XDP link id is a bpf_link of that program" \
	"$(bpftool -j link show id "$xdp_link" 2>/dev/null | jq -r '"\(.type) \(.prog_id)"')" "xdp $xdp_prog"
check_match "attachments: the tc egress prog id is the filter tc shows on bbd0 egress" \
	" id $(st '.interfaces[] | select(.hook == "tc-egress") | .prog_id') " \
	"$(in_dut tc filter show dev bbd0 egress)"
check_eq "attachments: the tc prog id is the instance's pinned tc egress program" \
	"$(st '.interfaces[] | select(.hook == "tc-egress") | .prog_id')" \
	"$(bpftool -j prog show pinned "$BB_PIN_DIR/prog_tc_egress" | jq -r .id)"

# ---- the filter ----------------------------------------------------------------------------
check_eq "filter: entries by kind, as the list gave them" \
	"$(st '.loaded.entries | "\(.ipv4) \(.ipv6) \(.name) \(.url)"')" "1 1 2 1"
check_eq "filter: keys by kind (the /24 one key at a /24 probe length)" \
	"$(st '.filter.keys_by_kind | "\(.ipv4) \(.ipv6) \(.names) \(.urls)"')" "1 1 2 1"
check_eq "filter: keys, the sum of the kinds" "$(st .filter.keys)" \
	"$(st '.filter.keys_by_kind | [.[]] | add')"
check_eq "filter: bytes, the live map's size" "$(st .filter.bytes)" \
	"$(bpftool -j map show id "$(st .filter.map_id)" | jq -r '.max_entries * .bytes_value')"
check_match "filter: k, 8 or 16" '^(8|16)$' "$(st .filter.k)"
# a key sets k bits; with a filter this empty hardly any two share one
check "filter: bits set, at most keys * k and most of that" jq -e \
	'.filter as $f | $f.bits_set <= $f.keys * $f.k and $f.bits_set >= $f.keys * $f.k * 0.9' <<<"$S"
check "filter: fill, the bits set over the blocks' bits" jq -e \
	'.filter as $f | ($f.fill / ($f.bits_set / ($f.blocks * 512)) - 1 | fabs) < 1e-4 and $f.fill > 0 and
	 $f.fill < 1' \
	<<<"$S"
check "filter: the FPR estimated from the fill, and per check" jq -e \
	'.filter | .fpr_from_fill > 0 and .fpr_from_fill < 1 and .fpr_per_check_from_fill.address > 0 and
	 .fpr_per_check_from_fill.name > 0 and .fpr_per_check_from_fill.url > 0' <<<"$S"
check_eq "filter: generation 2 (two loads)" "$(st .filter.generation)" 2
check_eq "filter: loaded.generation is the live one" "$(st .loaded.generation)" 2
check "filter: loaded at, in this test's time" jq -e --argjson t0 "$t0" \
	'.loaded.time >= $t0 and .loaded.time <= now + 1 and
	 (.loaded.time_utc | fromdateiso8601) == .loaded.time' <<<"$S"
check_eq "filter: loaded from the list and the allowlist (and the guard's)" \
	"$(st '.loaded.lists[0:2] | join(" ")') $(st .loaded.filter_file)" "$LIST $ALLOW null"

# ---- the allowlist, the index, the shadow -----------------------------------------------------
check_eq "allowlist: entries by kind, as loaded" \
	"$(st '.loaded.allow_entries | "\(.name) \(.url)"')" "1 0"
check_ge "allowlist: ipv4 entries: the --allow address and the guard's" \
	"$(st .loaded.allow_entries.ipv4)" 2
check_ge "allowlist: keys in the map, at least the entries" "$(st .allowlist.keys)" \
	"$(st '.loaded.allow_entries | [.[]] | add')"
check_eq "index: one record a key" "$(st .index.keys)" "$(st .filter.keys)"
check_eq "index: its bytes, the index file's" "$(st .index.bytes)" \
	"$(stat -c %s "$BB_STATE_DIR/index.bin")"
check_eq "index: the lists it names" "$(st '.index.lists[0:2] | join(" ")')" "$LIST $ALLOW"
check_eq "shadow: none before the first add or del" "$(st '"\(.index.shadow_bytes) \(.index.shadow_counts)"')" \
	"null null"

# ---- capacity: --capacity shows, and what is left shrinks with adds ---------------------------
check_eq "capacity: loaded.capacity is --capacity" "$(st .loaded.capacity)" $CAP
room=$(st .filter.room_left)
check_ge "capacity: room left, at least --capacity less the keys" "$room" $((CAP - $(st .filter.keys)))
bits=$(st .filter.bits_set)
run bb add 192.0.2.7 192.0.2.8 added.example
check_rc "add of two addresses and a name exits 0" 0
S=$(bb status -j)
check_eq "after add: 4 more keys (2 IPv4; a name and its parents' key)" \
	"$(st .filter.keys_by_kind.ipv4) $(st .filter.keys)" "3 11"
check_eq "after add: the room left is 4 keys less" "$(st .filter.room_left)" $((room - 4))
check "after add: more bits set, the same generation" jq -e --argjson b "$bits" \
	'.filter.bits_set > $b and .filter.generation == 2' <<<"$S"
check_eq "shadow: its bytes, the shadow file's" "$(st .index.shadow_bytes)" \
	"$(stat -c %s "$BB_STATE_DIR/shadow.bin")"
check_eq "shadow: a count a bit of the blocks" "$(st .index.shadow_counts)" \
	$(($(st .filter.blocks) * 512))
check_eq "index: the live changes counted" "$(st '"\(.index.added_live) \(.index.deleted_live)"')" "3 0"

run bb load "$LIST" --allow "$ALLOW"
S=$(bb status -j)
check_ne "capacity: without --capacity, less room" "$(st .filter.room_left)" "$room"
check_eq "capacity: ... and loaded.capacity is the keys it holds" "$(st .loaded.capacity)" \
	"$(st .filter.keys)"

# ---- the text says the same ---------------------------------------------------------------------
run bb status
check_match "text: fill, with the bits set" \
	"^fill +[0-9.e-]+ \\($(st .filter.bits_set) of $(($(st .filter.blocks) * 512)) bits set\\)$" "$out"
check_match "text: the FPR from the bits set" '^FPR .* from the bits set$' "$out"
check_match "text: both attachments, with their ids" \
	"^interface +bbd0 \\(ifindex [0-9]+, xdp native, link $xdp_link, prog $xdp_prog\\)$" "$out"
check_match "text: the capacity" "^capacity +sized for $(st .filter.keys) keys$" "$out"

# ---- from a filter file ------------------------------------------------------------------------
run "$BB" build "$LIST" -o "$BBF"
check_rc "build LIST -o FILE.bbf exits 0" 0
run bb load "$BBF"
check_rc "load FILE.bbf exits 0" 0
S=$(bb status -j)
check_eq "from a .bbf: loaded.filter_file names it, and no lists" \
	"$(st '"\(.loaded.filter_file) \(.loaded.lists | map(select(test("guard") | not)) | length)"')" "$BBF 0"
check_eq "from a .bbf: keys by kind as built" \
	"$(st '.filter.keys_by_kind | "\(.ipv4) \(.ipv6) \(.names) \(.urls)"')" "1 1 2 1"
check_match "text: loaded from the filter file" "^loaded .* from the filter file $BBF" "$(bb status)"

run bb unload --all
check_rc "unload --all exits 0" 0
tap_done
