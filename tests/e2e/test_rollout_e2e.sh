#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A fleet rollout of a filter file, simulated end to end with daemons: three
# network-namespace "nodes" (fleet_lib.sh), each with its own `bloomblock run --config`
# (its own pin dir, state dir and config directory, its metrics in its namespace). One
# build on a host that loads nothing; the file published into each node's directory
# by a rename, as rsync or configuration management does (or a host path a DaemonSet
# mounts, deploy/kubernetes/README.md), one node at a time. Each node's daemon loads
# it by itself and swaps atomically (its generation steps by one; a source listed in
# both files is never answered through the swap); after each step every node's
# verdicts on the same packets are those of the file it has, and nodes with the same
# file answer `check` alike. A truncated and then a corrupted copy published to one
# node are refused there: that node keeps its filter and says so in `status` and its
# metrics, the others are untouched; the good file then loads. TAP output; root.
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/fleet_lib.sh
. "$(dirname "$0")/fleet_lib.sh"

command -v curl >/dev/null || skip_all "needs curl (scripts/install-deps.sh installs it)"
BB_DAEMON_TIMEOUT=600	# the daemons live for the whole test
fleet_begin

# ---- the build host: two filter files -----------------------------------------------------
# A lists the client 203.0.113.9 (in 203.0.113.0/24); B does not, but lists other.example;
# both list 203.0.113.77, which must stay dropped through every swap
printf '# list A\n203.0.113.0/24\nevil.example\n' >"$BB_TMP/a.txt"
printf '# list B\n203.0.113.77\n198.51.100.192/26\nother.example\n' >"$BB_TMP/b.txt"
A=$BB_TMP/a.bbf B=$BB_TMP/b.bbf
run timeout "$BB_TIMEOUT" "$BB" build "$BB_TMP/a.txt" -o "$A"
check_rc "build a.bbf on the build host (nothing loaded)" 0
run timeout "$BB_TIMEOUT" "$BB" build "$BB_TMP/b.txt" -o "$B"
check_rc "build b.bbf" 0
head -c 2000 "$B" >"$BB_TMP/cut.bbf"
cp "$B" "$BB_TMP/flip.bbf"
printf '\x55' | dd of="$BB_TMP/flip.bbf" bs=1 seek=3000 conv=notrunc 2>/dev/null

# ---- each node: its config directory and its daemon -----------------------------------------
node_dir() { echo "$BB_TMP/node$1"; }
# publish N FILE: FILE into node N's directory as the fleet's tooling does: a temporary
# name beside it, then renamed over blocklist.bbf (one atomic step)
publish() {
	cp "$2" "$(node_dir "$1")/.blocklist.bbf.tmp" &&
		mv -f "$(node_dir "$1")/.blocklist.bbf.tmp" "$(node_dir "$1")/blocklist.bbf"
}
node_log() { echo "$(node_dir "$1")/run.log"; }
loads() { grep -c '^<6>change: loaded' "$(node_log "$1")"; }
generation() { bbn "$1" status -j | jq -r .filter.generation; }
metric() {
	ip netns exec "$(node_ns "$1")" curl -fsS "http://127.0.0.1:9420/metrics" |
		awk -v m="$2" '$1 == m { print $2 }'
}
CHECKS=(203.0.113.9 203.0.113.77 evil.example www.evil.example other.example 198.51.100.200)
answers() { bbn "$1" check "${CHECKS[@]}" 2>&1; }

declare -A pid_of daemon_of
for n in $NODES; do
	mkdir -p "$(node_dir "$n")"
	publish "$n" "$A"
	cat >"$(node_dir "$n")/bloomblock.conf" <<EOF
# node $n
[instance]
interface = $(node_if "$n")
hook = xdp
mode = drop
list = $(node_dir "$n")/blocklist.bbf
pin_dir = $(node_pin "$n")
state_dir = $(node_state "$n")
metrics = 127.0.0.1:9420
refresh = off
watch = yes
EOF
	node_add_client "$n" 203.0.113.77 || bail "203.0.113.77 for node $n"
	daemon_start "$(node_dir "$n")/bloomblock.conf" "$(node_log "$n")" "$(node_ns "$n")"
	check_eq "node $n: its daemon loads a.bbf from its own directory and serves" "$?" 0
	daemon_of[$n]=$daemon pid_of[$n]=$dpid
done
for n in $NODES; do
	check_eq "node $n: a.bbf's verdicts (the listed client dropped, the unlisted answered)" \
		"$(verdicts "$n")" "drop pass"
done
ref=$(answers 1)
for n in 2 3; do
	check_eq "node $n: check answers as node 1 does" "$(answers "$n")" "$ref"
done

# ---- b.bbf, published node by node ------------------------------------------------------------
declare -A gen
for n in $NODES; do gen[$n]=$(generation "$n"); done
step=0
for n in $NODES; do	# step N: node N gets b.bbf
	step=$((step + 1))
	in_src timeout 20 ping -4 -n -q -c 300 -i 0.01 -W 1 -I 203.0.113.77 "$(node_addr "$n")" \
		>"$BB_TMP/flood$n" 2>&1 &
	flood=$!
	sleep 0.3
	loaded=$(loads "$n")
	publish "$n" "$B"
	wait_log '^<6>change: loaded' "$(node_log "$n")" $((loaded + 1))
	check_eq "step $step: node $n's daemon loaded b.bbf by itself" "$?" 0
	check_eq "step $step: node $n swapped in one step (generation ${gen[$n]} -> $((gen[$n] + 1)))" \
		"$(generation "$n")" $((gen[$n] + 1))
	wait "$flood"
	check_match "step $step: node $n: a source both files list was not answered through the swap" \
		'300 packets transmitted, 0 received' "$(cat "$BB_TMP/flood$n")"
	for m in $NODES; do
		if [ "$m" -le "$n" ]; then
			want="pass pass" file=b.bbf g=$((gen[$m] + 1))
		else
			want="drop pass" file=a.bbf g=${gen[$m]}
		fi
		check_eq "step $step: node $m has $file's verdicts" "$(verdicts "$m")" "$want"
		[ "$m" = "$n" ] && continue
		check_eq "step $step: node $m's generation is $g" "$(generation "$m")" "$g"
	done
	for m in $NODES; do	# the nodes with the same file answer alike
		[ "$m" -lt "$n" ] && check_eq "step $step: node $m answers check as node $n" \
			"$(answers "$m")" "$(answers "$n")"
	done
done
check_match "all on b.bbf: other.example is listed" 'other\.example: listed' "$(answers 1)"
check_match "... 203.0.113.9 is not" '203\.0\.113\.9: not listed' "$(answers 1)"
check_match "... the status names the filter file" '^loaded +.* from the filter file .*blocklist\.bbf' \
	"$(bbn 1 status)"

# ---- a truncated, then a corrupted copy published to node 2 only -------------------------------
g2=$(generation 2)
for bad in cut:truncated flip:corrupt; do
	fails=$(grep -c 'change: load failed' "$(node_log 2)")
	publish 2 "$BB_TMP/${bad%%:*}.bbf"
	wait_log 'change: load failed' "$(node_log 2)" $((fails + 1))
	check_eq "node 2: a ${bad#*:} b.bbf is refused" "$?" 0
	check_match "... as ${bad#*:}" "${bad#*:}" "$(tail -n 5 "$(node_log 2)")"
done
check_eq "node 2: its filter is kept (generation $g2)" "$(generation 2)" "$g2"
check_eq "node 2: b.bbf's verdicts still" "$(verdicts 2)" "pass pass"
check_match "node 2: status says the last reload failed, the filter before stays" \
	'^reloads +the last at .*\(change\): FAILED, the filter before stays; [0-9]+ ok, 2 failed' \
	"$(bbn 2 status)"
check_eq "node 2: metrics: bloomblock_last_reload_success 0" \
	"$(metric 2 bloomblock_last_reload_success)" 0
check_eq "node 2: metrics: 2 failed reloads" "$(metric 2 'bloomblock_reloads_total{result="failed"}')" 2
for n in 1 3; do
	check_eq "node $n: untouched: the last reload succeeded" \
		"$(metric "$n" bloomblock_last_reload_success)" 1
	check_eq "node $n: ... no failed reload" "$(metric "$n" 'bloomblock_reloads_total{result="failed"}')" 0
done
loaded=$(loads 2)
publish 2 "$B"
wait_log '^<6>change: loaded' "$(node_log 2)" $((loaded + 1))
check_eq "node 2: the good file published again is loaded" "$?" 0
check_eq "... metrics: the last reload succeeded" "$(metric 2 bloomblock_last_reload_success)" 1

# ---- stopped: the filters stay (on_exit = keep) ------------------------------------------------
for n in $NODES; do
	kill -TERM "${pid_of[$n]}"
	wait "${daemon_of[$n]}"
	check_eq "node $n: SIGTERM: exit 0" "$?" 0
done
check_eq "node 3: its filter stays attached after its daemon stopped" "$(verdicts 3)" "pass pass"

tap_done
