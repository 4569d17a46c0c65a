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
#   - unload -i in one namespace detaches that one's only; unload --all detaches both.
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
run bb unload --all
check_rc "unload --all" 0
check_eq "... detaches the dut's" "$(xdp_on "$NS_DUT")" ""
check_eq "... and the other namespace's" "$(xdp_on "$NS_OTHER")" ""
check "... and removes the instance" test ! -e "$BB_PIN_DIR"

tap_done
