#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End to end, hit events: real pings, DNS queries, TLS handshakes and HTTP requests
# through the attached XDP program (and pings from the dut through its tc egress
# program), read back with `bloomblock events` (text, -j, --follow, the filters),
# each of every kind (source, destination, DNS name, SNI, Host, URL) attributed to
# its list and line, a crafted false positive called one, and the rate limit holding
# under a flood with the loss counted. TAP output; root needed.
#
#   dut namespace: bbd0  198.51.100.1   <- bloomblock at XDP and tc egress; openssl
#                                          s_server :443, busybox httpd :80
#   src namespace: bbs0  198.51.100.2 (listed) .3 (unlisted), 203.0.113.7 (a listed
#                        destination)
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

for c in curl openssl busybox; do
	command -v "$c" >/dev/null || skip_all "needs $c (scripts/install-deps.sh installs it)"
done

e2e_begin
netns_add_src 203.0.113.7 || bail "could not add 203.0.113.7 to the src namespace"

V4=198.51.100.1
LIST=$BB_TMP/events.txt
cat >"$LIST" <<'EOF'
# events e2e
198.51.100.2
evil.example
203.0.113.7
secure.example
plain.example
http://web.example/bad/
EOF

# dig_from SRC NAME: one query from SRC to the dut (dropped or unanswered: no server)
dig_from() { in_src timeout 5 dig @"$V4" -b "$1" "$2" +tries=1 +time=1 >/dev/null 2>&1; }

run bb load "$LIST" -i bbd0
check_rc "load LIST -i bbd0 exits 0" 0
check_eq "status -j: events on by default, 1000 a second a CPU" \
	"$(bb_status '[.events.on, .events.rate, .events.burst] | join(" ")')" "true 1000 1000"
check_match "status: says so" '^events +on: at most 1000 a second a CPU' "$(bb status)"

# ---- a listed source: one event, attributed ---------------------------------------------
run bb events
check_rc "events on an empty ring exits 0" 0
check_eq "... and prints nothing" "$out" ""
# no hit in its interval: tables of none (before, an empty table was handed to qsort()
# as NULL: undefined behaviour, fatal under make asan)
run bb top -n 1 --interval 0.2
check_rc "top with no hit in its interval exits 0" 0
check_eq "... its three tables say (none)" "$(grep -c '^(none)$' <<<"$out")" 3
run bb -j top -n 1 --interval 0.2
check_rc "top -j with no hit exits 0" 0
expect_blocked "listed 198.51.100.2 is dropped" 198.51.100.2 $V4
run bb -j events
check_rc "events -j exits 0" 0
ev=$(head -n 1 <<<"$out")
check_eq "events -j: one JSON line a dropped ping" "$(grep -c . <<<"$out")" "$ping_tx"
check_eq "the event: kind, verdict, interface, hook" \
	"$(jq -r '[.kind, .verdict, .interface, .hook] | join(" ")' <<<"$ev" 2>&1)" "src dropped bbd0 xdp"
check_eq "the event: source and destination" "$(jq -r '[.src, .dst] | join(" ")' <<<"$ev" 2>&1)" \
	"198.51.100.2 $V4"
check_eq "the event: listed at the list's line 2, not a false positive" \
	"$(jq -r '[.listed_in.file, .listed_in.line, .false_positive] | join(" ")' <<<"$ev" 2>&1)" \
	"$LIST 2 false"
run bb events
check_eq "read once: the ring is empty after" "$out" ""

# ---- --pcap: the dropped packets as tcpdump reads them --------------------------------------
expect_blocked "listed 198.51.100.2 dropped again" 198.51.100.2 $V4
run bb events --pcap "$BB_TMP/drops.pcap"
check_rc "events --pcap FILE exits 0" 0
run tcpdump -nr "$BB_TMP/drops.pcap"
check_rc "tcpdump -r reads the file" 0
check_eq "... one packet an event, the dropped echo requests from 198.51.100.2" \
	"$(grep -c "IP 198\.51\.100\.2 > $V4: ICMP echo request" <<<"$out")" "$ping_tx"

# ---- a listed DNS name from an unlisted source ------------------------------------------
dig_from 198.51.100.3 mail.evil.example
run bb events
check_match "events (text): a dns event for mail.evil.example, listed at :3" \
	"bbd0 xdp dropped dns mail\\.evil\\.example 198\\.51\\.100\\.3:[0-9]+ > $V4:53: listed \\($LIST:3\\)" "$out"
check_match "events (text): its time to the millisecond, the tick's resolution" \
	"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z bbd0 xdp dropped dns mail" "$out"

# ---- --follow, --count, the filters -------------------------------------------------------
bb -j events -f -n 1 --kind dns --timeout 15 >"$BB_TMP/follow.json" 2>&1 &
follow=$!
sleep 0.5
ping_from 198.51.100.2 $V4 2 0.2
dig_from 198.51.100.3 evil.example
wait "$follow"
check_eq "events -f -n 1 --kind dns: exits after one event" "$?" 0
check_eq "... the dns one, the pings' events filtered out" \
	"$(jq -r '[.kind, .item] | join(" ")' "$BB_TMP/follow.json" 2>&1)" "dns evil.example"
# the follow read them all, the pings' too (reading takes them out): ping again
ping_from 198.51.100.2 $V4 2 0.2
dig_from 198.51.100.3 evil.example
run bb events --kind src --verdict dropped --interface bbd0
check_no_match "--kind src: no dns event" ' dns ' "$out"
check_match "--kind src --verdict dropped --interface bbd0: the pings' events" \
	'dropped src 198\.51\.100\.2' "$out"
run bb events --kind nonsense
check_rc "--kind nonsense: a usage error" 2

# ---- top: the interval's events counted by name, source and list -----------------------------
bb events >/dev/null
bb -j top -n 1 --interval 6 >"$BB_TMP/top.json" 2>&1 &
topj=$!
sleep 0.5
dig_from 198.51.100.3 evil.example &
dig_from 198.51.100.3 evil.example &
ping_from 198.51.100.2 $V4 3 0.2
wait
check "top -n 1 -j: one JSON object" jq -e .events "$BB_TMP/top.json"
check_eq "top: the events, the pings' and the queries'" "$(jq -r .events "$BB_TMP/top.json")" \
	"$((ping_tx + 2))"
check_eq "top: the top name, its kind and hits" \
	"$(jq -r '.names[0] | [.name, .kind, .hits] | join(" ")' "$BB_TMP/top.json")" "evil.example dns 2"
check_eq "top: the sources, by hits" \
	"$(jq -r '[.sources[] | .address + "=" + (.hits | tostring)] | sort | join(" ")' "$BB_TMP/top.json")" \
	"$(printf '%s\n' "198.51.100.2=$ping_tx" "198.51.100.3=2" | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq "top: hits per list, all of them the list's" \
	"$(jq -r '.lists[] | .list + " " + (.hits | tostring)' "$BB_TMP/top.json")" "$LIST $((ping_tx + 2))"
run bb top -n 1 --interval 0.5
check_match "top (text): its three tables" 'top blocked names' "$out"

# ---- a false positive: a name no list holds that the filter matches ------------------------
FPL=$BB_TMP/dense.txt
seq 1 3000 | sed 's/^/listed-/; s/$/.example/' >"$FPL"
run bb load "$FPL" --fp 0.3
check_rc "a dense filter (--fp 0.3) loads" 0
fp=$(seq 1 3000 | sed 's/^/probe-/; s/$/.test/' | bb check - 2>/dev/null |
	sed -n 's/^\([^:]*\): listed, a false positive.*/\1/p' | head -n 1)
check_ne "check finds a name no list holds that the filter matches" "$fp" ""
bb events >/dev/null
dig_from 198.51.100.3 "$fp"
run bb -j events --kind dns
check_eq "its event says false positive, and names no list" \
	"$(jq -r '[.item, .false_positive, .listed_in] | join(" ")' <<<"$(head -n 1 <<<"$out")" 2>&1)" \
	"$fp true "

# ---- the rate limit under a flood --------------------------------------------------------
run bb load "$LIST" --events 1 --events-burst 3 --allow-shrink	# from the dense filter
check_rc "load --events 1 --events-burst 3 exits 0" 0
bb events >/dev/null
l0=$(bb_stat events_limited) e0=$(bb_stat events)
t0=$(date +%s)
ping_from 198.51.100.2 $V4 100 0.01
sent=$ping_tx
secs=$(($(date +%s) - t0 + 1))
run bb events
n=$(grep -c . <<<"$out")
# a burst of 3, then one a second a CPU (2 CPUs at most here, and the edge of a second)
check "a flood of $sent listed pings in ${secs}s: the burst and at most the rate raised ($n)" \
	test "$n" -ge 3 -a "$n" -le $((3 + 2 * secs + 2)) -a "$n" -lt $((sent / 4))
check_eq "... every one raised counted" "$(($(bb_stat events) - e0))" "$n"
check_eq "... and the rest counted as limited" "$(($(bb_stat events_limited) - l0))" "$((sent - n))"
run bb load "$LIST" --events 0
check_eq "status -j: --events 0 turns them off" "$(bb_status .events.on)" false
expect_blocked "--events 0: hits still dropped" 198.51.100.2 $V4
run bb events
check_eq "--events 0: no events" "$out" ""

# ---- a listed destination, at tc egress: the dut's own pings to it ----------------------
# (after the exact counts above: a dropped request's connection retransmits it for a
# while, and each retransmission is an event too)
run bb load "$LIST" -i bbd0 --hook tc-egress --events 1000
check_rc "load -i bbd0 --hook tc-egress --events 1000: the instance at tc egress too" 0
bb events >/dev/null
in_dut ping -c 2 -i 0.2 -W 1 -I $V4 203.0.113.7 >/dev/null 2>&1
check_ne "the dut's pings to the listed 203.0.113.7 get no answer" "$?" 0
run bb -j events
# one line of what the events of KIND say (EXPR of each), all of them alike, or the lot
said() { jq -sr --arg k "$1" "[.[] | select(.kind == \$k) | $2] | unique | join(\" | \")" <<<"$out"; }
check_eq "dst: events of the dropped pings, at tc egress, attributed to line 4" \
	"$(said dst '[.verdict, .interface, .hook, .item, .src, .dst, .listed_in.file, .listed_in.line] | join(" ")')" \
	"dropped bbd0 tc-egress 203.0.113.7 $V4 203.0.113.7 $LIST 4"
check_eq "dst: ... and nothing else" "$(jq -sr '[.[].kind] | unique | join(" ")' <<<"$out")" dst

# ---- a listed SNI, Host and URL: curl from the unlisted 198.51.100.3 ----------------------
# The servers are real, so a request that was not dropped would be answered; the
# ones sent here are dropped at XDP and the connections left to time out.
WWW=$BB_TMP/www
mkdir -p "$WWW/bad" && echo page >"$WWW/bad/page" && echo index >"$WWW/index.html"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=secure.example -keyout "$BB_TMP/key.pem" -out "$BB_TMP/cert.pem" >/dev/null 2>&1 ||
	bail "openssl req could not make a certificate"
ip netns exec "$NS_DUT" timeout 120 openssl s_server -accept 443 -key "$BB_TMP/key.pem" \
	-cert "$BB_TMP/cert.pem" -www -quiet >/dev/null 2>&1 &
ip netns exec "$NS_DUT" timeout 120 busybox httpd -f -p 80 -h "$WWW" >/dev/null 2>&1 &
wait_listen_in "$NS_DUT" t 443 && wait_listen_in "$NS_DUT" t 80 || bail "the servers did not start"
# curl_get URL [SECONDS]: from 198.51.100.3, the URL's host resolved to the dut; the HTTP code
curl_get() {
	local host=${1#*://}
	host=${host%%/*}
	in_src timeout 10 curl -sk -o /dev/null -w '%{http_code}' --max-time "${2:-1.5}" \
		--interface 198.51.100.3 --resolve "$host:443:$V4" --resolve "$host:80:$V4" "$1"
}
check_eq "an unlisted name's page answers 200 (the servers work)" "$(curl_get http://web.example/ 10)" 200
bb events >/dev/null
check_eq "https://secure.example/: no answer" "$(curl_get https://secure.example/)" 000
check_eq "http://plain.example/: no answer" "$(curl_get http://plain.example/)" 000
check_eq "http://web.example/bad/page: no answer" "$(curl_get http://web.example/bad/page)" 000
run bb -j events
check_eq "sni: events of the dropped ClientHellos, attributed to line 5" \
	"$(said sni '[.verdict, .hook, .item, .dst, .listed_in.file, .listed_in.line] | join(" ")')" \
	"dropped xdp secure.example $V4:443 $LIST 5"
check_eq "host: events of the dropped request, attributed to line 6" \
	"$(said host '[.verdict, .hook, .item, .dst, .listed_in.file, .listed_in.line] | join(" ")')" \
	"dropped xdp plain.example $V4:80 $LIST 6"
check_match "url: events of the dropped request, the URL, attributed to line 7" \
	"^dropped xdp web\.example/bad/page $V4:80 $LIST 7\$" \
	"$(said url '[.verdict, .hook, .item, .dst, .listed_in.file, .listed_in.line] | join(" ")')"
check_eq "sni, host, url: each from 198.51.100.3, none a false positive" \
	"$(jq -sr '[.[] | [(.src | sub(":[0-9]+$"; "")), .false_positive] | join(" ")] | unique | join(",")' <<<"$out")" \
	"198.51.100.3 false"
check_eq "... and no event of another kind" "$(jq -sr '[.[].kind] | unique | join(" ")' <<<"$out")" \
	"host sni url"
check_eq "http://web.example/bad/other: no answer" "$(curl_get http://web.example/bad/other)" 000
run bb events --kind url
check_match "events (text): the url event, its line" \
	"bbd0 xdp dropped url web\\.example/bad/other 198\\.51\\.100\\.3:[0-9]+ > $V4:80: listed \\($LIST:7\\)" "$out"
run bb unload -i bbd0 --hook tc-egress
check_rc "unload -i bbd0 --hook tc-egress: XDP alone again" 0

# ---- the progress line of a long load: on a terminal only --------------------------------------
BIGL=$BB_TMP/big.txt
seq 1 1000000 | sed 's/^/p/; s/$/.example/' >"$BIGL"
script -qec "BB_PROGRESS_MS=10 timeout $BB_TIMEOUT nsenter --net=/run/netns/$NS_DUT $BB --pin-dir $BB_PIN_DIR load $BIGL" \
	/dev/null >"$BB_TMP/tty.out" 2>&1
check_match "load on a terminal: a progress line, bytes of the lists' size" \
	'reading lists.*: [0-9.]+ [KM]iB of [0-9.]+ MiB \([0-9]+%\)' "$(tr '\r' '\n' <"$BB_TMP/tty.out")"
check_match "... then the summary as ever" 'names 1000000' "$(cat "$BB_TMP/tty.out")"
BB_PROGRESS_MS=10 bb load "$BIGL" >"$BB_TMP/pipe.out" 2>&1
check_no_match "piped: no progress line" 'reading lists' "$(cat "$BB_TMP/pipe.out")"

run bb unload --all
check_rc "unload --all exits 0" 0
tap_done
