#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The kernel matrix's end-to-end smoke (tests/kernels/guest.sh runs it in each guest;
# it runs on the host too): bloomblock loaded for real on a veth, at XDP and then at tc
# ingress, judged by real clients and by its counters; a reload that flips the
# verdicts; unload. Where the kernel allows extension (freplace) programs, XDP is the
# default way (libxdp's dispatcher, alone) and a plain link, then libxdp's dispatcher
# beside xdp-filter. TAP output, root needed.
#
#   dut namespace: bbd0  198.51.100.1  2001:db8:51::1  <- bloomblock; dnsmasq :53 and
#                                                         busybox httpd :80 answer there
#   src namespace: bbs0  198.51.100.2 .3  2001:db8:51::2 ::3  <- ping, dig, curl
#   first list:  198.51.100.3, 2001:db8:51::3, blocked.example;  second: 198.51.100.2
set -u
# a load verifies some 2.5 million instructions: 40 s under TCG (lib.sh's default is 30)
BB_TIMEOUT=${BB_TIMEOUT:-300}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"

for c in dig dnsmasq curl busybox xdp-filter xdp-loader; do
	command -v "$c" >/dev/null || skip_all "needs $c (scripts/install-deps.sh installs it)"
done
SRV=198.51.100.1 SRV6=2001:db8:51::1
out_dir=${BB_OUTPUT:-$BB_ROOT/.output}
case $out_dir in /*) ;; *) out_dir=$BB_ROOT/$out_dir ;; esac

# load_checked NAME ARGS...: `bloomblock load ARGS` exits 0; else what it said that
# matters (the list's summary and libbpf's log would fill check_rc's 20 lines), and for
# a refusal through libxdp the kernel's reason, which only -d shows (a second load)
load_checked() {
	local name=$1 why
	shift
	run bb load "$@"
	if [ "$rc" = 0 ]; then
		tap_ok "$name"
		return 0
	fi
	tap_not_ok "$name"; echo "# exit status $rc, expected 0"
	why=$(printf '%s\n' "$out" "$err" | grep -E '^Error|failed to load: ' | head -n 6)
	if [[ $why == *'through libxdp'* ]]; then
		why+=$'\n'$(bb -d load "$@" 2>&1 | grep -E 'Extension|^libxdp: .*(fail|rror)' |
			sort -u | head -n 4)
		bb unload --all >/dev/null 2>&1
	fi
	diag "$why"
	return 1
}

# skip NAME: a check that cannot run because the load before it failed
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n $1 # SKIP bloomblock did not load"; }

# dns NAME SECONDS: one query from the src namespace; 0 when dnsmasq answered
dns() { in_src timeout 10 dig +time="$2" +tries=1 +short @"$SRV" "$1" A 2>&1 | grep -qx "$SRV"; }
# http NAME SECONDS: the HTTP status of GET / for NAME (000: no answer)
http() {
	in_src timeout 20 curl -s -o /dev/null -w '%{http_code}' --max-time "$2" \
		--resolve "$1:80:$SRV" "http://$1/" 2>/dev/null
}

e2e_begin
LIST1=$BB_TMP/list1 LIST2=$BB_TMP/list2
printf '198.51.100.3\n2001:db8:51::3\nblocked.example\n' >"$LIST1"
printf '198.51.100.2\n' >"$LIST2"
mkdir -p "$BB_TMP/www" && echo "bloomblock kernel smoke" >"$BB_TMP/www/index.html"
in_dut timeout 900 dnsmasq --no-daemon --conf-file=/dev/null --pid-file= --port=53 \
	--listen-address=$SRV --bind-interfaces --no-resolv --no-hosts \
	--address=/example/$SRV >"$BB_TMP/dnsmasq.log" 2>&1 &
in_dut timeout 900 busybox httpd -f -p 80 -h "$BB_TMP/www" >"$BB_TMP/httpd.log" 2>&1 &
wait_listen_in "$NS_DUT" u 53 && wait_listen_in "$NS_DUT" t 80 ||
	bail "the servers did not start: $(cat "$BB_TMP"/*.log)"

expect_pass "baseline: 198.51.100.3 reaches $SRV" 198.51.100.3 $SRV
if dns blocked.example 4; then tap_ok "baseline: dig blocked.example answered"
else tap_not_ok "baseline: dig blocked.example answered"; fi

# verdicts HOOK: the first list's verdicts, by clients and counters
verdicts() {
	local h=$1 d0 code want
	d0=$(bb_stat dropped)
	blocked_tx=0
	expect_pass "$h: unlisted 198.51.100.2 passes" 198.51.100.2 $SRV
	expect_blocked "$h: listed 198.51.100.3 is dropped" 198.51.100.3 $SRV
	want=$blocked_tx
	# the unlisted IPv6 source first: its neighbour discovery resolves the server for
	# both (a ping from the listed one alone waits on a solicitation that is dropped)
	expect_pass "$h: unlisted 2001:db8:51::2 passes" 2001:db8:51::2 $SRV6
	expect_blocked "$h: listed 2001:db8:51::3 is dropped" 2001:db8:51::3 $SRV6
	if dns ok.example 4; then tap_ok "$h: dig ok.example answered"
	else tap_not_ok "$h: dig ok.example answered"; fi
	if dns blocked.example 1; then tap_not_ok "$h: dig blocked.example gets no answer"
	else tap_ok "$h: dig blocked.example gets no answer"; want=$((want + 1)); fi
	code=$(http ok.example 10)
	check_eq "$h: curl http://ok.example/ gets 200" "$code" 200
	code=$(http blocked.example 2)
	check_eq "$h: curl http://blocked.example/ gets no answer" "$code" 000
	check_ge "$h: stats: dropped grew by the blocked pings and query at least" \
		"$(($(bb_stat dropped) - d0))" "$want"
	check_ge "$h: stats: dns_hits" "$(bb_stat dns_hits)" 1
	check_ge "$h: stats: http_hits" "$(bb_stat http_hits)" 1
}

# Does the kernel load extension (freplace) programs? Then `--xdp-attach auto` (the
# default) goes through libxdp's dispatcher, and a plain link is tried beside it.
ext=$("$out_dir/tests/progcheck" "$out_dir/freplace_ext.bpf.o" 2>&1 | grep -E '^(not )?ok 1' || true)
ways="xdp tc-ingress"
case $ext in 'ok 1 '*verified*) ways="xdp xdp:link tc-ingress" ;; esac

for way in $ways; do
	hook=${way%%:*} attach=()
	[ "$way" = xdp:link ] && attach=(--xdp-attach link)
	echo "# ---- $way"
	if ! load_checked "$way: load LIST -i bbd0 --hook $hook${attach[*]:+ ${attach[*]}} exits 0" \
		"$LIST1" -i bbd0 --hook "$hook" "${attach[@]}"; then
		for c in "passes and drops" "reload" "unload"; do skip "$way: $c"; done
		bb unload --all >/dev/null 2>&1
		continue
	fi
	verdicts "$way"
	load_checked "$way: reload with the second list exits 0" "$LIST2" -i bbd0 --hook "$hook" \
		"${attach[@]}"
	expect_blocked "$way: after the reload, 198.51.100.2 is dropped" 198.51.100.2 $SRV
	expect_pass "$way: after the reload, 198.51.100.3 passes" 198.51.100.3 $SRV
	run bb unload --all
	check_rc "$way: unload --all exits 0" 0
	expect_pass "$way: after unload, 198.51.100.2 passes" 198.51.100.2 $SRV
done

# ---- XDP through libxdp's dispatcher, beside xdp-filter ---------------------------------
echo "# ---- libxdp's dispatcher"
case $ext in
*SKIP*)
	tap_skip_kernel "--xdp-attach libxdp beside xdp-filter" \
		"it refuses extension (freplace) programs: ${ext##*: }" ;;
'ok 1 '*verified*)
	xf() { timeout 60 nsenter --net="/run/netns/$NS_DUT" "$@"; }
	if o=$(xf xdp-filter load bbd0 2>&1); then tap_ok "xdp-filter load bbd0"
	else tap_not_ok "xdp-filter load bbd0"; diag "$o"; fi
	if load_checked "load --xdp-attach libxdp beside xdp-filter exits 0" "$LIST1" -i bbd0 \
		--xdp-attach libxdp; then
		o=$(xf xdp-loader status bbd0 2>&1)
		check_match "xdp-loader status shows bloomblock_xdp" 'bloomblock_xdp' "$o"
		check_match "xdp-loader status shows xdp-filter's program" 'xdpfilt' "$o"
		expect_blocked "libxdp: listed 198.51.100.3 is dropped" 198.51.100.3 $SRV
		expect_pass "libxdp: unlisted 198.51.100.2 passes" 198.51.100.2 $SRV
	fi
	bb unload --all >/dev/null 2>&1
	xf xdp-filter unload bbd0 >/dev/null 2>&1 ;;
*)
	tap_not_ok "the freplace probe (progcheck freplace_ext.bpf.o) ran"; diag "$ext" ;;
esac
tap_done
