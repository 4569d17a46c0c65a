# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034  # variables here are for the scripts that source this
# Network-namespace "nodes" for the fleet tests (test_fleet_e2e.sh, test_rollout_e2e.sh),
# on top of lib.sh. Source it after lib.sh; call fleet_begin instead of e2e_begin.
#
#   src namespace (the clients): bbs0 198.51.100.2, bbs2 .66, bbs3 .130; 203.0.113.9 on each
#   node 1 (the dut namespace):  bbd0 198.51.100.1/26
#   node 2: bbn2 198.51.100.65/26          node 3: bbn3 198.51.100.129/26

NODES="1 2 3"
node_ns() { if [ "$1" = 1 ]; then echo "$NS_DUT"; else echo "$BB_TAG-n$1"; fi; }
node_pin() { if [ "$1" = 1 ]; then echo "$BB_PIN_DIR"; else echo "$BB_PIN_DIR-n$1"; fi; }
# the state directory that belongs to node N's pin dir by default (state.h)
node_state() { echo "/run/bloomblock/sys-fs-bpf-$(basename "$(node_pin "$1")")"; }
node_if() { if [ "$1" = 1 ]; then echo bbd0; else echo "bbn$1"; fi; }
node_src_if() { if [ "$1" = 1 ]; then echo bbs0; else echo "bbs$1"; fi; }
node_addr() { case $1 in 1) echo 198.51.100.1 ;; 2) echo 198.51.100.65 ;; 3) echo 198.51.100.129 ;; esac; }
src_addr() { case $1 in 1) echo 198.51.100.2 ;; 2) echo 198.51.100.66 ;; 3) echo 198.51.100.130 ;; esac; }
# bbn N ARGS...: the CLI on node N, in its namespace, with its pin dir
bbn() { local n=$1; shift; timeout "$BB_TIMEOUT" nsenter --net="/run/netns/$(node_ns "$n")" "$BB" \
	--pin-dir "$(node_pin "$n")" "$@"; }

fleet_cleanup() {
	local n
	for j in $(jobs -p); do kill "$j" 2>/dev/null; done
	for n in 2 3; do
		if [ -d "$(node_pin "$n")" ] && [ -e "/run/netns/$(node_ns "$n")" ]; then
			bbn "$n" unload --all >/dev/null 2>&1
		fi
		case $(node_pin "$n") in /sys/fs/bpf/?*) rm -rf "$(node_pin "$n")" ;; esac
		rm -rf "$(node_state "$n")"
		ip netns del "$(node_ns "$n")" 2>/dev/null
	done
	cleanup
}

# fleet_begin: e2e_begin, then nodes 2 and 3 and the listed client, 203.0.113.9, on each
# of the src namespace's links, with routes back to it
fleet_begin() {
	local n
	e2e_begin
	trap fleet_cleanup EXIT
	ip -n "$NS_DUT" addr flush dev bbd0
	ip -n "$NS_DUT" addr add 198.51.100.1/26 dev bbd0 || bail "node 1's address"
	for n in 2 3; do
		ip netns add "$(node_ns "$n")" &&
			ip -n "$(node_ns "$n")" link add "bbn$n" type veth peer name "bbs$n" netns "$NS_SRC" &&
			ip -n "$(node_ns "$n")" link set lo up &&
			ip -n "$(node_ns "$n")" addr add "$(node_addr "$n")/26" dev "bbn$n" &&
			ip -n "$(node_ns "$n")" link set "bbn$n" up &&
			ip -n "$NS_SRC" addr add "$(src_addr "$n")/26" dev "bbs$n" &&
			ip -n "$NS_SRC" link set "bbs$n" up || bail "could not set up node $n"
	done
	for n in $NODES; do
		node_add_client "$n" 203.0.113.9 || bail "could not add the listed client for node $n"
	done
}

# node_add_client N ADDR: ADDR on the src namespace's link to node N, and a route back
node_add_client() {
	ip -n "$NS_SRC" addr add "$2/32" dev "$(node_src_if "$1")" 2>/dev/null
	ip -n "$(node_ns "$1")" route add "$2/32" dev "$(node_if "$1")"
}

# ping_node N SRC: the answered pings (of 2) from SRC to node N
ping_node() {
	in_src timeout 8 ping -4 -n -c 2 -i 0.2 -W 1 -w 3 -I "$2" "$(node_addr "$1")" 2>/dev/null |
		sed -n 's/.* \([0-9][0-9]*\) \(packets \)\{0,1\}received.*/\1/p'
}
# verdicts N: "listed-client unlisted-client" as pass/drop
verdicts() {
	local a b
	a=$(ping_node "$1" 203.0.113.9) b=$(ping_node "$1" "$(src_addr "$1")")
	echo "$([ "${a:-0}" -gt 0 ] && echo pass || echo drop) $([ "${b:-0}" -gt 0 ] && echo pass || echo drop)"
}
