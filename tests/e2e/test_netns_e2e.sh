#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One instance, one truth across network namespaces: containers that each have an
# interface of the same name. The dut namespace and a second one ("other") each have
# a bbd0; one pin dir serves both.
#
#   - status in the other namespace lists the dut's attachment as another
#     namespace's, never as its own; unload -i bbd0 there detaches nothing of the
#     dut's and says where it is attached;
#   - load -i bbd0 there attaches to its own bbd0 (before: "attached" silently, with
#     no XDP program on it); each namespace's status shows its own and the other's;
#   - unload -i in one namespace detaches that one's only; unload --all detaches both,
#     and the other namespace's tc reset helper too (entered: ip netns's name for it);
#   - tc attachments the same: each records its namespace (tc_ingress_IFNAME:NETNS, a
#     pin of its program), so status and unload act on the right one from anywhere;
#     one whose record was deleted is still found and recorded again by load; one whose
#     interface went is said and forgotten;
#   - orphans: with the pin dir removed by hand, its tc filters run on with nothing to
#     unload them by; unload finds them by bloomblock's priority and the pin dir's
#     handle (running a bloomblock program) and removes them, and nothing else.
#
# TAP output; root needed (else skipped; a skip fails under CI=true).
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

e2e_begin
NS_OTHER=$BB_TAG-oth
trap 'ip netns del "$NS_OTHER" 2>/dev/null; cleanup' EXIT
ip netns add "$NS_OTHER" || bail "could not add the other namespace"
ip -n "$NS_OTHER" link add bbd0 type veth peer name bbo1 || bail "no veth in the other namespace"
ip -n "$NS_OTHER" link set bbd0 up
ip -n "$NS_OTHER" link set bbo1 up
printf '198.51.100.66\n' >"$BB_TMP/list.txt"

# other ARGS...: bloomblock in the other namespace, the same pin dir
other() { timeout "$BB_TIMEOUT" nsenter --net="/run/netns/$NS_OTHER" "$BB" --pin-dir "$BB_PIN_DIR" "$@"; }
xdp_on() { ip -n "$1" -j link show bbd0 | jq -r '.[0].xdp.prog.id // empty'; }
# tc_prefs NS ingress|egress: the priorities of bbd0's bpf filters there, sorted
tc_prefs() { tc -n "$1" filter show dev bbd0 "$2" 2>/dev/null | sed -n 's/.*pref \([0-9]*\) bpf .*handle.*/\1/p' | sort -u | paste -sd' '; }
DUT_NS=$(stat -L -c %i "/run/netns/$NS_DUT")
OTHER_NS=$(stat -L -c %i "/run/netns/$NS_OTHER")

run bb load "$BB_TMP/list.txt" -i bbd0
check_rc "load -i bbd0 in the dut namespace" 0
check_ne "... the dut's bbd0 runs XDP" "$(xdp_on "$NS_DUT")" ""

run other status -j
check_rc "status in the other namespace" 0
check_eq "... lists no attachment as its own" \
	"$(jq '[.interfaces[] | select(.other_netns == false)] | length' <<<"$out")" 0
check_eq "... and the dut's bbd0 as another namespace's, by its inode" \
	"$(jq -r '.interfaces[] | select(.other_netns) | "\(.ifname) \(.netns)"' <<<"$out")" "bbd0 $DUT_NS"
run other status
check_match "... in words too" "bbd0 in another network namespace \(net:\[$DUT_NS\]" "$out"
run other unload -i bbd0
check_match "unload -i bbd0 in the other namespace says where bbd0 is attached" \
	"attached in another network namespace \(net:\[$DUT_NS\]\)" "$err"
check_ne "... and detaches nothing of the dut's" "$(xdp_on "$NS_DUT")" ""
check "... the pin dir stays" test -d "$BB_PIN_DIR"

run other load "$BB_TMP/list.txt" -i bbd0
check_rc "load -i bbd0 in the other namespace" 0
check_match "... attaches its own bbd0" 'bbd0: attached \(' "$err"
check_ne "... which runs XDP now" "$(xdp_on "$NS_OTHER")" ""
check_eq "... the same program as the dut's" "$(xdp_on "$NS_OTHER")" "$(xdp_on "$NS_DUT")"
run other status -j
check_eq "status there: its own bbd0 and the dut's" \
	"$(jq -r '[.interfaces[] | select(.hook == "xdp") | "\(.netns) \(.other_netns)"] | sort | join(",")' <<<"$out")" \
	"$(printf '%s\n' "$DUT_NS true" "$OTHER_NS false" | sort | paste -sd,)"
run bb status -j
check_eq "status in the dut: the same two, the other way round" \
	"$(jq -r '[.interfaces[] | select(.hook == "xdp") | "\(.netns) \(.other_netns)"] | sort | join(",")' <<<"$out")" \
	"$(printf '%s\n' "$DUT_NS false" "$OTHER_NS true" | sort | paste -sd,)"
links=("$BB_PIN_DIR"/link_xdp_bbd0:*)
check_eq "two link pins, one per namespace" "${#links[@]}" 2

run bb unload -i bbd0
check_rc "unload -i bbd0 in the dut" 0
check_eq "... detaches the dut's" "$(xdp_on "$NS_DUT")" ""
check_ne "... not the other's" "$(xdp_on "$NS_OTHER")" ""
check "... and the instance stays, attached there" test -d "$BB_PIN_DIR"
run bb load "$BB_TMP/list.txt" -i bbd0
check_rc "attached in the dut again" 0
check_eq "the other namespace's bbd0 has the reset helper at tc ingress" \
	"$(tc_prefs "$NS_OTHER" ingress)" "45325"
run bb unload --all
check_rc "unload --all" 0
check_eq "... detaches the dut's" "$(xdp_on "$NS_DUT")" ""
check_eq "... and the other namespace's" "$(xdp_on "$NS_OTHER")" ""
check_eq "... and the other namespace's reset helper (before: left there)" \
	"$(tc_prefs "$NS_OTHER" ingress)" ""
check "... and removes the instance" test ! -e "$BB_PIN_DIR"

# ---- a link pin from before namespaces were recorded (link_xdp_IFNAME) -------------------
run bb load "$BB_TMP/list.txt" -i bbd0
mv "$BB_PIN_DIR/link_xdp_bbd0:$DUT_NS" "$BB_PIN_DIR/link_xdp_bbd0"
run bb load "$BB_TMP/list.txt" -i bbd0
check_rc "a link pin from before (link_xdp_bbd0): load -i bbd0 again exits 0" 0
check_no_match "... finds it attached (before: the pin's path was made over its own name, \
not found, and the attach refused)" 'already has an XDP program' "$err"
run bb unload -i bbd0
check_eq "... and unload -i bbd0 detaches it" "$(xdp_on "$NS_DUT")" ""
check "... and removes the instance" test ! -e "$BB_PIN_DIR"

# ---- tc: each attachment records its namespace ------------------------------------------
run bb load "$BB_TMP/list.txt" -i bbd0 --hook tc-ingress --hook tc-egress
check_rc "load --hook tc-ingress --hook tc-egress -i bbd0 in the dut" 0
check "... records tc ingress with the dut's namespace" test -e "$BB_PIN_DIR/tc_ingress_bbd0:$DUT_NS"
check "... and tc egress" test -e "$BB_PIN_DIR/tc_egress_bbd0:$DUT_NS"
run other status -j
check_eq "status in the other namespace: the dut's two tc filters, as another namespace's" \
	"$(jq -r '[.interfaces[] | select(.hook != "xdp") | "\(.hook) \(.netns) \(.other_netns) \(.prog_id > 0)"] | sort | join(",")' <<<"$out")" \
	"tc-egress $DUT_NS true true,tc-ingress $DUT_NS true true"
run other status
check_match "... in words: where, and its program (asked there)" \
	"bbd0 in another network namespace \(net:\[$DUT_NS\]; tc-ingress, prog [1-9]" "$out"
run other unload -i bbd0 --hook tc-ingress
check_match "unload -i bbd0 --hook tc-ingress there says where it is attached" \
	"attached in another network namespace \(net:\[$DUT_NS\]\)" "$err"
check_eq "... and leaves the dut's filter" "$(tc_prefs "$NS_DUT" ingress)" "45324"
run other load "$BB_TMP/list.txt" -i bbd0 --hook tc-ingress
check_rc "load --hook tc-ingress -i bbd0 in the other namespace" 0
check_eq "... attaches its own bbd0" "$(tc_prefs "$NS_OTHER" ingress)" "45324"
run bb status -j
check_eq "status in the dut: its own two and the other's" \
	"$(jq -r '[.interfaces[] | select(.hook != "xdp") | "\(.hook) \(.netns) \(.other_netns)"] | sort | join(",")' <<<"$out")" \
	"$(printf '%s\n' "tc-egress $DUT_NS false" "tc-ingress $DUT_NS false" "tc-ingress $OTHER_NS true" | sort | paste -sd,)"
run other unload -i bbd0
check_rc "unload -i bbd0 in the other namespace" 0
check_eq "... detaches its own" "$(tc_prefs "$NS_OTHER" ingress)" ""
check_eq "... not the dut's" "$(tc_prefs "$NS_DUT" ingress)" "45324"
check "... and forgets its record" test ! -e "$BB_PIN_DIR/tc_ingress_bbd0:$OTHER_NS"
run other load "$BB_TMP/list.txt" -i bbd0 --hook tc-egress
check_rc "the other namespace's tc egress attached again" 0
run bb unload --all
check_rc "unload --all in the dut" 0
check_eq "... detaches the dut's tc filters" "$(tc_prefs "$NS_DUT" ingress)$(tc_prefs "$NS_DUT" egress)" ""
check_eq "... and the other namespace's (before: only this namespace's interfaces were asked)" \
	"$(tc_prefs "$NS_OTHER" egress)" ""
check_eq "... and no clsact qdisc is left in either" \
	"$(tc -n "$NS_DUT" qdisc show dev bbd0; tc -n "$NS_OTHER" qdisc show dev bbd0)" \
	"$(printf 'qdisc noqueue 0: root refcnt 2 \nqdisc noqueue 0: root refcnt 2 ')"
check "... and removes the instance" test ! -e "$BB_PIN_DIR"

# a record deleted by hand: the filter is still found (asked of the interfaces), and
# load records it again
run bb load "$BB_TMP/list.txt" -i bbd0 --hook tc-egress
rm -f "$BB_PIN_DIR"/tc_egress_bbd0:*
run bb status -j
check_eq "a record deleted by hand: status still finds the filter" \
	"$(jq -r '[.interfaces[] | select(.hook == "tc-egress") | .other_netns] | join(",")' <<<"$out")" "false"
run bb load "$BB_TMP/list.txt" -i bbd0 --hook tc-egress
check "... and load records it again" test -e "$BB_PIN_DIR/tc_egress_bbd0:$DUT_NS"

# an interface gone with its filter: said, and forgotten by unload
ip -n "$NS_DUT" link add bbg0 type veth peer name bbg1 && ip -n "$NS_DUT" link set bbg0 up
run bb load "$BB_TMP/list.txt" -i bbg0 --hook tc-ingress
check_rc "load --hook tc-ingress -i bbg0" 0
ip -n "$NS_DUT" link del bbg0
run bb status
check_match "bbg0 deleted: status says its tc filter's interface is gone" \
	'bbg0 \(tc-ingress\) - interface gone' "$out"
run bb unload -i bbg0
check_rc "unload -i bbg0 (gone)" 0
check "... forgets its record" test ! -e "$BB_PIN_DIR/tc_ingress_bbg0:$DUT_NS"

# ---- orphans: the pin dir removed by hand -------------------------------------------------
run bb load "$BB_TMP/list.txt" -i bbd0 --hook tc-ingress
handle=$(tc -n "$NS_DUT" filter show dev bbd0 ingress | sed -n 's/.*pref 45324 bpf .*handle \(0x[0-9a-f]*\).*/\1/p' | head -n 1)
check_ne "the instance's tc filter has its handle" "$handle" ""
rm -rf "$BB_PIN_DIR"
check_eq "the pin dir removed by hand: its tc filters run on" \
	"$(tc_prefs "$NS_DUT" ingress) $(tc_prefs "$NS_DUT" egress)" "45324 45324"
run bb unload --all
check_rc "unload --all with no pin dir exits 0" 0
check_match "... says it removed the orphans, by interface and hook" \
	'removed 2 tc filters of this pin dir.s .* bbd0 tc ingress, bbd0 tc egress' "$err"
check_eq "... and they are gone (before: they stayed, nothing could unload them)" \
	"$(tc_prefs "$NS_DUT" ingress)$(tc_prefs "$NS_DUT" egress)" ""
# what is not bloomblock's is never touched: another program at its priority under
# another handle, and under this pin dir's handle (tests/e2e/test_hook_e2e.sh's counter)
TC_OTHER=$BB_ROOT/.output/tc_count_test.bpf.o
[ -e "$TC_OTHER" ] || bail "$TC_OTHER is missing: make tests first"
tc -n "$NS_DUT" qdisc add dev bbd0 clsact
tc -n "$NS_DUT" filter add dev bbd0 ingress prio 45324 handle 7 bpf da obj "$TC_OTHER" sec tc
tc -n "$NS_DUT" filter add dev bbd0 egress prio 45324 handle "$handle" bpf da obj "$TC_OTHER" sec tc
run bb load "$BB_TMP/list.txt" -i bbd0 --hook tc-ingress
rm -rf "$BB_PIN_DIR"
run bb unload -i bbd0
check_match "unload -i bbd0 with no pin dir removes its orphan there" \
	'removed 1 tc filter of this pin dir.s .*: bbd0 tc ingress$' "$err"
check_eq "... and leaves another program's, under another handle and under this one" \
	"$(tc -n "$NS_DUT" filter show dev bbd0 ingress | grep -c 'name tc_count') $(tc -n "$NS_DUT" filter show dev bbd0 egress | grep -c 'name tc_count')" "1 1"
tc -n "$NS_DUT" qdisc del dev bbd0 clsact

tap_done
