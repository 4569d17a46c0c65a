#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End to end, confirm mode: real pings, ping6s and DNS queries through the attached XDP
# program in --mode confirm, with `bloomblock run` answering its requests against the
# key index. A listed source passes until confirmed, then drops; a crafted false
# positive (in the filter, on no list) is never dropped; with the daemon stopped
# (SIGTERM) what was confirmed holds and the rest passes, or drops with --daemon-down
# drop, as status says. TAP output; root needed.
#
#   dut namespace: bbd0  198.51.100.1  2001:db8:51::1      <- bloomblock's XDP program
#   src namespace: bbs0  198.51.100.2 (listed) .3 (unlisted)
#                        2001:db8:51::2 (listed) ::3 (unlisted), and a false positive
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

e2e_begin

V4=198.51.100.1 V6=2001:db8:51::1
LIST=$BB_TMP/confirm.txt
{
	printf '# confirm e2e\n198.51.100.2\n2001:db8:51::2\nevil.example\n'
	# a dense filter (--fp 0.3): a false positive is easy to find among the others
	seq 1 3000 | awk '{ printf "2001:db8:aa::%x\n", $1 }'
} >"$LIST"

dig_from() { in_src timeout 5 dig @"$V4" -b "$1" "$2" +tries=1 +time=1 >/dev/null 2>&1; }

daemon=''
# start_daemon [ARGS]: bloomblock run in the background, its log in run.log; waits until it serves
start_daemon() {
	: >"$BB_TMP/run.log"
	timeout 300 nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$BB_PIN_DIR" run -v "$@" \
		>"$BB_TMP/run.log" 2>&1 &
	daemon=$!
	for _ in $(seq 1 50); do
		grep -q '^<6>serving' "$BB_TMP/run.log" && return 0
		sleep 0.1
	done
	return 1
}

run bb load "$LIST" -i bbd0 --mode confirm --fp 0.3 --seed 7	# one seed: the same false positive after a reload
check_rc "load --mode confirm -i bbd0 exits 0" 0
check_match "load: its summary says mode confirm" 'mode confirm' "$err"
check_eq "status -j: mode confirm, no daemon ever, hits pass when it is down" \
	"$(bb_status '[.filter.mode, .confirm.daemon, .confirm.when_down] | join(" ")')" \
	"confirm never pass"
run bb status
check_match "status: the daemon line says it never started" '^daemon +not running \(never started\)' "$out"
check_match "status: what happens while it is down" '^when down +hits not confirmed pass' "$out"

# ---- no daemon yet: hits pass (the default), counted --------------------------------------
expect_pass "no daemon: listed 198.51.100.2 passes, not confirmed (--daemon-down pass)" 198.51.100.2 $V4
check_ge "... counted: daemon_down" "$(bb_stat daemon_down)" 1

# ---- the daemon: a listed source passes until confirmed, then drops ----------------------
start_daemon
check_eq "bloomblock run starts and serves" "$?" 0
diag "$(cat "$BB_TMP/run.log")"
check_eq "status -j: the daemon is running, its pid" \
	"$(bb_status '[.confirm.daemon, .confirm.pid] | join(" ")')" "running $(pgrep -P "$daemon" -x bloomblock || echo "?")"
run bb run
check_rc "a second run of the same instance is refused" 1
check_match "... naming the one that runs" 'serves .* already \(pid [0-9]+\)' "$err"

bb events >/dev/null
ping_from 198.51.100.2 $V4 200 0.005 || true
window=$ping_rx
diag "a listed flow, one ping every 5 ms: $ping_rx of $ping_tx passed before its confirmation"
check_ge "listed 198.51.100.2: at least its first ping passes (unconfirmed)" "$window" 1
check "... and at most a few: dropped once confirmed (under 20 of 200)" test "$window" -lt 20
expect_blocked "... and from then on every ping is dropped" 198.51.100.2 $V4
check_match "the daemon said so, naming list and line" \
	"address 198\\.51\\.100\\.2: listed \\($LIST:2\\)" "$(cat "$BB_TMP/run.log")"
run bb -j events
check_eq "events: the first unconfirmed, then dropped" \
	"$(jq -r '.verdict' <<<"$out" | uniq | head -n 2 | tr '\n' ' ')" "unconfirmed dropped "
check_ge "stats: confirm_requests counted" "$(bb_stat confirm_requests)" 1
check_eq "stats: none lost" "$(bb_stat confirm_lost)" 0

# ---- a false positive is never dropped ---------------------------------------------------
fp=$(seq 16 4000 | awk '{ printf "2001:db8:51::%x\n", $1 }' | bb check - 2>/dev/null |
	sed -n 's/^\(.*\): listed, a false positive.*/\1/p' | head -n 1)
check_ne "check finds a source no list holds that the filter matches" "$fp" ""
ip -n "$NS_SRC" addr add "$fp/64" dev bbs0 nodad
u0=$(bb_stat unlisted) d0=$(bb_stat dropped)
expect_pass "the false positive $fp: every ping6 answered" "$fp" $V6
sleep 0.2
bb events >/dev/null
expect_pass "... and again, all answered" "$fp" $V6
check_eq "... not one of its packets dropped" "$(bb_stat dropped)" "$d0"
check_ge "... passed as confirmed unlisted (stats unlisted)" "$(($(bb_stat unlisted) - u0))" 2
check_match "the daemon called it a false positive" \
	"address $fp: on no list, a false positive" "$(cat "$BB_TMP/run.log")"
run bb -j events --kind src
check_eq "... once answered, it raises no more events" \
	"$(jq -r "select(.item == \"$fp\") | .verdict" <<<"$out" | grep -c .)" "0"

# ---- a DNS name: confirmed by name, then dropped -----------------------------------------
d0=$(bb_stat dropped) q0=$(bb_stat dns_hits)
dig_from 198.51.100.3 www.evil.example
sleep 0.3
dig_from 198.51.100.3 www.evil.example
check_eq "two queries for www.evil.example hit" "$(($(bb_stat dns_hits) - q0))" 2
check_eq "... the second one dropped, once confirmed" "$(($(bb_stat dropped) - d0))" 1
check_match "the daemon confirmed the name" "name www\\.evil\\.example: listed \\($LIST:4\\)" \
	"$(cat "$BB_TMP/run.log")"

# ---- stats --by-list: what was confirmed and dropped, by list ------------------------------
run bb -j stats --by-list
check_rc "stats --by-list -j exits 0" 0
check_eq "... the list holds both items confirmed (the address and the name)" \
	"$(jq -r ".lists[] | select(.file == \"$LIST\") | .items" <<<"$out" 2>&1)" "2"
check_ge "... and the packets they dropped once confirmed" \
	"$(jq -r ".lists[] | select(.file == \"$LIST\") | .dropped" <<<"$out" 2>&1)" "$((blocked_tx + 1))"
check_ge "... one false positive confirmed, its packets passed" \
	"$(jq -r '.false_positives.items' <<<"$out" 2>&1)" 1
run bb stats --by-list
check_match "stats --by-list (text): a line for the list" "^${LIST//./\\.} +2 +[0-9]+" "$out"

# ---- a live del: what was confirmed is asked again ------------------------------------------
run bb del evil.example
check_rc "del evil.example exits 0" 0
d0=$(bb_stat dropped)
dig_from 198.51.100.3 www.evil.example
sleep 0.3
dig_from 198.51.100.3 www.evil.example
check_eq "after del: its queries are no longer dropped" "$(($(bb_stat dropped) - d0))" 0
# a live change has everything confirmed asked again: 198.51.100.2 too
ping_from 198.51.100.2 $V4 3 0.2 || true
check_match "... and 198.51.100.2, asked again after the change, confirmed again" \
	"address 198\\.51\\.100\\.2: listed.*address 198\\.51\\.100\\.2: listed" \
	"$(tr '\n' ' ' <"$BB_TMP/run.log")"

# ---- SIGTERM: a clean exit; what was confirmed holds; the rest passes ------------------------
kill -TERM "$daemon"
wait "$daemon"
check_eq "run exits 0 on SIGTERM" "$?" 0
check_match "... saying it stopped" '^<6>stopped \(SIGTERM\)' "$(cat "$BB_TMP/run.log")"
check_eq "status -j: the daemon stopped" "$(bb_status '.confirm.daemon')" "stopped"
check_match "status: not running, it stopped" '^daemon +not running \(it stopped\)' "$(bb status)"
expect_blocked "daemon stopped: the confirmed 198.51.100.2 is still dropped" 198.51.100.2 $V4
expect_pass "... a listed source never confirmed (2001:db8:51::2) passes (--daemon-down pass)" \
	2001:db8:51::2 $V6
expect_pass "... the false positive passes" "$fp" $V6

# ---- --daemon-down drop: hits not confirmed drop while the daemon is down --------------------
run bb load "$LIST" --daemon-down drop --fp 0.3 --seed 7
check_rc "reload --daemon-down drop exits 0" 0
check_eq "status -j: mode kept, confirm; when down: drop" \
	"$(bb_status '[.filter.mode, .confirm.when_down] | join(" ")')" "confirm drop"
check_match "status: says so" '^when down +hits not confirmed drop' "$(bb status)"
expect_blocked "daemon down, --daemon-down drop: listed 2001:db8:51::2 is dropped" 2001:db8:51::2 $V6
expect_blocked "... and so is the false positive, not confirmed for this filter (the trade it names)" \
	"$fp" $V6
start_daemon
check_eq "bloomblock run starts again" "$?" 0
sleep 0.5
expect_pass "daemon back: the false positive is confirmed unlisted again and passes" "$fp" $V6
kill -TERM "$daemon"
wait "$daemon"
check_eq "... and it stops cleanly again" "$?" 0

# ---- drop mode with the daemon: hits counted by list, dropped from the first packet -----------
run bb load "$LIST" --mode drop --seed 7 --fp 0.3
check_rc "reload --mode drop exits 0" 0
METRICS=127.0.0.1:9420
start_daemon --metrics $METRICS
check_eq "bloomblock run --metrics $METRICS starts on a drop-mode filter" "$?" 0
check_match "... saying it counts by list there" 'drop mode: its hits are counted by list' \
	"$(cat "$BB_TMP/run.log")"
blocked_tx=0
expect_blocked "drop mode: listed 2001:db8:51::2 dropped from its first packet" 2001:db8:51::2 $V6
expect_blocked "... and again" 2001:db8:51::2 $V6
expect_blocked "drop mode: the false positive is dropped (no confirmation in this mode)" "$fp" $V6
run bb -j stats --by-list
check_rc "stats --by-list in drop mode exits 0" 0
check_eq "... one item of the list, the packets that hit it once answered counted" \
	"$(jq -r ".lists[] | select(.file == \"$LIST\") | [.items, (.dropped >= 1)] | join(\" \")" <<<"$out" 2>&1)" "1 true"
check_eq "... and the false positive on no list" "$(jq -r '.false_positives.items' <<<"$out")" 1
check_match "status: the daemon counting hits by list" '^daemon +running \(pid [0-9]+\): counting hits by list' \
	"$(bb status)"

# ---- stats --prometheus: the same numbers as Prometheus reads them ------------------------------
run bb stats --prometheus
check_rc "stats --prometheus exits 0" 0
prom=$out
check_eq "... bloomblock_ip4_hits_total at XDP on bbd0 is stats' ip4_hits" \
	"$(sed -n 's/^bloomblock_ip4_hits_total{interface="bbd0",hook="xdp"} \([0-9]*\)$/\1/p' <<<"$prom")" \
	"$(bb_stat ip4_hits)"
check_eq "... a series a hook: xdp at bbd0, tc-ingress and tc-egress at none (0)" \
	"$(grep '^bloomblock_packets_total' <<<"$prom" | sed 's/ [0-9]*$//; s/^[a-z_]*//' | tr '\n' ' ')" \
	'{interface="bbd0",hook="xdp"} {interface="",hook="tc-ingress"} {interface="",hook="tc-egress"} '
check_eq "... nothing counted at the hooks not attached" \
	"$(grep -E '^bloomblock_[a-z_]+_total\{interface="",hook="tc-' <<<"$prom" | grep -cv ' 0$')" 0
check_match "... with its HELP and TYPE lines" '^# TYPE bloomblock_dropped_total counter$' "$prom"
check_match "... the hits by kind" \
	'^bloomblock_hits_total\{interface="bbd0",hook="xdp",kind="ipv6_source"\} [1-9][0-9]*$' "$prom"
check_match "... the mode, the attachment" '^bloomblock_filter_info\{mode="drop"\} 1$' "$prom"
check_match "... the attachment" '^bloomblock_attached_info\{interface="bbd0",hook="xdp",xdp_mode="[a-z]+"\} 1$' "$prom"
check_match "... the daemon up" '^bloomblock_daemon_up 1$' "$prom"
check_match "... the list's items, labelled by list" "^bloomblock_list_items\\{list=\"${LIST//./\\.}\"\\} 1\$" "$prom"
check_match "... the filter's generation" '^bloomblock_filter_generation [0-9]+$' "$prom"
dash=$BB_ROOT/docs/grafana-dashboard.json
check "the Grafana dashboard (docs/) is valid JSON, with panels" jq -e '.panels | length > 0' "$dash"
missing=$(jq -r '.panels[].targets[].expr' "$dash" | grep -oE 'bloomblock_[a-z0-9_]+' | sort -u |
	while read -r m; do grep -q "^# TYPE $m " <<<"$prom" || echo "$m"; done)
check_eq "... every metric its panels query is one bloomblock exports" "$missing" ""
check "... with a hook variable" jq -e '[.templating.list[].name] | index("hook") != null' "$dash"
unlabelled=$(jq -r '.panels[].targets[].expr | select(test("hook=~"))' "$dash" |
	grep -oE 'bloomblock_[a-z0-9_]+' | sort -u |
	while read -r m; do grep -q "^$m{[^}]*hook=\"xdp\"" <<<"$prom" || echo "$m"; done)
check_eq "... every metric a panel filters by hook has a hook label" "$unlabelled" ""
if command -v promtool >/dev/null; then
	run_stdin "$prom" promtool check metrics
	check_rc "promtool check metrics passes on it" 0
	diag "$err"
else
	tap_skip "promtool check metrics" "promtool not installed (scripts/install-deps.sh installs Debian's prometheus)"
fi
# ---- /metrics: the daemon serves the same; a real Prometheus scrapes it ---------------------
run in_dut curl -sS -o "$BB_TMP/metrics.txt" -w '%{http_code} %{content_type}' "http://$METRICS/metrics"
check_eq "GET /metrics: 200, Prometheus's text format" "$out" "200 text/plain; version=0.0.4; charset=utf-8"
check_match "... every counter, the daemon up" '^bloomblock_daemon_up 1$' "$(cat "$BB_TMP/metrics.txt")"
run in_dut curl -sS -o /dev/null -w '%{http_code}' "http://$METRICS/other"
check_eq "GET /other: 404" "$out" "404"
if command -v promtool >/dev/null; then
	run promtool check metrics <"$BB_TMP/metrics.txt"
	check_rc "promtool check metrics passes on /metrics" 0
else
	tap_skip "promtool check metrics on /metrics" "promtool not installed"
fi
# prom_query EXPR: the value of an instant query, through Prometheus's HTTP API
prom_query() {
	in_dut curl -sS --max-time 5 "http://127.0.0.1:9091/api/v1/query" --data-urlencode "query=$1" |
		jq -r '.data.result[0].value[1] // "none"'
}
if command -v prometheus >/dev/null; then
	cat >"$BB_TMP/prometheus.yml" <<-EOF
	global:
	  scrape_interval: 1s
	scrape_configs:
	  - job_name: bloomblock
	    static_configs:
	      - targets: ['$METRICS']
	EOF
	in_dut timeout 120 prometheus --config.file="$BB_TMP/prometheus.yml" \
		--storage.tsdb.path="$BB_TMP/prometheus" --web.listen-address=127.0.0.1:9091 \
		>"$BB_TMP/prometheus.log" 2>&1 &
	prom=$!
	for _ in $(seq 1 100); do
		[ "$(prom_query 'up{job="bloomblock"}' 2>/dev/null)" = 1 ] && break
		sleep 0.2
	done
	check_eq "a real Prometheus (in the namespace) scrapes the daemon: up is 1" \
		"$(prom_query 'up{job="bloomblock"}')" 1
	p0=$(prom_query 'bloomblock_ip4_hits_total{interface="bbd0",hook="xdp"}')
	d0=$(prom_query 'sum(bloomblock_dropped_total)')
	ping_from 198.51.100.2 $V4 10 0.2 || true
	sleep 3
	check_eq "... its query API: bloomblock_ip4_hits_total{interface=\"bbd0\",hook=\"xdp\"} rose by the pings sent ($ping_tx)" \
		"$(( $(prom_query 'bloomblock_ip4_hits_total{interface="bbd0",hook="xdp"}') - p0 ))" "$ping_tx"
	check_ge "... and bloomblock_dropped_total (summed) by at least as much" \
		"$(( $(prom_query 'sum(bloomblock_dropped_total)') - d0 ))" "$ping_tx"
	check_eq "... the hits by list, labelled: two items of the list now (2001:db8:51::2, 198.51.100.2)" \
		"$(prom_query "bloomblock_list_items{list=\"$LIST\"}")" 2
	kill "$prom" 2>/dev/null
	wait "$prom" 2>/dev/null
else
	tap_skip "a real Prometheus scrapes the daemon" "prometheus not installed (scripts/install-deps.sh)"
fi

kill -TERM "$daemon"
wait "$daemon"
check_eq "... it stops cleanly" "$?" 0

# ---- stats --watch: the rates match the traffic sent ------------------------------------------
bb -j stats --watch 1 --count 6 >"$BB_TMP/watch.json" 2>&1 &
watch=$!
sleep 0.3
ping_from 198.51.100.2 $V4 10 0.2 || true
sent=$ping_tx
wait "$watch"
check_eq "stats --watch 1 --count 6 -j exits 0 after 6 intervals" "$?" 0
check_eq "... one JSON object an interval" "$(grep -c . "$BB_TMP/watch.json")" 6
check_eq "... the IPv4 hits' rates over the intervals add up to the pings sent ($sent)" \
	"$(jq -s "map(.per_second.ip4_hits * .interval_s) | add | . + 0.5 | floor" "$BB_TMP/watch.json" 2>&1)" "$sent"
check_eq "... and the totals rise by as much" \
	"$(jq -s '(.[-1].totals.ip4_hits - .[0].totals.ip4_hits + (.[0].per_second.ip4_hits * .[0].interval_s)) | . + 0.5 | floor' "$BB_TMP/watch.json" 2>&1)" "$sent"
# not through bb(): timeout(1) turns a SIGINT into its own exit status 124
nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$BB_PIN_DIR" stats --watch 0.2 \
	>"$BB_TMP/watch.txt" 2>&1 &
watch=$!
sleep 1
kill -INT "$watch"
wait "$watch"
check_eq "stats --watch (text) exits 0 on Ctrl-C (SIGINT)" "$?" 0
check_match "... a table of totals and rates a second" '^dropped +[0-9]+ +[0-9.]+$' "$(cat "$BB_TMP/watch.txt")"
run bb stats --watch 0
check_rc "stats --watch 0 is refused" 2

# ---- nothing to serve ------------------------------------------------------------------------
run timeout 10 "$BB" --pin-dir "/sys/fs/bpf/$BB_TAG-none" run
check_rc "run with nothing loaded exits 1 (an error)" 1
check_match "... saying to load first" 'nothing is loaded under .*load first' "$err"

run bb load "$LIST" --mode confirm --no-index
check_rc "load --mode confirm --no-index is refused" 1
check_match "... it needs the index" 'needs the key index' "$err"

tap_done
