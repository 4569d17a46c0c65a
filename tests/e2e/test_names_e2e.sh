#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End to end, with real clients and servers: hostname and URL screening. A list of
# names, a wildcard, a URL, a CIDR and a hosts-file line goes onto bbd0 at XDP (the
# server side), and real `dig`, `curl` and `openssl s_client` in the src namespace
# talk to dnsmasq, openssl s_server and busybox httpd in the dut namespace:
#
#   1. DNS      listed names and their subdomains time out, others answer
#   2. TLS      ClientHello SNI, curl and s_client (mixed case as typed)
#   3. split    the same with the ClientHello cut into segments (MTU 200, no offloads)
#   4. HTTP     Host and URL prefixes (a URL entry never blocks the whole host)
#   7. QUIC     Initials counted and passed; dropped with --block-quic
#   8. check    the CLI's verdicts for names and URLs
#   9. reload   a different list flips the verdicts; --dns-ports moves DNS screening
#  10. allow    the allowlist: --allow files, a list's own exceptions (Adblock @@,
#               RPZ rpz-passthru., Unbound transparent and typetransparent zones), live
#               `allow` and `disallow` (no reload), kept across reloads
#   5. egress   a second instance at tc egress on the CLIENT's bbs0: its own query,
#               ClientHello and request for a listed name, and packets to a listed
#               destination address, never leave
#   6. flag     --mode flag --mark at tc: the request passes and is counted; at tc
#               ingress on the server side nftables sees the mark
#
# (5 and 6 run last: they reuse the names and servers of the first parts.)
# TAP output; root needed (else skipped; a skip fails under CI=true).
#
#   dut namespace: bbd0  198.51.100.1 (.10 for part 5)  <- bloomblock XDP / tc ingress
#                  dnsmasq :53, openssl s_server :443, busybox httpd :80
#   src namespace: bbs0  198.51.100.2 .3, 203.0.113.9   <- the clients; tc egress in 5
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

for c in dig dnsmasq openssl curl busybox ethtool nft ss tc; do
	command -v "$c" >/dev/null || skip_all "needs $c (scripts/install-deps.sh installs it)"
done

SRV=198.51.100.1 SRV6=2001:db8:51::1
SRV2=198.51.100.10		# a second server address, listed only by the client instance
BBC_PIN_DIR=${BB_PIN_DIR}-c	# the client instance (part 5), in the src namespace
SRV_TTL=170			# no server outlives this many seconds, whatever happens
DNS_PID='' TLS_PID='' HTTP_PID=''

# bbc ARGS...: the CLI in the src namespace with the client instance's pin dir
bbc() { timeout "$BB_TIMEOUT" nsenter --net="/run/netns/$NS_SRC" "$BB" --pin-dir "$BBC_PIN_DIR" "$@"; }

# The servers, then the client instance (its tc filter lives in the src namespace,
# so it is detached from there), then lib.sh's cleanup: jobs, pin dir, namespaces.
names_cleanup() {
	stop_pid "$DNS_PID"
	stop_pid "$TLS_PID"
	stop_pid "$HTTP_PID"
	if [ -d "$BBC_PIN_DIR" ]; then
		if [ -e "/run/netns/$NS_SRC" ]; then
			timeout 20 nsenter --net="/run/netns/$NS_SRC" "$BB" --pin-dir "$BBC_PIN_DIR" \
				unload --all >/dev/null 2>&1
		fi
		case $BBC_PIN_DIR in /sys/fs/bpf/?*) rm -rf "$BBC_PIN_DIR" ;; esac
	fi
	cleanup
}

e2e_begin
trap names_cleanup EXIT
netns_add_src 203.0.113.9 || bail "could not add a source in 203.0.113.0/24"
ip -n "$NS_DUT" addr add "$SRV2/24" dev bbd0 || bail "could not add $SRV2"

# ---- the servers, in the dut namespace, bounded in time -------------------------------
# Each is started as `ip netns exec NS timeout TTL SERVER &` (not through a shell
# function, which would fork a subshell): $! is then timeout itself, which passes a
# SIGTERM on to its whole process group, the server and any child it forked.
# wait_listen PROTO PORT: until something in the dut namespace listens (at most ~5 s)
wait_listen() { wait_listen_in "$NS_DUT" "$@"; }

WWW=$BB_TMP/www
mkdir -p "$WWW/login" || bail "mkdir"
echo "bloomblock e2e index" >"$WWW/index.html"
echo "other page" >"$WWW/other"
echo "login page" >"$WWW/login/x"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=bbtest.example -keyout "$BB_TMP/key.pem" -out "$BB_TMP/cert.pem" \
	>/dev/null 2>&1 || bail "openssl req could not make a certificate"

ip netns exec "$NS_DUT" timeout "$SRV_TTL" dnsmasq --no-daemon --conf-file=/dev/null --pid-file= --port=53 \
	--listen-address=$SRV --listen-address=$SRV6 --bind-interfaces --no-resolv --no-hosts \
	--address=/example/$SRV --address=/test/$SRV >"$BB_TMP/dnsmasq.log" 2>&1 &
DNS_PID=$!
ip netns exec "$NS_DUT" timeout "$SRV_TTL" busybox httpd -f -p 80 -h "$WWW" >"$BB_TMP/httpd.log" 2>&1 &
HTTP_PID=$!

# openssl s_server serves one connection at a time: a connection whose ClientHello
# was dropped would hold it forever. So after every blocked TLS attempt the client's
# half-open sockets are reset (where the kernel can: ss -K) and the server restarted.
tls_start() {
	ip netns exec "$NS_DUT" timeout "$SRV_TTL" openssl s_server -accept 443 -key "$BB_TMP/key.pem" \
		-cert "$BB_TMP/cert.pem" -www -quiet >>"$BB_TMP/s_server.log" 2>&1 &
	TLS_PID=$!
	wait_listen t 443
}
tls_unstick() {
	in_src ss -K -tn "dport = :443" >/dev/null 2>&1
	stop_pid "$TLS_PID"
	TLS_PID=''
	tls_start
}
tls_start
wait_listen u 53 && wait_listen t 80 && wait_listen t 443 ||
	bail "the servers did not start: $(cat "$BB_TMP"/*.log)"

# ---- the clients, in the src namespace ------------------------------------------------
# Timeouts: what must get through gets 4 s (dig) or 10 s (curl) - it takes
# milliseconds, but a loaded machine can stall for seconds; what must not get
# through is given up on after 1 s (dig) or 1.5 s (curl).
# dns NAME [SECONDS]: one query (to $SRV, or $DNS_SERVER), one try; sets dns_out;
# status of dig (0: answered). dnsmasq answers $SRV for every name.
dns() {
	dns_out=$(in_src timeout 10 dig +time="${2:-4}" +tries=1 +short @"${DNS_SERVER:-$SRV}" "$1" A 2>&1)
}
dns_sent=0	# queries sent by expect_dns_*
expect_dns_answer() {
	dns_sent=$((dns_sent + 1))
	if dns "$2" && [[ $'\n'$dns_out$'\n' == *$'\n'"$SRV"$'\n'* ]]; then
		tap_ok "$1"
	else
		tap_not_ok "$1"; echo "# dig $2: expected the answer $SRV"; diag "$dns_out"
	fi
}

# get URL MAXTIME: curl from the src namespace, the URL's host resolved to $SRV (or
# $GET_ADDR); sets get_code (HTTP status, 000 for none), get_rc (curl's status) and
# get_err (what curl said)
get() {
	local url=$1 rest hostport host port ef="$BB_TMP/curl.$BASHPID.err"
	rest=${url#*://}
	hostport=${rest%%[/?]*}
	host=${hostport%%:*}
	case $url in https:*) port=443 ;; *) port=80 ;; esac
	[ "$hostport" != "$host" ] && port=${hostport#*:}
	get_code=$(in_src timeout 20 curl -sSk -o /dev/null -w '%{http_code}' \
		--max-time "$2" --resolve "$host:$port:${GET_ADDR:-$SRV}" "$url" 2>"$ef")
	get_rc=$?
	get_err=$(<"$ef")
}
expect_get_ok() {
	get "$2" 10
	if [ "$get_rc" = 0 ] && [ "$get_code" = 200 ]; then
		tap_ok "$1"
	else
		tap_not_ok "$1"; echo "# curl $2: status $get_rc, HTTP $get_code; expected HTTP 200"
		diag "$get_err"
		diag "$(in_src ss -tn; in_dut ss -tn)"
	fi
}
# s_client SNI [SECONDS]: a full TLS handshake with the SNI exactly as given, in 10 s
# (or SECONDS); status of s_client
s_client() {
	in_src timeout "${2:-10}" openssl s_client -connect "$SRV:443" -servername "$1" \
		</dev/null >/dev/null 2>&1
}

# all_blocked "NAME|KIND|TARGET[|ADDR]"...: attempts that must get no answer, run at
# once (each waits out its own timeout), then judged in order:
#   dns  TARGET a name; dig times out (ADDR: the server, default $SRV)
#   get  TARGET a URL; curl gives up (status 28) with no response: the connection
#        opened, the request or its ClientHello never got through (ADDR: where the
#        URL's host resolves, default $GET_ADDR or $SRV)
#   sni  TARGET an SNI; openssl s_client does not complete the handshake in 2 s
# On these veths an answer takes milliseconds; the hit counters back each of these up.
all_blocked() {
	local e name kind target addr i=0 pids=() tls=0 r o timedout='timed out|no servers could be reached'
	for e in "$@"; do
		IFS='|' read -r name kind target addr <<<"$e"
		case $kind in
		dns) (DNS_SERVER=${addr:-$SRV}; dns "$target" 1; printf '%s\n%s\n' "$?" "$dns_out") ;;
		get) (GET_ADDR=${addr:-${GET_ADDR:-$SRV}}; get "$target" 1.5; echo "$get_rc $get_code") ;;
		sni) (s_client "$target" 2; echo "$?") ;;
		esac >"$BB_TMP/try.$i" 2>&1 &
		pids+=($!)
		i=$((i + 1))
	done
	wait "${pids[@]}"
	i=0
	for e in "$@"; do
		IFS='|' read -r name kind target addr <<<"$e"
		{ IFS= read -r r; o=$(<"/dev/stdin"); } <"$BB_TMP/try.$i"
		i=$((i + 1))
		case $kind in
		dns)
			dns_sent=$((dns_sent + 1))
			if [ "$r" != 0 ] && [[ $o =~ $timedout ]]; then
				tap_ok "$name"
			else
				tap_not_ok "$name"; echo "# dig $target: status $r; expected a timeout"; diag "$o"
			fi ;;
		get)
			case $target in https:*) tls=1 ;; esac
			if [ "$r" = "28 000" ]; then
				tap_ok "$name"
			else
				tap_not_ok "$name"
				echo "# curl $target: status and HTTP code '$r'; expected a timeout (28 000)"
			fi ;;
		sni)
			tls=1
			if [ "$r" != 0 ]; then
				tap_ok "$name"
			else
				tap_not_ok "$name"; echo "# s_client -servername $target completed the handshake"
			fi ;;
		esac
	done
	[ "$tls" = 0 ] || tls_unstick
}
expect_dns_blocked() { all_blocked "$1|dns|$2|${DNS_SERVER:-}"; }
expect_get_blocked() { all_blocked "$1|get|$2"; }

# Counters: snap (the dut instance) and snapc (the client's) print `stats -j`;
# deltas BEFORE AFTER sets D[counter] to AFTER - BEFORE for every counter at once
# (one jq: on a loaded machine every process costs); d COUNTER prints one.
snap() { bb stats -j; }
snapc() { bbc stats -j; }
declare -A D
deltas() {
	local k v
	D=()
	while IFS='=' read -r k v; do
		D[$k]=$v
	done < <(jq -rn --argjson a "$1" --argjson b "$2" '$b | to_entries[] | "\(.key)=\(.value - $a[.key])"')
}
d() { echo "${D[$1]:-none}"; }

LIST1=$BB_TMP/names1.txt LIST2=$BB_TMP/names2.txt CLIST=$BB_TMP/client.txt
cat >"$LIST1" <<'EOF'
# bloomblock names e2e: the first list
evil.example            # a name: itself and every subdomain
*.wild.example          ; subdomains only
phish.test/login/       # a URL prefix: never the whole host
203.0.113.0/24          # addresses still work alongside names
127.0.0.1 localhost     # hosts-file preamble: not an entry
0.0.0.0 hosted.example  # a hosts-file line
EOF

# ---- baseline: everything answers before loading ----------------------------------------
expect_dns_answer "baseline: dig evil.example answers" evil.example
expect_get_ok "baseline: https://evil.example/ answers 200" https://evil.example/
expect_get_ok "baseline: http://phish.test/login/x answers 200" http://phish.test/login/x

run bb load "$LIST1" -i bbd0
check_rc "load names list -i bbd0 exits 0" 0
check_match "load counts 3 names and 1 URL" 'names 3, urls 1' "$out$err"
check_match "load reports bbd0 attached at XDP" 'bbd0: attached \(.*XDP\)' "$out$err"
check_eq "status -j: hook xdp on bbd0" "$(bb_status '[.interfaces[] | .ifname + ":" + .hook] | join(",")')" "bbd0:xdp"
expect_blocked "a source in the listed 203.0.113.0/24 is still dropped" 203.0.113.9 $SRV

# ---- 1. DNS ---------------------------------------------------------------------------------
s0=$(snap) dns_sent=0
all_blocked "DNS: evil.example times out|dns|evil.example" \
	"DNS: a.b.evil.example (subdomain) times out|dns|a.b.evil.example" \
	"DNS: EVIL.EXAMPLE (upper case) times out|dns|EVIL.EXAMPLE" \
	"DNS: x.wild.example (*.wild.example) times out|dns|x.wild.example" \
	"DNS: hosted.example (hosts-file line) times out|dns|hosted.example" \
	"DNS over IPv6: evil.example times out|dns|evil.example|$SRV6"
dns_blocked=$dns_sent
expect_dns_answer "DNS: good.example answers" good.example
DNS_SERVER=$SRV6 expect_dns_answer "DNS over IPv6: good.example answers" good.example
expect_dns_answer "DNS: notevil.example answers (suffix match is by label)" notevil.example
expect_dns_answer "DNS: wild.example answers (*.wild.example is subdomains only)" wild.example
expect_dns_answer "DNS: evil.example.test answers (a listed name as a prefix)" evil.example.test
expect_dns_answer "DNS: localhost.example answers (the hosts-file preamble is no entry)" localhost.example
expect_dns_answer "DNS: phish.test answers (a URL entry does not block the host's DNS)" phish.test
deltas "$s0" "$(snap)"
check_ge "DNS: dns_queries grew by at least the $dns_sent queries" "$(d dns_queries)" "$dns_sent"
check_ge "DNS: dns_hits grew by at least the $dns_blocked blocked queries" "$(d dns_hits)" "$dns_blocked"
check_ge "DNS: dns_hits grew by no more than dns_queries" "$(d dns_queries)" "$(d dns_hits)"
check_ge "DNS: dropped grew by at least $dns_blocked" "$(d dropped)" "$dns_blocked"
check_eq "DNS: no query was unparsed" "$(d dns_unparsed)" 0

# ---- 2. TLS (SNI) -------------------------------------------------------------------------------
s0=$(snap)
all_blocked "TLS: curl https://evil.example/ gets no answer|get|https://evil.example/" \
	"TLS: curl https://www.evil.example/ (subdomain) gets no answer|get|https://www.evil.example/" \
	"TLS: curl https://x.wild.example/ gets no answer|get|https://x.wild.example/" \
	"TLS over IPv6: curl https://evil.example/ gets no answer|get|https://evil.example/|[$SRV6]" \
	"TLS: s_client -servername EVIL.example (mixed case, as typed) does not complete|sni|EVIL.example"
expect_get_ok "TLS: curl https://good.example/ answers 200" https://good.example/
expect_get_ok "TLS: curl https://notevil.example/ answers 200" https://notevil.example/
expect_get_ok "TLS: curl https://phish.test/login/x answers 200 (URLs are not matched in TLS)" \
	https://phish.test/login/x
GET_ADDR=[$SRV6]
expect_get_ok "TLS over IPv6: curl https://good.example/ answers 200" https://good.example/
GET_ADDR=$SRV
check "TLS: s_client -servername Good.Example (mixed case, unlisted) completes" s_client Good.Example
deltas "$s0" "$(snap)"
check_ge "TLS: tls_hits grew by at least the 5 blocked handshakes" "$(d tls_hits)" 5
check_ge "TLS: tls_hellos grew by at least the 10 handshakes" "$(d tls_hellos)" 10
check_eq "TLS: no ClientHello was unparsed" "$(d tls_unparsed)" 0

# ---- 3. split ClientHello: small MTU, no segmentation offload ------------------------------------
ip -n "$NS_SRC" link set bbs0 mtu 200 && ip -n "$NS_DUT" link set bbd0 mtu 200 &&
	in_src ethtool -K bbs0 tso off gso off >/dev/null 2>&1
check_eq "split: MTU 200 on both ends, TSO and GSO off on the client" "$?" 0
s0=$(snap)
expect_get_ok "split: curl https://good.example/ answers 200" https://good.example/
deltas "$s0" "$(snap)"
check_ge "split: tls_split grew (the ClientHello came in segments)" "$(d tls_split)" 1
all_blocked "split: curl https://evil.example/ gets no answer|get|https://evil.example/" \
	"split: curl https://a.x.wild.example/ gets no answer|get|https://a.x.wild.example/"
expect_get_ok "split: curl https://notevil.example/ answers 200" https://notevil.example/
deltas "$s0" "$(snap)"
check_ge "split: tls_split counts all 4 split ClientHellos" "$(d tls_split)" 4
check_ge "split: tls_hits grew by at least 2" "$(d tls_hits)" 2
# An MTU under 1280 took IPv6 off both ends, and its addresses with it: put them back.
ip -n "$NS_SRC" link set bbs0 mtu 1500 && ip -n "$NS_DUT" link set bbd0 mtu 1500 &&
	in_src ethtool -K bbs0 tso on gso on >/dev/null 2>&1 &&
	ip -n "$NS_DUT" addr replace "$SRV6/64" dev bbd0 nodad &&
	ip -n "$NS_SRC" addr replace 2001:db8:51::2/64 dev bbs0 nodad
check_eq "split: MTU, offloads and IPv6 addresses restored" "$?" 0

# ---- 4. HTTP: Host and URL ------------------------------------------------------------------------
s0=$(snap)
all_blocked "HTTP: Host evil.example gets no answer|get|http://evil.example/" \
	"HTTP: Host www.evil.example gets no answer|get|http://www.evil.example/index.html" \
	"HTTP: http://phish.test/login/x (listed URL prefix) gets no answer|get|http://phish.test/login/x" \
	"HTTP: http://www.phish.test/login/x?a=1 (subdomain, query) gets no answer|get|http://www.phish.test/login/x?a=1" \
	"HTTP over IPv6: Host evil.example gets no answer|get|http://evil.example/|[$SRV6]" \
	"HTTP over IPv6: http://phish.test/login/x gets no answer|get|http://phish.test/login/x|[$SRV6]"
expect_get_ok "HTTP: http://phish.test/ answers 200 (a URL entry never blocks the host)" http://phish.test/
expect_get_ok "HTTP: http://phish.test/other answers 200" http://phish.test/other
expect_get_ok "HTTP: http://good.example/ answers 200" http://good.example/
expect_get_ok "HTTP: http://good.example/login/x answers 200 (the path alone is no match)" \
	http://good.example/login/x
GET_ADDR=[$SRV6]
expect_get_ok "HTTP over IPv6: http://phish.test/other answers 200" http://phish.test/other
GET_ADDR=$SRV
deltas "$s0" "$(snap)"
check_ge "HTTP: http_requests grew by at least the 11 requests" "$(d http_requests)" 11
check_ge "HTTP: http_hits grew by at least the 3 listed hosts" "$(d http_hits)" 3
check_ge "HTTP: url_hits grew by at least the 3 listed URLs" "$(d url_hits)" 3
check_eq "HTTP: no request was unparsed" "$(d http_unparsed)" 0
expect_dns_answer "HTTP: dig phish.test still answers" phish.test

# ---- 7. QUIC --------------------------------------------------------------------------------------
# udp_in: datagrams the dut's UDP stack received (delivered or answered "port unreachable")
udp_in() { in_dut awk '$1 == "Udp:" && $2 ~ /^[0-9]+$/ { print $2 + $3 }' /proc/net/snmp; }
# quic FIRST_BYTE: three datagrams to $SRV:443 from src: FIRST_BYTE, version 1, then filler
quic() {
	in_src bash -c 'for i in 1 2 3; do
		printf "\\x'"$1"'\\x00\\x00\\x00\\x01\\x08bbtquic-%s-0123456789" $i >/dev/udp/'$SRV'/443 || exit 1
	done'
}
s0=$(snap) u0=$(udp_in)
check "QUIC: three Initials (0xc0, version 1) sent" quic c0
sleep 0.2
deltas "$s0" "$(snap)"
check_ge "QUIC: quic_initials grew by 3" "$(d quic_initials)" 3
check_eq "QUIC: they passed (the dut's UDP stack got all 3)" $(($(udp_in) - u0)) 3
check_eq "QUIC: quic_dropped unchanged" "$(d quic_dropped)" 0

run bb load "$LIST1" --block-quic
check_rc "QUIC: reload --block-quic exits 0" 0
s0=$(snap) u0=$(udp_in)
check "QUIC: three Initials sent" quic c0
check "QUIC: three short-header packets (0x40) sent" quic 40
sleep 0.2
deltas "$s0" "$(snap)"
check_eq "QUIC: --block-quic: quic_dropped grew by 3" "$(d quic_dropped)" 3
check_eq "QUIC: --block-quic: only the 3 short-header packets reached the dut" $(($(udp_in) - u0)) 3
expect_dns_answer "QUIC: --block-quic leaves DNS alone" good.example
run bb load "$LIST1"
s0=$(snap) u0=$(udp_in)
quic c0
sleep 0.2
deltas "$s0" "$(snap)"
check_eq "QUIC: a reload without --block-quic keeps it" "$(d quic_dropped)" 3

# ---- 8. check ---------------------------------------------------------------------------------------
check_item() {	# check_item NAME ITEM WANT_RC WANT_TEXT
	run bb check "$2"
	if [ "$rc" = "$3" ] && grep -q -- "$4" <<<"$out"; then
		tap_ok "$1"
	else
		tap_not_ok "$1"; echo "# check $2: status $rc, expected $3 and '$4'"; diag "$out"; diag "$err"
	fi
}
# the key index names the list and line that hold each hit
check_item "check evil.example: listed at names1.txt:2" evil.example 0 "listed ($LIST1:2)"
check_item "check a.b.evil.example: listed, by its parent, named, and its line" a.b.evil.example 0 \
	"listed: evil.example ($LIST1:2)"
check_item "check EVIL.Example.: listed (canonical form)" EVIL.Example. 0 "listed ($LIST1:2)"
check_item "check notevil.example: not listed, exit 1" notevil.example 1 'not listed'
check_item "check x.wild.example: listed by *.wild.example at :3" x.wild.example 0 \
	"listed: \*.wild.example ($LIST1:3)"
check_item "check wild.example: not listed" wild.example 1 'not listed'
check_item "check hosted.example: listed at :7 (a hosts line)" hosted.example 0 "listed ($LIST1:7)"
check_item "check http://phish.test/login/x: listed by phish.test/login/ at :4" \
	http://phish.test/login/x 0 "listed: phish.test/login/ ($LIST1:4)"
check_item "check http://www.phish.test/login/x?a=1: listed by the same entry" \
	"http://www.phish.test/login/x?a=1" 0 "listed: phish.test/login/ ($LIST1:4)"
run bb -j check evil.example
check_eq "check -j: listed_in the list and line, not a false positive" \
	"$(jq -c '.[0] | [.listed_in.file, .listed_in.line, .false_positive]' <<<"$out" 2>&1)" \
	"[\"$LIST1\",2,false]"
check_item "check http://phish.test/other: not listed" http://phish.test/other 1 'not listed'
check_item "check phish.test: not listed" phish.test 1 'not listed'
check_item "check localhost: not listed" localhost 1 'not listed'

# ---- 8b. add and del, live: names, subdomains, URLs ------------------------------------------------------
expect_dns_answer "add: before, dig good.example answers" good.example
run bb add good.example http://good.test/login/
check_rc "add good.example and a URL prefix exits 0" 0
expect_dns_blocked "add: dig good.example times out at once" good.example
expect_dns_blocked "add: dig a.good.example (a subdomain) times out" a.good.example
expect_get_blocked "add: https://good.example/ gets no answer (SNI)" https://good.example/
expect_get_blocked "add: http://good.test/login/x gets no answer (the URL)" http://good.test/login/x
expect_get_ok "add: http://good.test/other still answers 200" http://good.test/other
run bb del a.evil.example
check_rc "del of a subdomain of a listed name: refused, exit 1" 1
check_match "... naming the parent's line" "not listed as such: .*$LIST1:2" "$out"
expect_dns_blocked "... and it is still blocked" a.evil.example
run bb del good.example http://good.test/login/
check_rc "del of both exits 0" 0
expect_dns_answer "del: dig good.example answers again" good.example
expect_get_ok "del: http://good.test/login/x answers 200 again" http://good.test/login/x
expect_dns_blocked "del: dig evil.example (listed) still times out" evil.example
run bb add '*.sub.good.example'
expect_dns_blocked "add *.name: dig x.sub.good.example times out" x.sub.good.example
expect_dns_answer "add *.name: dig sub.good.example itself answers" sub.good.example
run bb del '*.sub.good.example'
expect_dns_answer "del *.name: dig x.sub.good.example answers again" x.sub.good.example

# ---- 9. reload with another list: verdicts flip -------------------------------------------------------
gen1=$(bb_status .filter.generation)
printf '# the second list\ngood.example\n' >"$LIST2"
run bb load "$LIST2"
check_rc "reload with another names list exits 0" 0
check_eq "reload: generation incremented" "$(bb_status .filter.generation)" $((gen1 + 1))
expect_dns_blocked "reload: dig good.example now times out" good.example
expect_dns_answer "reload: dig evil.example now answers" evil.example
expect_get_ok "reload: http://phish.test/login/x now answers 200" http://phish.test/login/x
expect_get_blocked "reload: http://good.example/ now gets no answer" http://good.example/
expect_get_ok "reload: https://evil.example/ now answers 200" https://evil.example/
run bb load "$LIST2" --dns-ports 5353
check_rc "reload --dns-ports 5353 exits 0" 0
expect_dns_answer "--dns-ports 5353: a query to port 53 is not screened" good.example
run bb load "$LIST2" --dns-ports 53
expect_dns_blocked "--dns-ports 53 again: dig good.example times out" good.example
check_eq "reloads: generation $((gen1 + 3))" "$(bb_status .filter.generation)" $((gen1 + 3))
run bb load "$LIST1"
check_rc "reload with the first list again exits 0" 0
expect_dns_blocked "the first list again: dig evil.example times out" evil.example

# ---- 10. the allowlist --------------------------------------------------------------------------------
ALLOWF=$BB_TMP/allow.txt ADBL=$BB_TMP/exceptions.txt
printf '# false positives\nwww.evil.example\n' >"$ALLOWF"
run bb load "$LIST1" --allow "$ALLOWF"
check_rc "allow: load LIST --allow FILE exits 0" 0
check_match "allow: the summary counts the allowlist" 'allowlist ipv4 0, ipv6 0, names 1, urls 0' "$err"
s0=$(snap)
expect_dns_answer "allow: dig www.evil.example answers (--allow)" www.evil.example
expect_get_ok "allow: curl https://www.evil.example/ answers 200 (SNI)" https://www.evil.example/
expect_get_ok "allow: curl http://www.evil.example/ answers 200 (Host)" http://www.evil.example/
expect_dns_answer "allow: dig a.www.evil.example answers (its subdomains too)" a.www.evil.example
all_blocked "allow: dig evil.example still times out|dns|evil.example" \
	"allow: dig mail.evil.example (a sibling) still times out|dns|mail.evil.example"
deltas "$s0" "$(snap)"
check_ge "allow: the counter allowed grew by the 4 allowed hits" "$(d allowed)" 4
check_ge "allow: dns_hits counts the allowed queries as hits too" "$(d dns_hits)" 4
check_item "check www.evil.example: allowed, exit 1" www.evil.example 1 'allowed'
check_item "check mail.evil.example: listed, exit 0" mail.evil.example 0 \
	"listed: evil.example ($LIST1:2)"

gen_a=$(bb_status .filter.generation)
run bb allow a.b.evil.example http://phish.test/login/ok/
check_rc "allow: live allow of a name and a URL exits 0" 0
check_eq "allow: no reload (generation unchanged)" "$(bb_status .filter.generation)" "$gen_a"
expect_dns_answer "allow: dig a.b.evil.example answers at once" a.b.evil.example
mkdir -p "$WWW/login/ok" && echo ok >"$WWW/login/ok/x"
expect_get_ok "allow: http://phish.test/login/ok/x answers 200 (an allowed URL)" \
	http://phish.test/login/ok/x
expect_get_blocked "allow: http://phish.test/login/x still gets no answer" http://phish.test/login/x
run bb allow --list
check_eq "allow --list: the two items kept" "$out" $'a.b.evil.example\nhttp://phish.test/login/ok/'
check_eq "status -j: two items kept" "$(bb_status .allowlist.kept_items)" 2
run bb allow a.b.evil.example
check_match "allow: again says so" 'allowed already' "$out"
run bb allow 'not a name!'
check_rc "allow: an item that is no item exits 2" 2

run bb load "$LIST1"
check_rc "allow: a reload without --allow exits 0" 0
check_match "allow: the reload reads the kept items" 'allow\.list \(plain\)' "$err"
expect_dns_answer "allow: after the reload, dig a.b.evil.example still answers (kept)" a.b.evil.example
expect_dns_blocked "allow: after the reload, www.evil.example is blocked again (--allow not given)" \
	www.evil.example
run bb disallow a.b.evil.example
check_rc "disallow: exits 0" 0
expect_dns_blocked "disallow: dig a.b.evil.example times out at once" a.b.evil.example
run bb disallow a.b.evil.example
check_rc "disallow: an item not allowed exits 1" 1
check_match "disallow: ... and says so" 'not allowed' "$out"
check_eq "disallow: one item kept" "$(bb_status .allowlist.kept_items)" 1

printf '||evil.example^\n@@||ok.evil.example^\n' >"$ADBL"
run bb load "$ADBL"
check_rc "allow: an Adblock list with an @@ exception loads" 0
check_match "allow: the @@ rule is an allowlist entry" 'names 1, urls 0; allowlist ipv4 0, ipv6 0, names 1' "$err"
expect_dns_answer "allow: dig ok.evil.example answers (@@)" ok.evil.example
expect_dns_blocked "allow: dig evil.example times out" evil.example

# A response policy zone's rpz-passthru. and Unbound's transparent zones are exceptions
# of the same kind: allowlist entries, consulted after a hit, counted as allowed.
# rpz-passthru names one owner name (a wildcard owner would be needed for its
# subdomains); a transparent zone covers the zone and everything under it.
RPZL=$BB_TMP/policy.rpz UNBL=$BB_TMP/unbound.conf
cat >"$RPZL" <<'EOF'
$TTL 300
$ORIGIN rpz.test.
@ IN SOA ns.rpz.test. hostmaster.rpz.test. ( 1 3600 600 86400 300 )
  IN NS  ns.rpz.test.
corp.example          CNAME .
*.corp.example        CNAME .
ok.corp.example       CNAME rpz-passthru.
EOF
run bb load "$RPZL"
check_rc "allow: a response policy zone with an rpz-passthru. loads" 0
check_match "allow: the passthru is an allowlist entry" 'allowlist ipv4 0, ipv6 0, names 1' "$err"
s0=$(snap)
expect_dns_answer "allow: dig ok.corp.example answers (rpz-passthru.)" ok.corp.example
expect_dns_answer "allow: ... twice" ok.corp.example
all_blocked "allow: dig corp.example times out (the zone's block)|dns|corp.example" \
	"allow: dig x.corp.example times out (*.corp.example)|dns|x.corp.example" \
	"allow: dig a.ok.corp.example times out (the passthru owns one name)|dns|a.ok.corp.example"
deltas "$s0" "$(snap)"
check_eq "allow: allowed grew by the 2 passed-through queries" "$(d allowed)" 2
check_ge "allow: dropped grew by the 3 blocked ones" "$(d dropped)" 3
check_item "check ok.corp.example: allowed" ok.corp.example 1 'allowed'

cat >"$UNBL" <<'EOF'
server:
    local-zone: "corp.example" always_nxdomain
    local-zone: "ok.corp.example" transparent
    local-zone: "tt.corp.example" typetransparent
EOF
run bb load "$UNBL"
check_rc "allow: an Unbound list with transparent zones loads" 0
check_match "allow: the two transparent zones are allowlist entries" \
	'names 1, urls 0; allowlist ipv4 0, ipv6 0, names 2' "$err"
s0=$(snap)
expect_dns_answer "allow: dig ok.corp.example answers (transparent)" ok.corp.example
expect_dns_answer "allow: dig a.ok.corp.example answers (inside the transparent zone)" \
	a.ok.corp.example
expect_dns_answer "allow: dig tt.corp.example answers (typetransparent)" tt.corp.example
all_blocked "allow: dig corp.example times out (always_nxdomain)|dns|corp.example" \
	"allow: dig x.corp.example times out (inside the blocked zone)|dns|x.corp.example"
deltas "$s0" "$(snap)"
check_eq "allow: allowed grew by the 3 queries the transparent zones let through" "$(d allowed)" 3
check_ge "allow: dropped grew by the 2 blocked ones" "$(d dropped)" 2

run bb disallow http://phish.test/login/ok/
check_rc "disallow: the last kept item" 0
run bb load "$LIST1"
check_rc "the first list again, no allowlist" 0
expect_dns_blocked "no allowlist: dig www.evil.example times out" www.evil.example

# ---- 5. tc egress on the client: nothing listed leaves ----------------------------------------------
cat >"$CLIST" <<EOF
# the client's list: names the server side does not list, and one destination
egress.example
$SRV2
EOF
run bbc load "$CLIST" -i bbs0 --hook tc-egress
check_rc "client: load --hook tc-egress -i bbs0 (src namespace) exits 0" 0
check_match "client: reports bbs0 attached at tc egress" 'bbs0: attached \(tc egress\)' "$out$err"
check_eq "client: status -j: hook tc-egress on bbs0" \
	"$(bbc status -j | jq -r '[.interfaces[] | .ifname + ":" + .hook] | join(",")')" "bbs0:tc-egress"
check_match "client: tc shows the filter on bbs0 egress" 'bpf' "$(in_src tc filter show dev bbs0 egress)"

c0=$(snapc) s0=$(snap)
all_blocked "egress: dig egress.example fails at the client|dns|egress.example" \
	"egress: curl https://egress.example/ gets no answer|get|https://egress.example/" \
	"egress: curl http://egress.example/ gets no answer|get|http://egress.example/" \
	"egress: curl http://sub.egress.example/x gets no answer|get|http://sub.egress.example/x" \
	"egress: curl http://good.example/ at the listed address $SRV2 gets no answer|get|http://good.example/|$SRV2"
deltas "$s0" "$(snap)"
check_eq "egress: the query never reached the server side (dut dns_queries unchanged)" \
	"$(d dns_queries)" 0
deltas "$c0" "$(snapc)"
check_ge "egress: client dns_hits grew" "$(d dns_hits)" 1
check_ge "egress: client tls_hits grew" "$(d tls_hits)" 1
check_ge "egress: client http_hits grew by 2" "$(d http_hits)" 2
expect_dns_answer "egress: dig good.example answers" good.example
expect_dns_answer "egress: dig notevil.example answers" notevil.example
expect_get_ok "egress: curl https://good.example/ answers 200" https://good.example/
expect_get_ok "egress: curl http://good.example/ answers 200" http://good.example/
BB_BLOCK_BB=bbc expect_blocked "egress: ping to the listed destination $SRV2 gets no answer" \
	198.51.100.2 $SRV2
expect_pass "egress: ping to $SRV still answered" 198.51.100.2 $SRV
deltas "$c0" "$(snapc)"
check_ge "egress: client ip_dst_hits grew" "$(d ip_dst_hits)" 2
check_eq "egress: client ip4_hits unchanged (egress checks the destination)" "$(d ip4_hits)" 0
check_ge "egress: client dropped grew" "$(d dropped)" 6

# ---- 6. flag mode at tc, with a mark ------------------------------------------------------------------
run bbc load "$CLIST" --mode flag --mark 0x2a
check_rc "flag: client reload --mode flag --mark 0x2a exits 0" 0
check_eq "flag: client status: mode flag" "$(bbc status -j | jq -r .filter.mode)" flag
c0=$(snapc)
expect_dns_answer "flag: dig egress.example answers" egress.example
expect_get_ok "flag: curl http://egress.example/ answers 200" http://egress.example/
expect_get_ok "flag: curl https://egress.example/ answers 200" https://egress.example/
deltas "$c0" "$(snapc)"
check_ge "flag: client flagged grew by the 3 listed requests" "$(d flagged)" 3
check_eq "flag: client dropped unchanged" "$(d dropped)" 0

# The mark: set at tc egress it is gone by the time anything could see it (nftables'
# hooks run before tc egress, and veth clears the mark crossing namespaces). At tc
# ingress it comes before netfilter: the server side, in flag mode at tc ingress,
# marks the listed request and nftables' prerouting counts packets with that mark.
# The server's instance was loaded for XDP only: this load adds the tc programs to
# it (their own tail-call table, the instance's filter), and XDP, in flag mode too
# now, lets the listed requests through to tc.
check_fails "flag: the XDP-only instance has no tc programs yet" \
	test -e "$BB_PIN_DIR/prog_tc_ingress"
run bb load "$LIST1" -i bbd0 --hook tc-ingress --mode flag --mark 0x2a
check_rc "flag: load --hook tc-ingress --mode flag --mark 0x2a on bbd0 exits 0" 0
check "flag: ... which loaded the tc programs into the instance" \
	test -e "$BB_PIN_DIR/prog_tc_ingress"
check_eq "flag: status -j: hooks tc-ingress and xdp on bbd0" \
	"$(bb_status '[.interfaces[] | .ifname + ":" + .hook] | sort | join(",")')" \
	"bbd0:tc-ingress,bbd0:xdp"
in_dut nft -f - <<'EOF'
table inet bbt {
	chain pre {
		type filter hook prerouting priority -300; policy accept;
		meta mark 0x0000002a counter
	}
}
EOF
check_eq "flag: an nftables counter of meta mark 0x2a in the dut namespace" "$?" 0
marked() { in_dut nft list chain inet bbt pre | sed -n 's/.*counter packets \([0-9]*\).*/\1/p'; }
m0=$(marked) s0=$(snap)
expect_get_ok "flag: curl http://good.example/ answers 200" http://good.example/
check_eq "flag: an unlisted request is not marked" "$(marked)" "$m0"
expect_get_ok "flag: curl http://evil.example/ answers 200" http://evil.example/
check_ge "flag: the listed request was marked 0x2a (nftables saw it)" $(($(marked) - m0)) 1
expect_dns_answer "flag: dig evil.example answers" evil.example
deltas "$s0" "$(snap)"
check_ge "flag: the marked packets are the flagged ones" "$(d flagged)" $(($(marked) - m0))
check_ge "flag: flagged grew by the 2 listed requests" "$(d flagged)" 2
check_eq "flag: dropped unchanged" "$(d dropped)" 0

# ---- unload both instances ---------------------------------------------------------------------------
run bb unload -i bbd0
check_rc "unload -i bbd0 (XDP and tc ingress) exits 0" 0
check_eq "no tc filter left on bbd0 ingress" "$(in_dut tc filter show dev bbd0 ingress)" ""
check_no_match "no XDP program left on bbd0" 'xdp' "$(in_dut ip link show dev bbd0)"
check_fails "the server side's pin dir is gone" test -e "$BB_PIN_DIR"
check_fails "... and its state dir (lock, kept allowlist)" test -e "$BB_STATE_DIR"
run bbc unload -i bbs0
check_rc "client: unload -i bbs0 (tc egress) exits 0" 0
check_eq "client: no tc filter left on bbs0 egress" "$(in_src tc filter show dev bbs0 egress)" ""
check_fails "client: the pin dir is gone" test -e "$BBC_PIN_DIR"
expect_dns_answer "after unload: dig evil.example answers" evil.example
expect_get_ok "after unload: curl https://egress.example/ answers 200" https://egress.example/

tap_done
