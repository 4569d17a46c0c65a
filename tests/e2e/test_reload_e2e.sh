#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Zero-gap reloads, proved under traffic: a bounded stream of UDP datagrams and DNS
# queries (tens of thousands, from listed and unlisted sources, for listed and
# unlisted names) goes through the attached XDP program while `load` replaces the
# list 100 times, alternating between two lists with a common part and a part of
# their own each. A receiver in the dut namespace counts what arrived:
#
#   - not one packet of an item listed in both lists arrives;
#   - every packet of an unlisted item arrives (the loads use a fixed seed under
#     which no unlisted item is a false positive: `check` says so first);
#   - the items of one list only arrive while the other list is live: some arrive,
#     some do not;
#   - the old filter maps are freed: the BPF maps and programs the instance holds, or
#     no one does, do not grow in number or in memlock over the 100 reloads (the
#     census below says how it tells them from other tests' maps).
#
# Then the same again with the daemon doing the reloads: `bloomblock run --config`
# whose list file is replaced (a rename) before each SIGHUP, at least 30 times
# under the same stream, each SIGHUP's load waited for before the next.
#
# TAP output; root needed (else skipped; a skip fails under CI=true).
#
#   dut namespace: bbd0  198.51.100.1   <- bloomblock XDP; the receiver on :9 and :53
#   src namespace: bbs0  198.51.100.2 .3, 203.0.113.10 .20 .30 .40   <- the sender
# bb-test: serial: counts BPF maps and programs machine-wide (bpf_census)
# (tests/run.sh runs it alone: the maps and programs no one holds, which another suite's
# loads and exits beside it change)
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

for c in python3 bpftool jq; do
	command -v "$c" >/dev/null || skip_all "needs $c (scripts/install-deps.sh installs it)"
done

RELOADS=${BB_RELOADS:-100}
HUPS=${BB_RELOAD_HUPS:-30}
FRAMES=${BB_RELOAD_FRAMES:-40000}	# datagrams in all, over every source and name

e2e_begin
for a in 203.0.113.10 203.0.113.20 203.0.113.30 203.0.113.40; do
	netns_add_src "$a" || bail "could not add the source $a"
done

# BOTH: listed in both lists; ONE: only in list 1; TWO: only in list 2; FREE: in neither
BOTH=203.0.113.10 ONE=203.0.113.20 TWO=203.0.113.30 FREE=203.0.113.40
LIST1=$BB_TMP/list1.txt LIST2=$BB_TMP/list2.txt
cat >"$LIST1" <<EOF
# the common part
$BOTH
both.example
# list 1's own part
$ONE
one.example
EOF
cat >"$LIST2" <<EOF
# the common part
$BOTH
both.example
# list 2's own part
$TWO
two.example
EOF

run bb load "$LIST1" -i bbd0 --seed 7
check_rc "load list 1 -i bbd0 exits 0" 0
run bb load "$LIST2" --seed 7
run bb check "$FREE" free.example 198.51.100.2
check_rc "under seed 7, list 2 holds no unlisted item as a false positive" 1
check_eq "... none of them" "$(grep -c 'not listed' <<<"$out")" 3
run bb load "$LIST1" --seed 7
run bb check "$FREE" free.example 198.51.100.2
check_eq "under seed 7, nor does list 1" "$(grep -c 'not listed' <<<"$out")" 3


# ---- the receiver: counts datagrams on :9 by source, DNS queries on :53 by name ---------
RECV_OUT=$BB_TMP/received.json
# started as `ip netns exec ... timeout ...` itself, not through in_dut, so that $! is
# timeout, which passes the SIGTERM on to the receiver
start_receiver() {
rm -f "$RECV_OUT" "$RECV_OUT.ready"
ip netns exec "$NS_DUT" timeout 120 python3 - "$RECV_OUT" <<'PY' &
import json, select, signal, socket, sys
out = sys.argv[1]
counts = {}
def done(*_):
    with open(out + ".tmp", "w") as f:
        json.dump(counts, f)
    import os
    os.rename(out + ".tmp", out)
    sys.exit(0)
signal.signal(signal.SIGTERM, done)
socks = []
for port in (9, 53):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.bind(("198.51.100.1", port))
    socks.append(s)
open(out + ".ready", "w").close()
while True:
    r, _, _ = select.select(socks, [], [], 1)
    for s in r:
        data, (src, _) = s.recvfrom(2048)
        if s.getsockname()[1] == 9:
            key = src
        else:
            # the question name: labels after the 12-byte header
            i, labels = 12, []
            while i < len(data) and data[i]:
                labels.append(data[i + 1:i + 1 + data[i]].decode())
                i += 1 + data[i]
            key = ".".join(labels)
        counts[key] = counts.get(key, 0) + 1
PY
RECV_PID=$!
for _ in $(seq 50); do [ -e "$RECV_OUT.ready" ] && break; sleep 0.1; done
}

# ---- the sender: raw frames out of bbs0, round robin over the items, paced ---------------
SENT_OUT=$BB_TMP/sent.json
send_stream() {
	local mac
	mac=$(ip -n "$NS_DUT" -j link show bbd0 | jq -r '.[0].address') || return 1
	in_src timeout 120 python3 - "$mac" "$FRAMES" "$SENT_OUT" "$@" <<'PY'
import json, socket, struct, sys, time
mac, total, out, items = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("bbs0", 0))
smac = s.getsockname()[4]
dmac = bytes.fromhex(mac.replace(":", ""))
def csum(b):
    if len(b) % 2: b += b"\0"
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while t >> 16: t = (t & 0xffff) + (t >> 16)
    return ~t & 0xffff
def frame(src, dport, payload):
    udp = struct.pack("!HHHH", 40000, dport, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0,
                     socket.inet_aton(src), socket.inet_aton("198.51.100.1"))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return dmac + smac + struct.pack("!H", 0x0800) + ip + udp
def query(name):
    q = b"".join(bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0"
    return struct.pack("!HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0) + q + struct.pack("!HH", 1, 1)
frames = []
for item in items:
    if item[0].isdigit():
        frames.append((item, frame(item, 9, b"bbt!")))
    else:	# a name: a query from the unlisted 198.51.100.2
        frames.append((item, frame("198.51.100.2", 53, query(item))))
sent = {k: 0 for k, _ in frames}
t0 = time.monotonic()
for i in range(total):
    k, f = frames[i % len(frames)]
    s.send(f)
    sent[k] += 1
    if i % 200 == 199:	# about 4000 a second: the reloads take ~10 s
        lag = t0 + (i + 1) / 4000 - time.monotonic()
        if lag > 0:
            time.sleep(lag)
json.dump(sent, open(out, "w"))
PY
}

# phase NAME RELOAD MIN: the stream through at least MIN reloads, each made by the
# function RELOAD (given the list to make live), alternating the lists; then the checks
phase() {
local name=$1 reload=$2 min=$3 reload_fail=0 i=0 reloads g s k left
start_receiver
check "$name: the receiver listens in the dut namespace" test -e "$RECV_OUT.ready"
census0=$(bpf_census "$BB_PIN_DIR" "${our_pids[@]}")
gen0=$(bb_status .filter.generation)
nofilter0=$(bb_stat no_filter)
send_stream "$BOTH" "$ONE" "$TWO" "$FREE" both.example one.example two.example free.example &
SEND_PID=$!
# reloads for as long as the stream flows, and at least $min of them
while [ "$i" -lt "$min" ] || kill -0 "$SEND_PID" 2>/dev/null; do
	i=$((i + 1))
	if [ $((i % 2)) = 1 ]; then l=$LIST2; else l=$LIST1; fi
	"$reload" "$l" >/dev/null 2>&1 || reload_fail=$((reload_fail + 1))
	[ "$i" -lt 5000 ] || break	# bounded, whatever happens
done
reloads=$i
wait "$SEND_PID"
send_rc=$?
sleep 0.5	# the last datagrams reach the receiver
kill -TERM "$RECV_PID" 2>/dev/null
wait "$RECV_PID" 2>/dev/null
check_eq "$name: the sender sent every frame" "$send_rc" 0
check_ge "$name: at least $min reloads under traffic ($reloads)" "$reloads" "$min"
check_eq "$name: every reload succeeded" "$reload_fail" 0
check_eq "$name: the generation advanced by $reloads" "$(bb_status .filter.generation)" \
	$((gen0 + reloads))

check_eq "$name: no packet met a missing filter (no_filter unchanged)" "$(bb_stat no_filter)" \
	"$nofilter0"
check_ge "$name: tens of thousands of frames went through the reloads" \
	$(( $(sent "$BOTH") + $(sent "$ONE") + $(sent "$TWO") + $(sent "$FREE") + $(sent both.example) \
	+ $(sent one.example) + $(sent two.example) + $(sent free.example) )) 20000
check_eq "$name: not one datagram from $BOTH (in both lists) arrived" "$(got "$BOTH")" 0
check_eq "$name: not one query for both.example (in both lists) arrived" "$(got both.example)" 0
check_eq "$name: every datagram from the unlisted $FREE arrived ($(sent "$FREE") sent)" \
	"$(got "$FREE")" "$(sent "$FREE")"
check_eq "$name: every query for the unlisted free.example arrived ($(sent free.example) sent)" \
	"$(got free.example)" "$(sent free.example)"
for k in "$ONE" "$TWO" one.example two.example; do
	g=$(got "$k") s=$(sent "$k")
	if [ "$g" -gt 0 ] && [ "$g" -lt "$s" ]; then
		tap_ok "$name: $k, in one list: follows the switch ($g of $s arrived)"
	else
		tap_not_ok "$name: $k, in one list: follows the switch"; echo "# $g of $s arrived"
	fi
done

# Old maps are freed once the swap's RCU grace period is over, by a kernel worker: seen
# to take over 10 s on a loaded 2-core machine (the map gone a little later). Up to 40 s.
t_end=$((SECONDS + 40))
while :; do	# a census takes a second or so
	census1=$(bpf_census "$BB_PIN_DIR" "${our_pids[@]}")
	left=$(leaks "$census0" "$census1")
	[ "$left" = "0 0 0 0 0" ] || [ "$SECONDS" -ge "$t_end" ] && break
	sleep 0.5
done
read -r d_maps d_progs d_memlock u_maps u_progs <<<"$left"
check_eq "$name: the instance holds as many maps as before ($(jq '.instance.maps | length' <<<"$census0"))" \
	"$d_maps" 0
check_eq "$name: ... and as many programs ($(jq '.instance.progs | length' <<<"$census0"))" "$d_progs" 0
check_eq "$name: ... and no more map memlock ($(jq .instance.memlock <<<"$census0") bytes)" \
	"$((d_memlock > 0 ? d_memlock : 0))" 0
check_eq "$name: no map made since the reloads began is held by no one" "$u_maps" 0
check_eq "$name: no program made since is held by no one" "$u_progs" 0
[ "$left" = "0 0 0 0 0" ] || diag "$(jq -rn --argjson a "$census0" --argjson b "$census1" '
	"instance maps before: \($a.instance.maps)", "instance maps after: \($b.instance.maps)",
	(($b.unowned.maps - $a.all_maps) + ($b.instance.maps - $a.instance.maps))[] |
	"  map \(.): \($b.names[tostring])"')"
}
sent() { jq -r --arg k "$1" '.[$k] // 0' "$SENT_OUT" 2>/dev/null; }
got() { jq -r --arg k "$1" '.[$k] // 0' "$RECV_OUT" 2>/dev/null; }

# ---- reloads by load ---------------------------------------------------------------------
reload_load() { bb load "$1" --seed 7; }
# the instance's own, for the census: its namespaces, and no process (none outlives a load)
our_pids=("netns:/run/netns/$NS_DUT" "netns:/run/netns/$NS_SRC")
phase "load" reload_load "$RELOADS"

# ---- reloads by the daemon's SIGHUP ----------------------------------------------------------
CUR=$BB_TMP/current.txt CONF=$BB_TMP/reload.conf
cp "$LIST1" "$CUR"
# watch = no: one SIGHUP, one load (the list's rename would be loaded by the watch too)
printf '[instance]\ninterface = bbd0\nmode = drop\nlist = %s\npin_dir = %s\nseed = 7\nmetrics = off\nwatch = no\n' \
	"$CUR" "$BB_PIN_DIR" >"$CONF"
RUN_LOG=$BB_TMP/run.log
: >"$RUN_LOG"
timeout -k 10 300 nsenter --net="/run/netns/$NS_DUT" "$BB" run --config "$CONF" >"$RUN_LOG" 2>&1 &
daemon=$!
for _ in $(seq 1 100); do grep -q '^<6>serving /sys' "$RUN_LOG" && break; sleep 0.1; done
dpid=$(pgrep -P "$daemon" | head -n 1)
check_match "run --config serves the instance" '^<6>serving /sys' "$(cat "$RUN_LOG")"
# reload_hup LIST: LIST made the config's list (a rename), SIGHUP, its load waited for
reload_hup() {
	local n
	n=$(grep -c '^<6>SIGHUP: loaded' "$RUN_LOG")
	cp "$1" "$CUR.new" && mv "$CUR.new" "$CUR" && kill -HUP "$dpid" || return 1
	for _ in $(seq 1 200); do
		[ "$(grep -c '^<6>SIGHUP: loaded' "$RUN_LOG")" -gt "$n" ] && return 0
		grep -q '^<3>SIGHUP' "$RUN_LOG" && return 1
		sleep 0.05
	done
	return 1
}
our_pids+=("pid:$dpid")	# the daemon's fds are the instance's
phase "SIGHUP" reload_hup "$HUPS"
kill -TERM "$dpid" 2>/dev/null
wait "$daemon"
check_match "the daemon stopped cleanly on SIGTERM" '^<6>stopped \(SIGTERM\)' "$(cat "$RUN_LOG")"
check_no_match "... and said no error" '^<3>' "$(cat "$RUN_LOG")"

run bb unload --all
check_rc "unload --all exits 0" 0
tap_done
