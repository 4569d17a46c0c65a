#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End to end, --answer: dig in the source namespace asks 198.51.100.1 (no DNS server
# there at all) for a blocked name, and the XDP program on bbd0 answers: NXDOMAIN
# with reject, 0.0.0.0 / :: with sinkhole (where the record would not fit in the
# query: NOERROR with no record), in well under 100 ms (dig's query time) where a drop
# takes dig's whole timeout; IPv4 and IPv6. An unlisted name, a listed source and DNS over TCP get no answer from it. A
# reload keeps --answer; status, stats, bpftool and the metrics show it; a flood is
# answered within --answer-rate. At tc ingress the answer is redirected back out of
# bbd0; at tc egress a query dig sends from the dut is turned around into its own
# stack. TAP output; root.
#
# veth: a frame an XDP program sends back (XDP_TX) reaches its peer only when the
# peer runs NAPI, which an XDP program of its own turns on; so bbs0 gets a program
# that passes everything (a physical NIC sends XDP_TX frames out on the wire).
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# the build under test (make asan: .output-asan), where the test programs' objects are
case ${BB_OUTPUT:-.output} in /*) BB_OBJ_DIR=$BB_OUTPUT ;; *) BB_OBJ_DIR=$BB_ROOT/${BB_OUTPUT:-.output} ;; esac

e2e_begin
for c in dig python3; do
	command -v "$c" >/dev/null || skip_all "needs $c (scripts/install-deps.sh installs it)"
done
PASS_PROG=$BB_OBJ_DIR/xxhash_test.bpf.o	# returns XDP_PASS
[ -e "$PASS_PROG" ] || bail "$PASS_PROG is missing: make tests first"

LIST=$BB_TMP/answer.txt
printf 'blocked.example\n198.51.100.3\n' >"$LIST"
V4=198.51.100.1 V6=2001:db8:51::1


# ask_in NS [DIG ARGS...]: dig from namespace NS, one try, a 2 s timeout; $out; $ms,
# dig's own "Query time" (from its query sent to the answer read: what the kernel's
# answer saves; 9999 with no answer), and $wall_ms, the whole run with dig's start,
# which a loaded machine stretches
ask_in() {
	local ns=$1 t0 t1
	shift
	t0=$(date +%s%N)
	out=$(ip netns exec "$ns" dig +tries=1 +time=2 "$@" 2>&1)
	t1=$(date +%s%N)
	wall_ms=$(( (t1 - t0) / 1000000 ))
	ms=$(sed -n 's/^;; Query time: \([0-9]*\) msec$/\1/p' <<<"$out")
	ms=${ms:-9999}
}
ask() { ask_in "$NS_SRC" "$@"; }	# from the source namespace

# ---- a veth whose peer runs no XDP program: XDP_TX would lose every answer --------------
# (no NAPI for XDP frames there), so its answers leave from tc, through the helper beside XDP
run bb load "$LIST" -i bbd0 --answer reject
check_rc "load --answer reject at XDP on a veth whose peer has no XDP program" 0
check_match "... says the answers leave from tc, and why" \
	'bbd0: a veth whose peer bbs0 runs no XDP program, so XDP_TX would not reach it: its DNS answers leave from tc' \
	"$err"
check_eq "... the interface is in the instance's tx_via_tc map" \
	"$(bpftool -j map dump pinned "$BB_PIN_DIR/tx_via_tc" | jq -c '[.[].formatted.key]')" \
	"[$(in_dut cat /sys/class/net/bbd0/ifindex)]"
a0=$(bb_stat dns_answered) d0=$(bb_stat dropped)
ask @$V4 blocked.example A
check_match "... and dig gets its NXDOMAIN" 'status: NXDOMAIN' "$out"
check_ge "... in under 100 ms (${ms} ms)" $((100 - ms)) 1
check_eq "... counted once, where it was sent: dns_answered" "$(( $(bb_stat dns_answered) - a0 ))" 1
check_eq "... and as a drop of the query" "$(( $(bb_stat dropped) - d0 ))" 1
ask @$V6 blocked.example AAAA
check_match "... over IPv6 too" 'status: NXDOMAIN' "$out"
run bb unload --all

in_src ip link set dev bbs0 xdpdrv obj "$PASS_PROG" sec xdp || bail "no XDP program on bbs0"

run bb load "$LIST" -i bbd0 --answer reject
check_rc "load --answer reject -i bbd0" 0
check_eq "... the peer runs XDP now: XDP_TX reaches it, nothing in tx_via_tc" \
	"$(bpftool -j map dump pinned "$BB_PIN_DIR/tx_via_tc" | jq -c 'length')" 0
run bb status
check_match "status: answers reject" '^answers +reject: a blocked DNS query at XDP gets NXDOMAIN' "$out"

ask @$V4 blocked.example A
check_match "dig A blocked.example: NXDOMAIN, from the kernel" 'status: NXDOMAIN' "$out"
check_match "... with qr rd ra" 'flags: qr rd ra;' "$out"
check_ge "... in under 100 ms (${ms} ms; ${wall_ms} ms with dig's start)" $((100 - ms)) 1
ask @$V6 www.blocked.example AAAA
check_match "dig AAAA www.blocked.example over IPv6: NXDOMAIN" 'status: NXDOMAIN' "$out"
check_ge "... in under 100 ms (${ms} ms)" $((100 - ms)) 1
ask @$V4 fine.example A
check_no_match "an unlisted name: no answer from bloomblock (nothing serves DNS there)" \
	'status:' "$out"
ask -b 198.51.100.3 @$V4 blocked.example A
check_match "a listed source's query: dropped, not answered" 'timed out' "$out"
ask +tcp @$V4 blocked.example A
check_no_match "DNS over TCP is not answered (out of scope): no NXDOMAIN" 'status: NXDOMAIN' "$out"

run bb load "$LIST" --answer drop
ask @$V4 blocked.example A
check_match "--answer drop: the query times out" 'timed out' "$out"
check_ge "... after dig's whole timeout (${wall_ms} ms)" "$wall_ms" 1900

# ---- sinkhole ------------------------------------------------------------------------------
run bb load "$LIST" --answer sinkhole
check_rc "load --answer sinkhole" 0
run bb load "$LIST"
check_rc "a reload without --answer" 0
run bb status -j
check_eq "... keeps sinkhole" "$(jq -r .answer.mode <<<"$out")" sinkhole
ask @$V4 blocked.example A
check_match "sinkhole: dig A gets 0.0.0.0, TTL 2" '^blocked\.example\.[[:space:]]+2[[:space:]]+IN[[:space:]]+A[[:space:]]+0\.0\.0\.0$' "$out"
check_match "... status NOERROR" 'status: NOERROR' "$out"
ask +ednsopt=12:0000000000000000 @$V6 blocked.example AAAA
check_match "sinkhole: dig AAAA over IPv6 (EDNS with room for it) gets ::" '^blocked\.example\.[[:space:]]+2[[:space:]]+IN[[:space:]]+AAAA[[:space:]]+::$' "$out"
ask @$V6 blocked.example AAAA
check_match "sinkhole, AAAA with no room for :: in the query: no data, never larger" \
	'status: NOERROR, .*ANSWER: 0' "$(tr '\n' ' ' <<<"$out")"
ask +noedns @$V4 blocked.example A
check_match "sinkhole, A with no room for 0.0.0.0 (no EDNS): no data" \
	'status: NOERROR, .*ANSWER: 0' "$(tr '\n' ' ' <<<"$out")"
ask @$V4 blocked.example TXT
check_match "sinkhole, TXT: NOERROR and no answer (no data)" 'status: NOERROR.*ANSWER: 0|ANSWER: 0' \
	"$(tr '\n' ' ' <<<"$out")"

# ---- the counters: stats, bpftool, the metrics ------------------------------------------------
check_eq "stats: dns_answered counts the answers (2 rejects, 5 sinkhole)" "$(bb_stat dns_answered)" 7
run bpftool map dump pinned "$BB_PIN_DIR/stats"
check_match "bpftool reads dns_answered from the stats map (BTF)" '"dns_answered": [0-9]+' "$out"
run bb stats --prometheus
check_match "metrics: bloomblock_dns_answered_total" \
	'^bloomblock_dns_answered_total\{interface="[^"]*",hook="[a-z-]+"\} [1-9][0-9]*$' "$out"
check_match "metrics: bloomblock_answer_limited_total" \
	'^bloomblock_answer_limited_total\{interface="[^"]*",hook="[a-z-]+"\} [0-9]+$' "$out"

# ---- a flood: within --answer-rate ------------------------------------------------------------
run bb load "$LIST" --answer reject --answer-rate 50
check_rc "load --answer-rate 50" 0
l0=$(bb_stat answer_limited) a0=$(bb_stat dns_answered)
got=$(in_src timeout 30 python3 - <<'PY'
import socket, struct, time
q = struct.pack("!HHHHHH", 0, 0x0100, 1, 0, 0, 0) + b"\x07blocked\x07example\x00" + struct.pack("!HH", 1, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("198.51.100.2", 0))
s.setblocking(False)
got = 0
t0 = time.monotonic()
for i in range(2000):
    s.sendto(struct.pack("!H", i) + q[2:], ("198.51.100.1", 53))
    if i % 100 == 99:
        time.sleep(0.01)
end = time.monotonic() + 1
while time.monotonic() < end:
    try:
        s.recv(512)
        got += 1
    except BlockingIOError:
        time.sleep(0.01)
print(got, round(time.monotonic() - t0 - 1, 2))
PY
)
read -r replies secs <<<"$got"
limited=$(( $(bb_stat answer_limited) - l0 )) answered=$(( $(bb_stat dns_answered) - a0 ))
check_ge "a flood of 2000 queries: most dropped unanswered (answer_limited $limited)" "$limited" 1500
check_eq "... the client got what was answered ($replies)" "$replies" "$answered"
# a bucket a CPU: its burst, and the rate over the flood's time, on each
max=$(awk -v s="$secs" -v n="$(nproc)" 'BEGIN { printf "%d", n * (50 + 50 * s) + 5 }')
check_ge "... at most the burst and the rate for ${secs} s on each of $(nproc) CPUs ($answered <= $max)" \
	$((max - answered)) 0

# ---- the config file -----------------------------------------------------------------------------
printf '[instance]\ninterface = bbd0\nlist = %s\nanswer = sinkhole\nanswer_rate = 100\n' "$LIST" \
	>"$BB_TMP/answer.conf"
run bb run --config "$BB_TMP/answer.conf" --check-config	# in bbd0's namespace
check_rc "run --check-config: answer = sinkhole is a key" 0
printf '[instance]\ninterface = bbd0\nlist = %s\nanswer = loud\n' "$LIST" >"$BB_TMP/answer.conf"
run bb run --config "$BB_TMP/answer.conf" --check-config
check_rc "... answer = loud is refused" 2
check_match "... naming file, line and key" 'answer.conf:4: answer: ' "$err"

run bb unload --all
check_rc "unload --all" 0
in_src ip link set dev bbs0 xdpdrv off

# ---- tc: ingress (the answer redirected out of bbd0), egress (into the dut's own stack) ----
run bb load "$LIST" -i bbd0 --hook tc-ingress --answer reject
check_rc "tc-ingress: load --answer reject" 0
ask @$V4 blocked.example A
check_match "tc-ingress: dig A blocked.example gets NXDOMAIN" 'status: NXDOMAIN' "$out"
check_ge "... in under 100 ms (${ms} ms)" $((100 - ms)) 1
ask @$V6 blocked.example AAAA
check_match "tc-ingress: over IPv6 too" 'status: NXDOMAIN' "$out"
run bb load "$LIST" --answer sinkhole
ask +ednsopt=12:0000000000000000 @$V4 blocked.example A
check_match "tc-ingress, sinkhole: 0.0.0.0" '^blocked\.example\.[[:space:]]+2[[:space:]]+IN[[:space:]]+A[[:space:]]+0\.0\.0\.0$' "$out"
run bb unload --all

# dig in the dut asks 198.51.100.2 (src: nothing serves DNS there); its query leaves by bbd0
ask_dut() { ask_in "$NS_DUT" "$@"; }
run bb load "$LIST" -i bbd0 --hook tc-egress --answer reject
check_rc "tc-egress: load --answer reject" 0
a0=$(bb_stat dns_answered)
ask_dut @198.51.100.2 blocked.example A
check_match "tc-egress: dig in the dut gets NXDOMAIN for its own query, turned around" \
	'status: NXDOMAIN' "$out"
check_ge "... in under 100 ms (${ms} ms)" $((100 - ms)) 1
ask_dut @2001:db8:51::2 www.blocked.example AAAA
check_match "tc-egress: over IPv6 too" 'status: NXDOMAIN' "$out"
ask_dut @198.51.100.2 fine.example A
check_match "tc-egress: an unlisted name goes out, unanswered (no server there: refused)" \
	'connection refused|timed out' "$out"
check_no_match "... no answer from bloomblock" 'status:' "$out"
check_eq "tc-egress: dns_answered +2" $(( $(bb_stat dns_answered) - a0 )) 2
run bb unload --all
check_rc "unload --all" 0
tap_done
