#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End to end, --answer and TCP: a blocked ClientHello or HTTP request resets its
# connection on both sides, from the kernel. Real clients (curl) in the source
# namespace talk to a single-threaded openssl s_server and busybox httpd in the dut
# namespace through bloomblock at XDP and at tc ingress on bbd0; then, at tc egress,
# curl in the dut namespace talks to servers in the source namespace (a client
# screening what it sends). Each time: curl fails with "connection reset" in under
# 100 ms where a drop takes its whole --max-time; the s_server keeps serving unlisted
# clients after 20 blocked ones, and `ss` shows no connection of theirs left on either
# end; IPv4 and IPv6; a listed source is dropped, not reset; the counters say it.
# TAP output; root.
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

e2e_begin
for c in curl openssl busybox ss; do
	command -v "$c" >/dev/null || skip_all "needs $c (scripts/install-deps.sh installs it)"
done
SRV_TTL=240	# seconds any server may live

LIST=$BB_TMP/reset.txt
printf 'blocked.example\nhttp://fine.example/bad/\n198.51.100.3\n' >"$LIST"

WWW=$BB_TMP/www
mkdir -p "$WWW/bad" || bail "mkdir"
echo "index" >"$WWW/index.html"
echo "bad page" >"$WWW/bad/x"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=bbtest.example -keyout "$BB_TMP/key.pem" -out "$BB_TMP/cert.pem" \
	>/dev/null 2>&1 || bail "openssl req could not make a certificate"

# servers NS: a single-threaded openssl s_server on :443 and busybox httpd on :80 in NS
TLS_PID='' HTTP_PID=''
servers() {
	stop_pid "$TLS_PID"
	stop_pid "$HTTP_PID"
	ip netns exec "$1" timeout "$SRV_TTL" openssl s_server -accept 443 -key "$BB_TMP/key.pem" \
		-cert "$BB_TMP/cert.pem" -www -quiet >>"$BB_TMP/s_server.log" 2>&1 &
	TLS_PID=$!
	ip netns exec "$1" timeout "$SRV_TTL" busybox httpd -f -p 80 -h "$WWW" \
		>>"$BB_TMP/httpd.log" 2>&1 &
	HTTP_PID=$!
	wait_listen_in "$1" t 443 && wait_listen_in "$1" t 80 ||
		bail "the servers did not start: $(cat "$BB_TMP"/*.log)"
}

# get NS ADDR URL MAXTIME [CURL ARGS...]: curl in NS, the URL's host resolved to ADDR;
# sets get_rc, get_code, get_ms (curl's own total time) and get_err
get() {
	local ns=$1 addr=$2 url=$3 max=$4 rest host port ef="$BB_TMP/curl.err" o
	shift 4
	rest=${url#*://}
	host=${rest%%[/:]*}
	case $url in https:*) port=443 ;; *) port=80 ;; esac
	case $addr in *:*) addr="[$addr]" ;; esac
	o=$(ip netns exec "$ns" timeout 20 curl -sSk -o /dev/null -w '%{http_code} %{time_total}' \
		--max-time "$max" --resolve "$host:$port:$addr" "$@" "$url" 2>"$ef")
	get_rc=$?
	get_code=${o%% *}
	get_ms=$(awk -v t="${o##* }" 'BEGIN { printf "%d", t * 1000 }')
	get_err=$(<"$ef")
}

# expect_reset NAME NS ADDR URL: curl fails with a reset, in under 100 ms
expect_reset() {
	get "$2" "$3" "$4" 3
	if [ "$get_rc" != 0 ] && [[ $get_err == *"reset by peer"* ]]; then
		tap_ok "$1: reset"
	else
		tap_not_ok "$1: reset"; echo "# curl $4: status $get_rc, HTTP $get_code"; diag "$get_err"
	fi
	check_ge "... in under 100 ms (${get_ms} ms)" $((100 - get_ms)) 1
}

expect_ok() {
	get "$2" "$3" "$4" 10
	if [ "$get_rc" = 0 ] && [ "$get_code" = 200 ]; then
		tap_ok "$1"
	else
		tap_not_ok "$1"; echo "# curl $4: status $get_rc, HTTP $get_code; expected 200"
		diag "$get_err"
	fi
}

# established NS PORT: connections in ESTABLISHED (or any state but LISTEN and
# TIME-WAIT) on local or remote port PORT in NS
established() {
	ip netns exec "$1" ss -Htn state established "( sport = :$2 or dport = :$2 )" | wc -l
}

# screen_server HOOK: the servers in dut, bloomblock on bbd0 at HOOK, the clients in src
screen_server() {
	local hook=$1 i n fails=0 before
	servers "$NS_DUT"
	run bb load "$LIST" -i bbd0 --hook "$hook" --answer reject
	check_rc "$hook: load --answer reject" 0
	run bb status
	check_match "$hook: status says connections are reset" \
		'^answers +reject: .*a blocked TLS or HTTP connection is reset on both sides' "$out"
	if [ "$hook" = xdp ]; then
		check_match "xdp: the reset helper is at tc ingress beside XDP" 'bloomblock_tc_x' \
			"$(in_dut tc filter show dev bbd0 ingress)"
		in_dut tc filter del dev bbd0 ingress pref 45325
		run bb status
		check_match "xdp: status says when the helper is gone" \
			'bbd0: no reset helper at tc ingress' "$out"
		run bb load "$LIST" -i bbd0 --hook xdp
		run bb status
		check_no_match "xdp: ... and a load puts it back" 'no reset helper' "$out"
	fi
	before=$(bb_stat tcp_reset)
	expect_reset "$hook: curl https://blocked.example/" "$NS_SRC" 198.51.100.1 https://blocked.example/
	expect_reset "$hook: curl http://blocked.example/" "$NS_SRC" 198.51.100.1 http://blocked.example/
	expect_reset "$hook: curl http://fine.example/bad/x (a listed URL)" "$NS_SRC" 198.51.100.1 \
		http://fine.example/bad/x
	expect_reset "$hook: curl https://www.blocked.example/ over IPv6" "$NS_SRC" 2001:db8:51::1 \
		https://www.blocked.example/
	expect_ok "$hook: curl http://fine.example/ passes" "$NS_SRC" 198.51.100.1 http://fine.example/

	# a single-threaded server, 20 blocked clients, then an unlisted one
	for i in $(seq 20); do
		get "$NS_SRC" 198.51.100.1 "https://c$i.blocked.example/" 3
		[ "$get_rc" != 0 ] && [[ $get_err == *"reset by peer"* ]] || fails=$((fails + 1))
	done
	check_eq "$hook: 20 blocked TLS clients in a row, every one reset" "$fails" 0
	expect_ok "$hook: ... and the single-threaded s_server still serves https://fine.example/" \
		"$NS_SRC" 198.51.100.1 https://fine.example/
	check_eq "$hook: ss: no connection left on the server (dut)" "$(established "$NS_DUT" 443)" 0
	check_eq "$hook: ss: none left on the clients' side (src)" "$(established "$NS_SRC" 443)" 0
	n=$(bb_stat tcp_reset)
	check_ge "$hook: stats: tcp_reset counts them ($((n - before)))" $((n - before)) 24
	check_eq "$hook: stats: tcp_reset_half 0 (both sides each time)" "$(bb_stat tcp_reset_half)" 0

	get "$NS_SRC" 198.51.100.1 https://blocked.example/ 1.5 --interface 198.51.100.3
	check_eq "$hook: a listed source's connection is dropped, not reset (curl times out)" \
		"$get_rc" 28
	run bb load "$LIST" --answer drop
	get "$NS_SRC" 198.51.100.1 http://blocked.example/ 1.5
	check_eq "$hook: --answer drop: curl times out instead" "$get_rc" 28
	run bb unload --all
	check_rc "$hook: unload" 0
	check_eq "$hook: ... leaves no tc filter on bbd0 ingress" \
		"$(in_dut tc filter show dev bbd0 ingress | wc -l)" 0
}

screen_server xdp
screen_server tc-ingress

# ---- tc egress: the client screened, the servers in the source namespace --------------
servers "$NS_SRC"
run bb load "$LIST" -i bbd0 --hook tc-egress --answer reject
check_rc "tc-egress: load --answer reject" 0
expect_reset "tc-egress: curl https://blocked.example/ from the dut" "$NS_DUT" 198.51.100.2 \
	https://blocked.example/
expect_reset "tc-egress: curl http://blocked.example/" "$NS_DUT" 198.51.100.2 http://blocked.example/
expect_reset "tc-egress: curl https://blocked.example/ over IPv6" "$NS_DUT" 2001:db8:51::2 \
	https://blocked.example/
fails=0
for i in $(seq 20); do
	get "$NS_DUT" 198.51.100.2 "https://c$i.blocked.example/" 3
	[ "$get_rc" != 0 ] && [[ $get_err == *"reset by peer"* ]] || fails=$((fails + 1))
done
check_eq "tc-egress: 20 blocked TLS connections in a row, every one reset" "$fails" 0
expect_ok "tc-egress: ... and the remote single-threaded s_server still serves https://fine.example/" \
	"$NS_DUT" 198.51.100.2 https://fine.example/
check_eq "tc-egress: ss: no connection left on the remote server (src)" "$(established "$NS_SRC" 443)" 0
check_eq "tc-egress: ss: none left on the client (dut)" "$(established "$NS_DUT" 443)" 0
check_eq "tc-egress: stats: tcp_reset_half 0" "$(bb_stat tcp_reset_half)" 0
run bb stats
check_match "stats names tcp_reset" 'tcp_reset' "$out"
run bb stats --prometheus
check_match "metrics: bloomblock_tcp_reset_total" \
	'^bloomblock_tcp_reset_total\{interface="[^"]*",hook="[a-z-]+"\} [1-9][0-9]*$' "$out"
check_match "metrics: bloomblock_tcp_reset_half_total" \
	'^bloomblock_tcp_reset_half_total\{interface="[^"]*",hook="[a-z-]+"\} 0$' "$out"
check_no_match "... 0 at every hook" '^bloomblock_tcp_reset_half_total\{.*\} [1-9]' "$out"
run bpftool map dump pinned "$BB_PIN_DIR/stats"
check_match "bpftool reads tcp_reset from the stats map (BTF)" '"tcp_reset": [1-9]' "$out"
stop_pid "$TLS_PID"
stop_pid "$HTTP_PID"
tap_done
