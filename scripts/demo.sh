#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bloomblock in 20 seconds: two private network namespaces joined by a veth pair,
# a small blocklist, the real `bloomblock load`, real pings from a listed and an
# unlisted client (IPv4 and IPv6), status and stats, a reload that flips the
# verdicts, names screened in real DNS queries and HTTP requests (dig and curl
# against dnsmasq and busybox httpd in the server's namespace), and an unload. Everything it creates is removed on exit, and nothing
# is added to this machine's own network namespace.
#
#   sudo make demo          (or: sudo scripts/demo.sh)
#
# Exit status: 0 when every expectation held, 1 otherwise.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BB=${BB:-$ROOT/bloomblock}
TAG=bbdemo-$$
SERVER=$TAG-server		# bloomblock guards this namespace's end of the cable
CLIENTS=$TAG-clients
PIN=/sys/fs/bpf/$TAG		# a private pin dir: a real install is never touched
IF=bbdemo0
TMP=
SERVER_PIDS=()			# dnsmasq and busybox httpd, in the server namespace

if [ -t 1 ]; then
	B=$'\e[1m' G=$'\e[32m' R=$'\e[31m' D=$'\e[2m' N=$'\e[0m'
else
	B='' G='' R='' D='' N=''
fi

die() { echo "${R}demo: $*${N}" >&2; exit 1; }

cleanup() {
	local p
	for p in "${SERVER_PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	if [ -d "$PIN" ]; then
		timeout 20 "$BB" --pin-dir "$PIN" unload --all >/dev/null 2>&1
		rm -rf "$PIN"
	fi
	ip netns del "$SERVER" 2>/dev/null
	ip netns del "$CLIENTS" 2>/dev/null
	[ -n "$TMP" ] && rm -rf "$TMP"
	return 0
}

# ---- preflight ------------------------------------------------------------------
[ "$(id -u)" = 0 ] || die "run me as root: sudo make demo"
[ -x "$BB" ] || die "no $BB: build it first with make"
for c in ip ping nsenter timeout; do
	command -v "$c" >/dev/null || die "needs '$c' (scripts/install-deps.sh installs it)"
done
trap cleanup EXIT
trap 'exit 130' INT TERM
TMP=$(mktemp -d /tmp/bbdemo.XXXXXX)

if ! mountpoint -q /sys/fs/bpf; then
	mount -t bpf bpf /sys/fs/bpf || die "cannot mount the BPF filesystem on /sys/fs/bpf"
	echo "${D}(mounted the BPF filesystem on /sys/fs/bpf)${N}"
fi

# bloomblock runs in the server namespace (nsenter changes only the network
# namespace, so it still sees /sys/fs/bpf) with the demo's own pin dir.
bb() { timeout 30 nsenter --net="/run/netns/$SERVER" "$BB" --pin-dir "$PIN" "$@"; }
indent() { sed 's/^/    | /'; }
step() { echo; echo "${B}$*${N}"; }

passed=0 failed=0
# verdict SRC DST EXPECT(answered|dropped) LABEL: three pings (bounded: at most ~2 s), judged
verdict() {
	local src=$1 dst=$2 want=$3 label=$4 fam=-4 got
	case $dst in *:*) fam=-6 ;; esac
	if ip netns exec "$CLIENTS" timeout 10 ping "$fam" -n -c 3 -i 0.2 -W 1 -I "$src" "$dst" \
		>/dev/null 2>&1; then
		got=answered
	else
		got=dropped
	fi
	if [ "$got" = "$want" ]; then
		passed=$((passed + 1))
		printf '    ping from %-15s %-19s %s%-9s%s (as expected)\n' "$src" "($label):" "$G" "$got" "$N"
	else
		failed=$((failed + 1))
		printf '    ping from %-15s %-19s %s%-9s%s UNEXPECTED: should be %s\n' "$src" "($label):" \
			"$R" "$got" "$N" "$want"
	fi
}
# expect NAME CONDITION...: a non-traffic expectation
expect() {
	local name=$1
	shift
	if "$@"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1)); echo "    ${R}UNEXPECTED: $name${N}"; return 1
	fi
}
json() { bb "$1" -j | sed -n "s/.*\"$2\":\\([0-9]*\\).*/\\1/p"; }

# ---- the setup ---------------------------------------------------------------------
ip netns add "$SERVER" && ip netns add "$CLIENTS" || die "cannot create network namespaces"
ip -n "$SERVER" link add "$IF" type veth peer name bbdemo1 netns "$CLIENTS" || die "cannot create a veth pair"
for ns in "$SERVER" "$CLIENTS"; do ip -n "$ns" link set lo up; done
ip -n "$SERVER" addr add 198.51.100.1/24 dev "$IF"
ip -n "$SERVER" addr add 2001:db8:51::1/64 dev "$IF" nodad
for a in 198.51.100.2/24 198.51.100.3/24; do ip -n "$CLIENTS" addr add "$a" dev bbdemo1; done
for a in 2001:db8:51::2/64 2001:db8:51::3/64; do ip -n "$CLIENTS" addr add "$a" dev bbdemo1 nodad; done
ip -n "$SERVER" link set "$IF" up && ip -n "$CLIENTS" link set bbdemo1 up || die "cannot bring the veth up"

cat <<EOF
${B}bloomblock demo${N}
Two private network namespaces joined by a virtual cable (a veth pair). bloomblock's
XDP program will guard the server's end and drop packets from listed sources before
the kernel's network stack sees them. This machine's own network is not touched.

    clients ($CLIENTS)                 server ($SERVER)
    198.51.100.2   2001:db8:51::2   --- veth --->  $IF  198.51.100.1
    198.51.100.3   2001:db8:51::3                  2001:db8:51::1
EOF

# ---- 1. the list ---------------------------------------------------------------------
cat >"$TMP/blocklist.txt" <<'EOF'
# demo blocklist: one entry a line; '#' and ';' start comments
198.51.100.2            # a misbehaving client
2001:db8:51::2          # the same client over IPv6
203.0.113.0/24          ; a whole network (CIDR)
2001:db8:bad::/48       # an IPv6 network
EOF
step "1. The blocklist ($TMP/blocklist.txt):"
indent <"$TMP/blocklist.txt"

# ---- 2. load -----------------------------------------------------------------------------
step "2. Load it and attach to the server's interface:  bloomblock load blocklist.txt -i $IF"
bb load "$TMP/blocklist.txt" -i "$IF" 2>&1 | indent
[ "${PIPESTATUS[0]}" = 0 ] || die "bloomblock load failed"

# ---- 3. traffic ----------------------------------------------------------------------------
step "3. Real traffic: three pings from each client to the server"
verdict 198.51.100.2 198.51.100.1 dropped "listed"
verdict 198.51.100.3 198.51.100.1 answered "not listed"
verdict 2001:db8:51::2 2001:db8:51::1 dropped "listed"
verdict 2001:db8:51::3 2001:db8:51::1 answered "not listed"

# ---- 4. status and stats ---------------------------------------------------------------------
step "4. What is loaded:  bloomblock status"
bb status 2>&1 | indent
step "   What it counted:  bloomblock stats   ${D}(also: bpftool map dump pinned $PIN/stats)${N}"
bb stats 2>&1 | indent
dropped=$(json stats dropped)
if expect "stats counts drops" [ "${dropped:-0}" -gt 0 ]; then
	echo "    => $dropped packets from listed sources were dropped (their pings, and the IPv6 neighbour"
	echo "       discovery of the listed IPv6 client); $(json stats passed) packets passed."
fi
gen1=$(json status generation)
link1=$(bb status -j | sed -n 's/.*"link_id":\([0-9]*\).*/\1/p')

# ---- 5. check ---------------------------------------------------------------------------------
step "5. Ask the filter without sending anything:  bloomblock check 198.51.100.2 198.51.100.3 203.0.113.50"
bb check 198.51.100.2 198.51.100.3 203.0.113.50 2>&1 | indent
echo "    ${D}(\"maybe\": a Bloom filter can say yes wrongly, at the FPR shown above; \"not listed\" is certain)${N}"

# ---- 6. reload ----------------------------------------------------------------------------------
cat >"$TMP/blocklist2.txt" <<'EOF'
# the next day's list: .2 is forgiven, .3 misbehaves
198.51.100.3
2001:db8:51::3
EOF
step "6. Swap in a new list, no re-attach needed:  bloomblock load blocklist2.txt"
indent <"$TMP/blocklist2.txt"
bb load "$TMP/blocklist2.txt" 2>&1 | grep -v '^ ' | indent
[ "${PIPESTATUS[0]}" = 0 ] || die "bloomblock load (reload) failed"
verdict 198.51.100.2 198.51.100.1 answered "no longer listed"
verdict 198.51.100.3 198.51.100.1 dropped "now listed"
gen2=$(json status generation)
link2=$(bb status -j | sed -n 's/.*"link_id":\([0-9]*\).*/\1/p')
swapped() { [ -n "$gen1" ] && [ "$gen2" = "$((gen1 + 1))" ] && [ -n "$link1" ] && [ "$link1" = "$link2" ]; }
expect "the reload moves the generation up by one and keeps the same XDP link" swapped &&
	echo "    filter generation $gen1 -> $gen2, same XDP link (id $link2): swapped in one atomic step, not re-attached"

# ---- 7. names -----------------------------------------------------------------------------------
# serve COMMAND...: a server in the server namespace, in the background, gone within
# 60 s whatever happens (timeout passes the cleanup's SIGTERM on to it and its children)
serve() {
	ip netns exec "$SERVER" timeout 60 "$@" >/dev/null 2>&1 &
	SERVER_PIDS+=($!)
}
# listening PROTO PORT: wait (at most ~3 s) until the server namespace listens there
listening() {
	local _
	for _ in $(seq 30); do
		[ -n "$(ip netns exec "$SERVER" ss -Hln"$1" "sport = :$2" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	return 1
}
# name_verdict dns|http NAME EXPECT(answered|dropped) LABEL: one query or request from
# 198.51.100.2 (not listed). An answer takes milliseconds; the client waits 1 s (dig)
# or 1.5 s (curl) where a drop is expected, and 4 s where an answer is.
name_verdict() {
	local kind=$1 name=$2 want=$3 label=$4 got=dropped shown o wait=4
	[ "$want" = dropped ] && wait=1
	if [ "$kind" = dns ]; then
		shown="dig $name"
		o=$(ip netns exec "$CLIENTS" timeout 10 dig +time=$wait +tries=1 +short -b 198.51.100.2 \
			@198.51.100.1 "$name" A 2>&1)
		grep -qx '198.51.100.1' <<<"$o" && got=answered
	else
		shown="curl http://$name/"
		[ "$want" = dropped ] && wait=1.5
		o=$(ip netns exec "$CLIENTS" timeout 10 curl -s -o /dev/null -w '%{http_code}' \
			--max-time $wait --interface 198.51.100.2 --resolve "$name:80:198.51.100.1" \
			"http://$name/" 2>&1)
		[ "$o" = 200 ] && got=answered
	fi
	if [ "$got" = "$want" ]; then
		passed=$((passed + 1))
		printf '    %-26s %-13s %s%-9s%s (as expected)\n' "$shown" "($label):" "$G" "$got" "$N"
	else
		failed=$((failed + 1))
		printf '    %-26s %-13s %s%-9s%s UNEXPECTED: should be %s\n' "$shown" "($label):" "$R" \
			"$got" "$N" "$want"
	fi
}
names_missing=
for c in dig dnsmasq busybox curl ss; do
	command -v "$c" >/dev/null || names_missing="$names_missing $c"
done
if [ -n "$names_missing" ]; then
	step "7. Names: skipped, needs$names_missing (scripts/install-deps.sh installs them)"
else
	cat >"$TMP/blocklist3.txt" <<'EOF'
# names too: a DNS query, TLS SNI or HTTP Host for these or any subdomain is dropped
198.51.100.3
2001:db8:51::3
ads.example
0.0.0.0 tracker.example   # a hosts-file line works too
EOF
	mkdir -p "$TMP/www" && echo "bloomblock demo page" >"$TMP/www/index.html"
	serve dnsmasq --no-daemon --conf-file=/dev/null --pid-file= --port=53 --bind-interfaces \
		--listen-address=198.51.100.1 --no-resolv --no-hosts --address=/example/198.51.100.1
	serve busybox httpd -f -p 80 -h "$TMP/www"
	step "7. Names: the server now also runs a DNS server (dnsmasq) and a web server (busybox httpd)."
	echo "   A list can hold names: bloomblock reads the name in DNS queries, TLS ClientHellos (SNI)"
	echo "   and HTTP requests (Host, URL) and drops the packet when the name is listed."
	echo "   bloomblock load blocklist3.txt:"
	indent <"$TMP/blocklist3.txt"
	servers_up() { listening u 53 && listening t 80; }
	if expect "the DNS and web servers start" servers_up; then
		bb load "$TMP/blocklist3.txt" 2>&1 | grep -v '^ ' | indent
		[ "${PIPESTATUS[0]}" = 0 ] || die "bloomblock load (names) failed"
		name_verdict dns www.ads.example dropped "subdomain"
		name_verdict dns news.example answered "not listed"
		name_verdict http ads.example dropped "listed"
		name_verdict http news.example answered "not listed"
		name_verdict dns tracker.example dropped "listed"
		hits=$(bb stats -j)
		n_dns=$(sed -n 's/.*"dns_hits":\([0-9]*\).*/\1/p' <<<"$hits")
		n_http=$(sed -n 's/.*"http_hits":\([0-9]*\).*/\1/p' <<<"$hits")
		names_counted() { [ "${n_dns:-0}" -ge 2 ] && [ "${n_http:-0}" -ge 1 ]; }
		expect "stats count the DNS and HTTP hits" names_counted &&
			echo "    => the dropped queries and requests were never answered; stats: dns_hits $n_dns," \
				"http_hits $n_http (a client that gets no answer retries, so hits can exceed requests)"
	fi
fi

# ---- 8. unload ------------------------------------------------------------------------------------
step "8. Detach:  bloomblock unload -i $IF"
bb unload -i "$IF" 2>&1 | indent
verdict 198.51.100.3 198.51.100.1 answered "nothing loaded"
expect "the pinned state is gone" [ ! -e "$PIN" ]

echo
if [ "$failed" = 0 ]; then
	echo "${G}${B}All $passed expectations held.${N} Cleaning up the namespaces."
	exit 0
fi
echo "${R}${B}$failed of $((passed + failed)) expectations did not hold.${N}"
exit 1
