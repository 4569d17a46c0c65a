#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End to end, several readers of the hit events at once: `events -j -f`, `events -f
# --pcap` and `top` side by side, without and with `bloomblock run`, each getting every
# event of N dropped frames (the drops proven by the counters); the ring's owner handing
# over when it exits mid-stream, when it is killed (its stale socket replaced), and to
# the daemon when it starts; a reader that falls behind told how many it lost; a path
# that is no socket never removed. And events attributed as they were raised: one
# raised before a `del` of what it hit is never called a false positive. TAP; root.
#
#   dut namespace: bbd0  198.51.100.1   <- bloomblock at XDP
#   src namespace: bbs0  198.51.100.2 (listed) .3 (unlisted)
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

command -v tcpdump >/dev/null || skip_all "needs tcpdump (scripts/install-deps.sh installs it)"
command -v python3 >/dev/null || skip_all "needs python3"
e2e_begin

V4=198.51.100.1
SOCK=$BB_STATE_DIR/events.sock
LIST=$BB_TMP/readers.txt
printf '# readers e2e\n198.51.100.2\nevil.example\n' >"$LIST"

# readers_on: the readers connected to the ring's owner now (its side of each connection)
readers_on() { nsenter --net="/run/netns/$NS_DUT" ss -Hx 2>/dev/null | grep -c " $SOCK "; }
# wait_readers K: until K readers are connected, 5 s at most
wait_readers() {
	local _
	for _ in $(seq 50); do
		[ "$(readers_on)" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
# owner_pid: the pid of the process listening on the socket (the ring's owner)
owner_pid() {
	nsenter --net="/run/netns/$NS_DUT" ss -Hxlp 2>/dev/null | grep " $SOCK " |
		sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -n 1
}
# wait_owner PID: until PID owns the ring (listens on the socket), 5 s at most
wait_owner() {
	local _
	for _ in $(seq 50); do
		[ -n "$1" ] && [ "$(owner_pid)" = "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
# bb_pid PID: bloomblock's own pid under the `timeout` that bb() runs (PID), nsenter between
bb_pid() {
	local p=$1 _
	for _ in 1 2 3; do
		p=$(pgrep -P "$p" | head -n 1)
		[ -n "$p" ] || return 0
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = bloomblock ] && { echo "$p"; return 0; }
	done
}
# lines FILE: its non-empty lines
lines() { grep -c . "$1" 2>/dev/null || true; }
# settle PID FILE COUNT: until FILE has COUNT lines (20 s at most) and half a second more
# (for one too many), then the reader PID (a bb() in the background) stopped (SIGTERM)
settle() {
	local _
	for _ in $(seq 200); do
		[ "$(lines "$2")" -ge "$3" ] && break
		sleep 0.1
	done
	sleep 0.5
	kill -TERM "$(bb_pid "$1")" 2>/dev/null
	wait "$1"
}
# frames N: N UDP frames from the listed 198.51.100.2, each dropped at XDP
frames() { send_frames 198.51.100.2 $V4 "$1"; }
# pcap_frames FILE: the frames of frames() in a pcap file
pcap_frames() { tcpdump -nr "$1" 2>/dev/null | grep -c "IP 198\.51\.100\.2\.40000 > $V4\.9: UDP"; }

daemon=''
start_daemon() {
	: >"$BB_TMP/run.log"
	timeout 300 nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$BB_PIN_DIR" run \
		--metrics off >"$BB_TMP/run.log" 2>&1 &
	daemon=$!
	for _ in $(seq 1 50); do
		grep -q '^<6>serving' "$BB_TMP/run.log" && return 0
		sleep 0.1
	done
	return 1
}
stop_daemon() { kill -TERM "$daemon" 2>/dev/null; wait "$daemon"; }

run bb load "$LIST" -i bbd0
check_rc "load -i bbd0 exits 0 (events on: 1000 a second a CPU)" 0

# ---- two readers, no daemon: each gets every event --------------------------------------
N=40
d0=$(bb_stat dropped) e0=$(bb_stat events)
bb -j events -f -n $N --timeout 20 >"$BB_TMP/a.json" 2>"$BB_TMP/a.err" &
ra=$!
wait_readers 1 || bail "the first reader did not start"
check_eq "the first reader owns the ring (it listens on $SOCK)" "$(owner_pid)" "$(bb_pid $ra)"
check_eq "... a socket of mode 0600, in a directory of 0700" \
	"$(stat -c %a "$SOCK") $(stat -c %a "$BB_STATE_DIR")" "600 700"
bb events -f -n $N --timeout 20 --pcap "$BB_TMP/b.pcap" >"$BB_TMP/b.txt" 2>"$BB_TMP/b.err" &
rb=$!
wait_readers 2 || bail "the second reader did not connect"
frames $N
wait $ra; rca=$?
wait $rb; rcb=$?
check_eq "stats: $N frames dropped, $N events raised" \
	"$(($(bb_stat dropped) - d0)) $(($(bb_stat events) - e0))" "$N $N"
check_eq "events -j -f -n $N: exits 0 with every event" "$rca $(lines "$BB_TMP/a.json")" "0 $N"
check_eq "events -f --pcap F -n $N beside it: exits 0 with every event" \
	"$rcb $(lines "$BB_TMP/b.txt")" "0 $N"
check_eq "... and the pcap file holds every dropped frame" "$(pcap_frames "$BB_TMP/b.pcap")" $N
check_no_match "neither lost one" 'lost|not known' "$(cat "$BB_TMP/a.err" "$BB_TMP/b.err")"
check_eq "the owner gone, its socket removed" "$(test -e "$SOCK" && echo there)" ""

# ---- three readers, top among them, no daemon ---------------------------------------------
d0=$(bb_stat dropped)
bb -j events -f -n $N --timeout 20 >"$BB_TMP/a.json" 2>"$BB_TMP/a.err" &
ra=$!
wait_readers 1 || bail "the first reader did not start"
bb events -f -n $N --timeout 20 --pcap "$BB_TMP/b.pcap" >"$BB_TMP/b.txt" 2>"$BB_TMP/b.err" &
rb=$!
bb -j top -n 1 --interval 5 >"$BB_TMP/top.json" 2>"$BB_TMP/top.err" &
rt=$!
wait_readers 3 || bail "three readers did not connect"
frames $N
wait $ra; rca=$?
wait $rb; rcb=$?
wait $rt; rct=$?
check_eq "three readers: $N frames dropped" "$(($(bb_stat dropped) - d0))" $N
check_eq "events -j -f: every event" "$rca $(lines "$BB_TMP/a.json")" "0 $N"
check_eq "events -f --pcap: every event, every frame in the file" \
	"$rcb $(lines "$BB_TMP/b.txt") $(pcap_frames "$BB_TMP/b.pcap")" "0 $N $N"
check_eq "top -j -n 1: every event, in its interval, none missed" \
	"$rct $(jq -r '[.events, .events_missed] | join(" ")' "$BB_TMP/top.json" 2>&1)" "0 $N 0"
check_eq "top: attributed to the list" "$(jq -r '.lists[0] | [.list, .hits] | join(" ")' \
	"$BB_TMP/top.json" 2>&1)" "$LIST $N"

# ---- the owner exits mid-stream: the next reader owns the ring, nothing lost --------------
T=100
d0=$(bb_stat dropped)
bb -j events -f --timeout 30 >"$BB_TMP/a.json" 2>"$BB_TMP/a.err" &
ra=$!
wait_readers 1 || bail "the first reader did not start"
bb -j events -f --timeout 120 >"$BB_TMP/b.json" 2>"$BB_TMP/b.err" &
rb=$!
wait_readers 2 || bail "the second reader did not connect"
first=$(bb_pid $ra)
in_src timeout 10 ping -n -c $T -i 0.02 -W 1 -I 198.51.100.2 $V4 >/dev/null 2>&1 &
pinger=$!
sleep 1
kill -TERM "$first"
wait $ra
check_eq "the owner, stopped mid-stream (SIGTERM), exits 0" "$?" 0
second=$(bb_pid $rb)
wait_owner "$second"
check_eq "the other reader owns the ring now" "$(owner_pid)" "$second"
wait $pinger
settle $rb "$BB_TMP/b.json" $T
rcb=$?
got_a=$(lines "$BB_TMP/a.json")
check_eq "$T pings dropped" "$(($(bb_stat dropped) - d0))" $T
check "the first reader got the events before it stopped ($got_a)" \
	test "$got_a" -gt 0 -a "$got_a" -lt $T
check_eq "the other got every one of the $T across the handover, each once" \
	"$rcb $(lines "$BB_TMP/b.json")" "0 $T"
check_no_match "... and lost none (the ring kept what the first had not read)" 'lost|not known' \
	"$(cat "$BB_TMP/b.err")"

# ---- kill -9 of the owner: its stale socket replaced, the loss said -------------------------
bb -j events -f --timeout 30 >"$BB_TMP/a.json" 2>"$BB_TMP/a.err" &
ra=$!
wait_readers 1 || bail "the first reader did not start"
bb -j events -f -n $N --timeout 30 >"$BB_TMP/b.json" 2>"$BB_TMP/b.err" &
rb=$!
wait_readers 2 || bail "the second reader did not connect"
kill -KILL "$(bb_pid $ra)"
wait $ra 2>/dev/null
wait_owner "$(bb_pid $rb)"
check_eq "the owner killed (-9): the other reader owns the ring" "$(owner_pid)" "$(bb_pid $rb)"
frames $N
wait $rb
check_eq "... and gets every event after" "$? $(lines "$BB_TMP/b.json")" "0 $N"
check_match "... saying what the killed owner held is not known" \
	'went without a word \(killed\?.*not known; now reading the ring here' \
	"$(cat "$BB_TMP/b.err")"

bb events -f --timeout 30 >/dev/null 2>&1 &
ra=$!
wait_readers 1 || bail "a lone reader did not start"
kill -KILL "$(bb_pid $ra)"
wait $ra 2>/dev/null
check "a lone owner killed: its socket stays behind, stale" test -S "$SOCK"
check_eq "... no one listens on it" "$(owner_pid)" ""
frames 5
sleep 0.2
run bb -j events
check_rc "events then exits 0: the stale socket replaced" 0
check_eq "... with the events raised meanwhile" "$(grep -c . <<<"$out")" 5
rm -f "$SOCK"
echo precious >"$SOCK"
run bb events
check_rc "a file that is no socket at the path: events exits 1" 1
check_match "... saying so" 'events\.sock: not a socket, and not bloomblock.s to remove' "$err"
check_eq "... and the file is left as it was" "$(cat "$SOCK")" precious
rm -f "$SOCK"

# ---- a reader that falls behind is told how many it lost; the others are not held up -------
run bb load "$LIST" --events 1000000 --events-burst 1000000
check_rc "reload with --events 1000000 (a flood raises every event)" 0
F=8000
e0=$(bb_stat events)
# told FILE: the events a reader's stderr said it lost by falling behind
told() {
	sed -n 's/.*events: \([0-9]*\) lost: this reader fell behind.*/\1/p' "$1" |
		awk '{ n += $1 } END { print n + 0 }'
}
bb -j events -f --timeout 120 >"$BB_TMP/a.json" 2>"$BB_TMP/a.err" &
ra=$!
wait_readers 1 || bail "the first reader did not start"
bb -j events -f --timeout 120 >"$BB_TMP/b.json" 2>"$BB_TMP/b.err" &
rb=$!
wait_readers 2 || bail "the second reader did not connect"
kill -STOP "$(bb_pid $rb)"
# in bursts the kernel's ring holds (~2250 events): the owner keeps up, the stopped one not
for _ in $(seq $((F / 1000))); do
	frames 1000
	sleep 0.2
done
sleep 0.5
kill -CONT "$(bb_pid $rb)"
raised=$(($(bb_stat events) - e0))
for _ in $(seq 200); do	# until both have had their say (20 s at most)
	[ "$(lines "$BB_TMP/a.json")" = "$raised" ] &&
		[ "$(($(lines "$BB_TMP/b.json") + $(told "$BB_TMP/b.err")))" = "$raised" ] && break
	sleep 0.1
done
kill -TERM "$(bb_pid $rb)" && wait $rb
kill -TERM "$(bb_pid $ra)" && wait $ra
lost_a=$(told "$BB_TMP/a.err") lost_b=$(told "$BB_TMP/b.err")
diag "a flood of $F frames, $raised events raised: lost by the owner's own reader $lost_a, by the
stopped one $lost_b"
check "a flood of $F frames: more events raised than the owner keeps ($raised)" \
	test "$raised" -gt 5000
check "a reader stopped meanwhile (SIGSTOP) was told it lost some ($lost_b)" test "$lost_b" -gt 0
check_eq "... what it got and what it was told it lost add up to every event" \
	"$(($(lines "$BB_TMP/b.json") + lost_b))" "$raised"
check_eq "the reader that kept reading (the owner's own) got every one, lost none" \
	"$(lines "$BB_TMP/a.json") $lost_a" "$raised 0"
run bb load "$LIST"
check_rc "reload with the default rate" 0

# ---- with bloomblock run: the daemon owns the ring, three readers each get every one -------
start_daemon || bail "bloomblock run did not start: $(cat "$BB_TMP/run.log")"
check_eq "bloomblock run owns the ring" "$(owner_pid)" "$(bb_pid $daemon)"
d0=$(bb_stat dropped)
bb -j events -f -n $N --timeout 20 >"$BB_TMP/a.json" 2>"$BB_TMP/a.err" &
ra=$!
bb events -f -n $N --timeout 20 --pcap "$BB_TMP/b.pcap" >"$BB_TMP/b.txt" 2>"$BB_TMP/b.err" &
rb=$!
bb -j top -n 1 --interval 5 >"$BB_TMP/top.json" 2>"$BB_TMP/top.err" &
rt=$!
wait_readers 3 || bail "three readers did not connect to the daemon"
frames $N
wait $ra; rca=$?
wait $rb; rcb=$?
wait $rt; rct=$?
check_eq "daemon and three readers: $N frames dropped" "$(($(bb_stat dropped) - d0))" $N
check_eq "events -j -f: every event" "$rca $(lines "$BB_TMP/a.json")" "0 $N"
check_eq "events -f --pcap: every event, every frame in the file" \
	"$rcb $(lines "$BB_TMP/b.txt") $(pcap_frames "$BB_TMP/b.pcap")" "0 $N $N"
check_eq "top: every event" "$rct $(jq -r .events "$BB_TMP/top.json" 2>&1)" "0 $N"
check_eq "the daemon still owns the ring" "$(owner_pid)" "$(bb_pid $daemon)"

frames 7
sleep 0.2
run bb -j events
check_eq "events (no -f) while the daemon reads the ring: what no reader took yet" \
	"$rc $(grep -c . <<<"$out")" "0 7"
run bb events
check_eq "... taken once: nothing the second time" "$rc $out" "0 "
# its socket removed under it: a reader owns the ring a moment, the daemon takes it back
bb -j events -f --timeout 120 >"$BB_TMP/a.json" 2>"$BB_TMP/a.err" &
ra=$!
wait_readers 1 || bail "a reader did not connect to the daemon"
frames $N
sleep 1	# read, and said taken (a reader says so when idle 200 ms): the next takes them not
rm -f "$SOCK"
bb -j events -f --timeout 120 >"$BB_TMP/b.json" 2>"$BB_TMP/b.err" &
rb=$!
# the daemon binds again, or takes the ring over from that reader when it bound first
wait_log 'is no longer this daemon.s socket: taking it again' ||
	bail "the daemon did not notice: $(cat "$BB_TMP/run.log")"
if ! wait_owner "$(bb_pid $daemon)" || ! wait_readers 2; then
	bail "the ring did not come back to the daemon: $(cat "$BB_TMP/run.log")"
fi
check_eq "the daemon's socket removed: it says so, and owns the ring again" \
	"$(owner_pid)" "$(bb_pid $daemon)"
diag "$(grep 'taken over' "$BB_TMP/run.log" || echo "(it bound again before the reader came)")"
frames $N
settle $ra "$BB_TMP/a.json" $((2 * N))
settle $rb "$BB_TMP/b.json" $N
check_eq "... the reader of before got every event, none twice" "$(lines "$BB_TMP/a.json")" \
	$((2 * N))
check_eq "... the one that owned it a moment, every event since it started" \
	"$(lines "$BB_TMP/b.json")" $N
stop_daemon
check_eq "the daemon stops (SIGTERM): exit 0, its socket removed" \
	"$? $(test -e "$SOCK" && echo there)" "0 "

# ---- the daemon takes the ring over from the reader that owns it ---------------------------
bb -j events -f -n $((2 * N)) --timeout 30 >"$BB_TMP/a.json" 2>"$BB_TMP/a.err" &
ra=$!
wait_readers 1 || bail "the first reader did not start"
bb -j events -f -n $((2 * N)) --timeout 30 >"$BB_TMP/b.json" 2>"$BB_TMP/b.err" &
rb=$!
wait_readers 2 || bail "the second reader did not connect"
frames $N
start_daemon || bail "bloomblock run did not start: $(cat "$BB_TMP/run.log")"
wait_readers 2 || bail "the readers did not follow the ring to the daemon"
check_eq "bloomblock run, started, owns the ring" "$(owner_pid)" "$(bb_pid $daemon)"
check_match "... saying it took it over from the reader" \
	"events: the ring taken over from the reader that read it \\(pid $(bb_pid $ra)\\)" \
	"$(cat "$BB_TMP/run.log")"
frames $N
wait $ra; rca=$?
wait $rb; rcb=$?
check_eq "the reader that owned it got every event, before and after" \
	"$rca $(lines "$BB_TMP/a.json")" "0 $((2 * N))"
check_eq "... and so did the other" "$rcb $(lines "$BB_TMP/b.json")" "0 $((2 * N))"
check_no_match "... neither lost one" 'lost|not known' "$(cat "$BB_TMP/a.err" "$BB_TMP/b.err")"

# ---- attributed when raised: a del after the event ----------------------------------------
# the daemon reads the ring at once: the event is attributed before the del
bb events >/dev/null
ping_from 198.51.100.2 $V4 2 0.2
sleep 0.5
run bb del 198.51.100.2
check_rc "del 198.51.100.2 exits 0" 0
run bb -j events
check_eq "events read after a del, raised before it (the daemon read them): listed at line 2" \
	"$(jq -r '[.attribution, .false_positive, .listed_in.file, .listed_in.line] | join(" ")' \
	<<<"$out" | sort -u)" "listed false $LIST 2"
stop_daemon
run bb add 198.51.100.2
check_rc "add 198.51.100.2 back" 0
# no reader now: the events wait in the ring until a del moved the index on
ping_from 198.51.100.2 $V4 2 0.2
run bb del 198.51.100.2
check_rc "del it again, no reader running" 0
run bb events
check_rc "events exits 0" 0
check_no_match "events raised before the del: never called a false positive" 'false positive' "$out"
said='src 198\.51\.100\.2 198\.51\.100\.2 > 198\.51\.100\.1: listed when raised\? not known: '
said+='the filter changed since \(live changes 2 -> 3\); now: not listed$'
check_match "... but said: the index moved on since, and what it says now" "$said" "$out"
run bb add 198.51.100.2
ping_from 198.51.100.2 $V4 2 0.2
run bb del 198.51.100.2
run bb -j events
check_eq "events -j: attribution changed, false_positive null, the epochs, now on no list" \
	"$(jq -c '[.attribution, .false_positive, .live_changes, .index_live_changes,
		.now_listed_in]' <<<"$out" | sort -u)" '["changed",null,4,5,null]'
run bb load "$LIST"
ping_from 198.51.100.2 $V4 2 0.2
run bb load "$LIST"
run bb events
check_match "events of a filter reloaded since: said so, not attributed by the new one" \
	'listed when raised\? not known: the filter was reloaded since$' "$out"

run bb unload --all
check_rc "unload --all exits 0" 0
tap_done
