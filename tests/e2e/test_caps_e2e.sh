#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End to end, least privilege: every command an operator or the unit runs works with
# only the capabilities scripts/bloomblock@.service leaves (its CapabilityBoundingSet,
# read from the unit file), as root without root's others (setpriv, no new privileges);
# and each of those that the kernel demands is needed: without CAP_NET_ADMIN nothing
# attaches, without CAP_SYS_ADMIN the live filter cannot be opened by its map id
# (status, check, add), and the message says so. TAP output; root.
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

UNIT=$BB_ROOT/scripts/bloomblock@.service
e2e_begin
command -v setpriv >/dev/null || skip_all "setpriv is not installed (util-linux)"

# the unit's set as setpriv wants it: CAP_BPF CAP_NET_ADMIN -> +bpf,+net_admin
unit_caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")
check_match "the unit names a bounding set" 'CAP_' "$unit_caps"
check_eq "... and the same ambient set" "$(sed -n 's/^AmbientCapabilities=//p' "$UNIT")" "$unit_caps"
setpriv_caps() { printf '%s\n' "$@" | tr ' ' '\n' | sed '/^$/d; s/^CAP_//' | tr 'A-Z' 'a-z' |
	sed 's/^/+/' | paste -sd, -; }
caps=$(setpriv_caps $unit_caps)

# as CAPS BB-ARGS...: bloomblock in the dut namespace with only CAPS (setpriv's form)
as() {
	local c=$1
	shift
	timeout "$BB_TIMEOUT" nsenter --net="/run/netns/$NS_DUT" setpriv --no-new-privs \
		--bounding-set=-all,"$c" --inh-caps=-all "$BB" --pin-dir "$BB_PIN_DIR" "$@"
}
eff=$(setpriv --no-new-privs --bounding-set=-all,"$caps" --inh-caps=-all \
	awk '/^CapEff/ { print $2 }' /proc/self/status)
if command -v capsh >/dev/null; then
	check_eq "setpriv leaves the unit's set and no other: $caps" \
		"$(capsh --decode="$eff" | sed 's/.*=//' | tr ',' '\n' | sort | paste -sd, -)" \
		"$(printf '%s\n' "$caps" | tr ',' '\n' | sed 's/^+/cap_/' | sort | paste -sd, -)"
else
	tap_skip "setpriv leaves the unit's set" "capsh is not installed (libcap2-bin)"
fi

LIST=$BB_TMP/caps.txt
printf '198.51.100.2\nbad.example\n' >"$LIST"

# ---- the unit's set is enough ------------------------------------------------------
run as "$caps" load "$LIST" -i bbd0 --mode confirm --events 100
check_rc "load -i with the unit's capabilities" 0
run as "$caps" status
check_rc "status with them" 0
check_match "... names the attachment" 'interface +bbd0' "$out"
run as "$caps" check 198.51.100.2
check_rc "check with them" 0
check_match "... listed" 'listed' "$out"
run as "$caps" add 203.0.113.5
check_rc "add with them" 0
run as "$caps" del 203.0.113.5
check_rc "del with them" 0
run as "$caps" allow 198.51.100.3
check_rc "allow with them" 0
run as "$caps" stats --prometheus
check_rc "stats --prometheus with them" 0

# the daemon: a config, a load of its own, confirmations of real hits, SIGTERM
CONF=$BB_TMP/caps.conf
printf '[instance]\ninterface = bbd0\nmode = confirm\nlist = %s\npin_dir = %s\nmetrics = off\n' \
	"$LIST" "$BB_PIN_DIR" >"$CONF"
: >"$BB_TMP/run.log"
timeout 60 nsenter --net="/run/netns/$NS_DUT" setpriv --no-new-privs \
	--bounding-set=-all,"$caps" --inh-caps=-all "$BB" run --config "$CONF" \
	>"$BB_TMP/run.log" 2>&1 &
daemon=$!
for _ in $(seq 1 100); do grep -q '^<6>serving /sys' "$BB_TMP/run.log" && break; sleep 0.1; done
check_match "run --config starts with them" '^<6>serving /sys' "$(cat "$BB_TMP/run.log")"
ping_from 198.51.100.2 198.51.100.1 3 0.2 >/dev/null 2>&1
for _ in $(seq 1 30); do [ "$(bb_stat confirm_requests)" -ge 1 ] 2>/dev/null && break; sleep 0.1; done
sleep 0.5
run as "$caps" status -j
check_eq "... and confirms a listed hit (status: listed >= 1)" \
	"$(jq -r '.confirm.listed >= 1' <<<"$out")" true
kill -TERM "$(pgrep -P "$daemon" | head -n 1)" 2>/dev/null
wait "$daemon"
check_match "... and stops on SIGTERM" '^<6>stopped \(SIGTERM\)' "$(cat "$BB_TMP/run.log")"
check_no_match "... with no error on the way" '^<3>' "$(cat "$BB_TMP/run.log")"

# ---- the daemon as plain root drops to those four once started --------------------
# (CAP_BPF 39, CAP_PERFMON 38, CAP_SYS_ADMIN 21, CAP_NET_ADMIN 12), its bounding set
# too, with no new privileges; a SIGHUP's reload (a child load) still works with them
FOUR=000000c000201000
: >"$BB_TMP/run.log"
timeout -k 10 60 nsenter --net="/run/netns/$NS_DUT" "$BB" run --config "$CONF" >"$BB_TMP/run.log" 2>&1 &
daemon=$!
for _ in $(seq 1 100); do grep -q '^<6>serving /sys' "$BB_TMP/run.log" && break; sleep 0.1; done
dpid=$(pgrep -P "$daemon" | head -n 1)
st=$(cat "/proc/$dpid/status" 2>/dev/null)
check_match "run --config as root says what it kept and dropped" \
	'^<6>capabilities: kept CAP_BPF CAP_NET_ADMIN CAP_PERFMON CAP_SYS_ADMIN; dropped [0-9]+ others \(the bounding set too\), no new privileges' \
	"$(cat "$BB_TMP/run.log")"
for set in CapEff CapPrm CapBnd; do
	check_eq "... its $set is the four" "$(sed -n "s/^$set:\t//p" <<<"$st")" "$FOUR"
done
check_eq "... none inheritable, none ambient" "$(sed -n 's/^Cap\(Inh\|Amb\):\t//p' <<<"$st" | sort -u)" 0000000000000000
check_eq "... no new privileges" "$(sed -n 's/^NoNewPrivs:\t//p' <<<"$st")" 1
gen=$(bb_status '.filter.generation')
kill -HUP "$dpid"
for _ in $(seq 1 50); do grep -q '^<6>SIGHUP: loaded' "$BB_TMP/run.log" && break; sleep 0.1; done
check_match "... and a SIGHUP's reload succeeds with them" '^<6>SIGHUP: loaded' "$(cat "$BB_TMP/run.log")"
check_eq "... a new filter live" "$(bb_status '.filter.generation')" "$((gen + 1))"
kill -TERM "$dpid" 2>/dev/null
wait "$daemon"
check_no_match "... with no error on the way" '^<3>' "$(cat "$BB_TMP/run.log")"

# ---- what the kernel demands of them ---------------------------------------------
without() { printf '%s\n' "$caps" | tr ',' '\n' | grep -vx "+$1" | paste -sd, -; }
run as "$(without sys_admin)" status
check_rc "without CAP_SYS_ADMIN: status fails" 1
check_match "... saying the kernel wants CAP_SYS_ADMIN for BPF_MAP_GET_FD_BY_ID" \
	'takes CAP_SYS_ADMIN \(the kernel.s rule for BPF_MAP_GET_FD_BY_ID\)' "$err"
run as "$(without sys_admin)" check 198.51.100.2
check_ne "without CAP_SYS_ADMIN: check fails too" "$rc" 0
run as "$caps" unload --all
check_rc "unload --all with the unit's set" 0
run as "$(without net_admin)" load "$LIST" -i bbd0
check_ne "without CAP_NET_ADMIN: load -i fails" "$rc" 0
check_match "... naming CAP_NET_ADMIN" 'CAP_NET_ADMIN' "$err"
check_eq "... and attaches nothing" "$(in_dut ip -j link show bbd0 | jq -r '.[0].xdp // empty')" ''
run as "$(without net_admin)" unload --all

# CAP_BPF and CAP_PERFMON: implied by CAP_SYS_ADMIN to the kernel (bpf_capable(),
# perfmon_capable()); the unit keeps them so that its set says what is used
run as "$(without bpf)" load "$LIST" -i bbd0
check_rc "without CAP_BPF (CAP_SYS_ADMIN implies it): load still works" 0
run as "$caps" unload --all
check_rc "... unload" 0
run as "+net_admin,+bpf,+perfmon" load "$LIST" -i bbd0
check_rc "CAP_BPF, CAP_PERFMON, CAP_NET_ADMIN alone: load -i works" 0
run as "+net_admin,+bpf,+perfmon" status
check_rc "... but status does not (CAP_SYS_ADMIN)" 1
run as "$caps" unload --all

tap_done
