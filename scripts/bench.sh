#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark (`make bench`): the load path through the real CLI and nftables, then
# the driver (.output/bench) for per-packet cost, memory, FPR, the in-process load
# path, live add/del and filter files; one table at the end, also written as Markdown
# and CSV to bench-results/.
#
#   sudo make bench                       full run (~11 minutes)
#   sudo scripts/bench.sh --quick         smoke run with small sizes (< 2 minutes)
#
# Generated lists live in a temp dir; the private network namespace (for the CLI's
# interface and for nft) and the pin dir are removed on exit, whatever happens.
# docs/BENCHMARKS.md explains what each number means.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${BB_OUTPUT:-.output}
case $OUT in /*) ;; *) OUT=$ROOT/$OUT ;; esac
DRIVER=${BENCH_DRIVER:-$OUT/bench}
BB=${BB:-$ROOT/bloomblock}
RESULTS=${BENCH_RESULTS:-$ROOT/bench-results}
NFT_TIMEOUT=${BENCH_NFT_TIMEOUT:-240}	# seconds one `nft -f` may take
TAG=bbbench-$$
NS=$TAG
PIN=/sys/fs/bpf/$TAG
TMP=
QUICK=
DAEMON_ONLY=
VETH_ONLY=
DRIVER_ARGS=()

usage() {
	echo "usage: $0 [--quick] [--rounds N] [--cpu N] [--daemon]"
	echo "  --quick     small sizes, a smoke run of every part (< 2 minutes)"
	echo "  --rounds N  runs per figure (median, min, max); default 7, quick 3"
	echo "  --cpu N     CPU the driver pins itself to; default the last one"
	echo "  --daemon    the daemon's table (11) alone: its feed of the largest list"
	echo "  --veth      the veth throughput table (6) alone"
}

while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=--quick; DRIVER_ARGS+=(--quick) ;;
	--daemon) DAEMON_ONLY=1 ;;
	--veth) VETH_ONLY=1 ;;
	--rounds|--cpu) [ $# -ge 2 ] || { usage >&2; exit 2; }; DRIVER_ARGS+=("$1" "$2"); shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done

die() { echo "bench: $*" >&2; exit 1; }
note() { echo "  .. $*" >&2; }

cleanup() {
	if [ -d "$PIN" ]; then
		timeout 30 nsenter --net="/run/netns/$NS" "$BB" --pin-dir "$PIN" unload --all \
			>/dev/null 2>&1
		rm -rf "$PIN"
	fi
	if [ -e "/run/netns/$NS" ] && command -v xdp-filter >/dev/null; then
		nsenter --net="/run/netns/$NS" xdp-filter unload bbr0 >/dev/null 2>&1
		rmdir /sys/fs/bpf/xdp 2>/dev/null	# libxdp's pin dir, if it left it empty
	fi
	ip netns del "$NS" 2>/dev/null
	[ -n "$TMP" ] && rm -rf "$TMP"
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" = 0 ] || die "needs root (BPF, network namespaces): sudo make bench"
mountpoint -q /sys/fs/bpf || die "bpffs is not mounted at /sys/fs/bpf"
[ -x "$DRIVER" ] || die "$DRIVER is missing: make $OUT/bench (or make bench)"
[ -x "$BB" ] || die "$BB is missing: make"
for tool in jq nsenter ip; do
	command -v $tool >/dev/null || die "$tool is needed"
done
TIME=/usr/bin/time
[ -x $TIME ] || TIME=

read -r LINES NFT1 NFT2 < <("$DRIVER" $QUICK --sizes) || die "$DRIVER --sizes failed"
VETH_ROUNDS=5 VETH_PACKETS=1000000
[ -n "$QUICK" ] && VETH_ROUNDS=2 VETH_PACKETS=200000
TMP=$(mktemp -d /tmp/bbbench.XXXXXX) || die "mktemp failed"
RES=$TMP/load-results.txt
: > "$RES"
START=$(date +%s)

echo "bloomblock benchmark${QUICK:+ (quick)}: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs; kernel $(uname -r)" >&2
note "generating $LINES-line IPv4 and hostname lists in $TMP"
"$DRIVER" --gen "$TMP" "$LINES" || die "generating lists failed"

# The CLI needs an interface for a first load: a veth pair in a namespace of our own.
# nsenter --net changes the network namespace only, so bloomblock still sees the
# host's bpffs (ip netns exec would remount /sys).
ip netns add "$NS" || die "ip netns add $NS failed"
ip -n "$NS" link add bbb0 type veth peer name bbb1 || die "veth in $NS failed"
ip -n "$NS" link set bbb0 up && ip -n "$NS" link set bbb1 up && ip -n "$NS" link set lo up

now() { date +%s.%N; }

# --daemon: the daemon's part alone (table 11); --veth: the veth part alone (table 6);
# else every part.
if [ -z "$DAEMON_ONLY" ]; then
if [ -z "$VETH_ONLY" ]; then
# The IPv4 list again, gzip-compressed once (not timed as a load): the CLI inflates it
# on one thread as it reads, where the plain file is read in parallel parts.
if command -v gzip >/dev/null; then
	t0=$(now)
	if gzip -6 -c "$TMP/ip4.txt" >"$TMP/ip4.txt.gz"; then
		t1=$(now)
		note "gzip -6 of the IPv4 list: $(stat -c %s "$TMP/ip4.txt.gz") bytes," \
		     "$(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")s (in no row)"
	else
		echo "cli_ip4_gz_error gzip -6 failed" >>"$RES"
		rm -f "$TMP/ip4.txt.gz"
	fi
else
	echo "cli_ip4_gz_error gzip not installed" >>"$RES"
fi

# cli_load TAG FILE [ARGS]: one `bloomblock load`, its own timing lines, wall time and peak RSS
cli_load() {
	local tag=$1 file=$2 t0 t1 rc json=$TMP/load-$1.json err=$TMP/load-$1.err tf=$TMP/time-$1
	local -a cmd=(nsenter --net="/run/netns/$NS" "$BB" --pin-dir "$PIN" -j load "$file" -i bbb0
		      "${@:3}")

	note "bloomblock load $(basename "$file") ($tag)"
	t0=$(now)
	if [ -n "$TIME" ]; then
		$TIME -v -o "$tf" "${cmd[@]}" >"$json" 2>"$err"
	else
		"${cmd[@]}" >"$json" 2>"$err"
	fi
	rc=$?
	t1=$(now)
	if [ $rc != 0 ] || ! jq -e .seconds "$json" >/dev/null 2>&1; then
		echo "cli_${tag}_error load failed (exit $rc): $(tail -n 1 "$err" | tr -d '\n')" >>"$RES"
		return 1
	fi
	{
		echo "cli_${tag}_lines $(jq '.total.lines' "$json")"
		echo "cli_${tag}_file_bytes $(stat -c %s "$file")"
		echo "cli_${tag}_streamed $(jq -r '.streamed' "$json")"
		echo "cli_${tag}_keys $(jq '.filter.keys' "$json")"
		echo "cli_${tag}_filter_bytes $(jq '.filter.bytes' "$json")"
		echo "cli_${tag}_parse_s $(jq '.seconds.parse' "$json")"
		echo "cli_${tag}_build_s $(jq '.seconds.build' "$json")"
		echo "cli_${tag}_push_s $(jq '.seconds.push' "$json")"
		echo "cli_${tag}_wall_s $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}")"
		[ -f "$tf" ] && echo "cli_${tag}_maxrss_kb $(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tf")"
		# -d: where the time went (cmd_load.c, report_steps()), as steps_NAME seconds
		sed -n 's/^steps: //p' "$err" | tr ';,' '\n\n' | awk -v t="$tag" '
			/^ *parse / { printf "cli_%s_steps_parse_s %s\n", t, $2 + 0 }
			/^ *index [0-9]/ { printf "cli_%s_steps_index_s %s\n", t, $2 + 0 }
			/^ *programs / { printf "cli_%s_steps_programs_s %s\n", t, $2 + 0 }
			/^ *waited / { printf "cli_%s_steps_waited_s %s\n", t, $2 + 0 }
			/^ *filter / { printf "cli_%s_steps_filter_s %s\n", t, $2 + 0 }
			/^ *attach and swap / { printf "cli_%s_steps_swap_s %s\n", t, $4 + 0 }
			/^ *index written / { printf "cli_%s_steps_written_s %s\n", t, $3 + 0 }'
	} >>"$RES"
	grep '^timing:\|^steps:' "$err" | sed "s/^/       $tag: /" >&2
	return 0
}

unload_all() {
	timeout 30 nsenter --net="/run/netns/$NS" "$BB" --pin-dir "$PIN" unload --all >/dev/null 2>&1
	rm -rf "$PIN"
}

# 1. A first load of each list (program load, attach, filter live), and a reload; the
# first loads again on one thread, for the scaling (the default is one per online CPU).
# The gzip-compressed IPv4 list is a first load too, right after the plain one, so
# that their ratio comes from the same minutes. --stream always is what auto picks
# for the full run's .gz (tens of MiB); the quick run's is under 1 MiB and would be
# held in memory, not streamed like the plain list beside it.
cli_load ip4 "$TMP/ip4.txt"
cli_load reload "$TMP/ip4.txt"
unload_all
# The same two again with -d, for their steps (report_steps(): the scan, the index's
# sort, the programs' thread and the wait for it, the bits, the swap, the commit):
# apart, so that the rows above are the plain command a new user types. And the
# first load without the key index, the other way a large list loads.
cli_load ip4_steps "$TMP/ip4.txt" -d
cli_load reload_steps "$TMP/ip4.txt" -d
unload_all
cli_load ip4_noindex "$TMP/ip4.txt" --no-index
unload_all
if [ -f "$TMP/ip4.txt.gz" ]; then
	cli_load ip4_gz "$TMP/ip4.txt.gz" --stream always
	unload_all
fi
cli_load ip4_1t "$TMP/ip4.txt" --threads 1
unload_all
cli_load names "$TMP/names.txt"
cli_load names_reload "$TMP/names.txt"
unload_all
cli_load names_1t "$TMP/names.txt" --threads 1
unload_all

# 2. The same addresses into an nftables set, in the private namespace.
if command -v nft >/dev/null; then
	for n in $NFT1 $NFT2; do
		f=$TMP/set-$n.nft
		"$DRIVER" --gen-nft "$f" "$n" || { echo "nft_${n}_status generating failed" >>"$RES"; continue; }
		note "nft -f: a set of $n addresses (timeout ${NFT_TIMEOUT}s)"
		t0=$(now)
		ip netns exec "$NS" timeout "$NFT_TIMEOUT" nft -f "$f" >"$TMP/nft.err" 2>&1
		rc=$?
		t1=$(now)
		if [ $rc = 0 ]; then
			echo "nft_${n}_s $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}")" >>"$RES"
			echo "nft_${n}_status ok: one transaction of $(( (n + 99999) / 100000 )) add-element statements" >>"$RES"
		elif [ $rc = 124 ]; then
			echo "nft_${n}_status timeout after ${NFT_TIMEOUT}s" >>"$RES"
		else
			echo "nft_${n}_status failed (exit $rc): $(tail -n 1 "$TMP/nft.err" | tr -d '\n')" >>"$RES"
		fi
		ip netns exec "$NS" nft flush ruleset 2>/dev/null
		rm -f "$f"
	done
else
	echo "nft_${NFT1}_status nft not installed" >>"$RES"
	echo "nft_${NFT2}_status nft not installed" >>"$RES"
fi
fi	# not --veth

# 3. veth throughput (the optional part): one listed source, sent by a bounded
# live-frames sender (.output/bench --veth-tx) out of bbs0 to its peer bbr0, both in
# the private namespace, and dropped there by: a drop-everything XDP program (the
# floor), bloomblock, xdp-filter (a hash map, if installed), or an nftables set at
# the netdev ingress hook (GRO on, so that the veth takes frames without XDP).
# Sending and receiving run in one syscall on one CPU: ns per packet is CPU per packet.
veth_part() {
	local n=$NFT1 pkts=$VETH_PACKETS src=203.0.113.7 list=$TMP/veth-list.txt set=$TMP/veth.nft
	local mac r row ns cpu=$(($(nproc) - 1))
	local -A samples=()
	local -a rows=(floor bloomblock)

	ip -n "$NS" link add bbs0 type veth peer name bbr0 &&
		ip -n "$NS" link set bbs0 up && ip -n "$NS" link set bbr0 up &&
		ip netns exec "$NS" ethtool -K bbr0 gro on >/dev/null 2>&1 ||
		{ echo "veth_status veth pair or GRO failed" >>"$RES"; return 1; }
	mac=$(ip -n "$NS" -j link show bbr0 | jq -r '.[0].address')
	{ head -n "$n" "$TMP/ip4.txt"; echo "$src"; } >"$list"
	command -v xdp-filter >/dev/null && rows+=(xdp-filter)
	if command -v nft >/dev/null && "$DRIVER" --gen-nft "$set" "$n"; then
		sed -i 's/^table ip /table netdev /; s/^add element ip /add element netdev /' "$set"
		cat >>"$set" <<-EOF
		add element netdev bbbench blocked { $src }
		add chain netdev bbbench in { type filter hook ingress device bbr0 priority 0; }
		add rule netdev bbbench in ip saddr @blocked drop
		EOF
		ip netns exec "$NS" timeout "$NFT_TIMEOUT" nft -f "$set" && rows+=(nft)
	fi
	note "veth: ${#rows[@]} rows x $VETH_ROUNDS rounds of $pkts packets (list: $((n + 1)) addresses)"
	for ((r = 0; r < VETH_ROUNDS; r++)); do
		for row in "${rows[@]}"; do
			case $row in
			floor) nsenter --net="/run/netns/$NS" "$DRIVER" --xdp-drop bbr0 ;;
			bloomblock) nsenter --net="/run/netns/$NS" "$BB" --pin-dir "$PIN" load "$list" \
					-i bbr0 >/dev/null 2>&1 ;;
			xdp-filter) nsenter --net="/run/netns/$NS" xdp-filter load bbr0 -m native -f ipv4 \
					>/dev/null 2>&1 &&
				    nsenter --net="/run/netns/$NS" xdp-filter ip "$src" -m src >/dev/null 2>&1 ;;
			nft) true ;;
			esac || { echo "veth_${row}_status setting up failed" >>"$RES"; continue; }
			# a tenth as many frames untimed first: the receiver's rings and pages
			nsenter --net="/run/netns/$NS" taskset -c "$cpu" "$DRIVER" --veth-tx bbs0 \
				"$mac" "$src" $((pkts / 10)) >/dev/null
			ns=$(nsenter --net="/run/netns/$NS" taskset -c "$cpu" "$DRIVER" --veth-tx bbs0 \
				"$mac" "$src" "$pkts") && samples[$row]+=" $ns"
			case $row in
			floor) ip -n "$NS" link set dev bbr0 xdp off ;;
			bloomblock) nsenter --net="/run/netns/$NS" "$BB" --pin-dir "$PIN" unload -i bbr0 \
					>/dev/null 2>&1 ;;
			xdp-filter) nsenter --net="/run/netns/$NS" xdp-filter unload bbr0 >/dev/null 2>&1 ;;
			esac
		done
	done
	for row in "${rows[@]}"; do
		echo "veth_${row}_ns${samples[$row]:-}" >>"$RES"
	done
	echo "veth_list $((n + 1))" >>"$RES"
	echo "veth_packets $pkts" >>"$RES"
	unload_all
	ip netns exec "$NS" nft flush ruleset 2>/dev/null
	ip -n "$NS" link del bbs0 2>/dev/null
	return 0
}
veth_part
fi

# 4. The daemon (bloomblock run --config), in the private namespace: its list is a feed
# of the whole IPv4 list served by tests/tools/feedsrv on the namespace's loopback.
# Measured: the start (fetch + load), the daemon's CPU over 10 idle seconds (before its
# first refresh), a refresh the server answers 304 (its time, and the generations it
# made: none), and GET /metrics, 200 times with curl.
daemon_part() {
	local srv=$OUT/tests/feedsrv www=$TMP/www conf=$TMP/daemon.conf log=$TMP/daemon.log
	local pid='' t0 t1 g0 g1 c0 c1 hz i tick
	[ -x "$srv" ] || { echo "daemon_status $srv is missing (make tests)" >>"$RES"; return 1; }
	command -v curl >/dev/null || { echo "daemon_status curl is not installed" >>"$RES"; return 1; }
	mkdir -p "$www" && ln -f "$TMP/ip4.txt" "$www/ip4.txt" 2>/dev/null || cp "$TMP/ip4.txt" "$www/"
	ip netns exec "$NS" timeout 900 "$srv" 127.0.0.1 8090 "$www" "$TMP/feedsrv.log" 900 \
		>/dev/null 2>&1 &
	printf '[instance]\ninterface = bbb0\nmode = drop\npin_dir = %s\nlist = %s\n' \
		"$PIN" "http://127.0.0.1:8090/ip4.txt" >"$conf"
	printf 'refresh = 20s\nmetrics = 127.0.0.1:9490\nfeed_timeout = 10m\n' >>"$conf"
	note "daemon: run --config with a feed of $LINES addresses"
	sleep 0.3
	t0=$(now)
	timeout 900 nsenter --net="/run/netns/$NS" "$BB" run --config "$conf" >"$log" 2>&1 &
	for ((i = 0; i < 6000; i++)); do
		grep -q '^<6>serving /sys' "$log" && break
		kill -0 $! 2>/dev/null || break
		sleep 0.1
	done
	t1=$(now)
	pid=$(pgrep -P $! | head -n 1)
	if [ -z "$pid" ] || ! grep -q '^<6>serving /sys' "$log"; then
		echo "daemon_status did not start: $(grep '^<3>' "$log" | tail -n 1)" >>"$RES"
		return 1
	fi
	echo "daemon_start_s $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}")" >>"$RES"
	echo "daemon_feed_entries $LINES" >>"$RES"
	g0=$(nsenter --net="/run/netns/$NS" "$BB" --pin-dir "$PIN" status -j | jq .filter.generation)
	# idle: utime + stime of every thread, in clock ticks, over 10 s
	hz=$(getconf CLK_TCK)
	tick() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
	c0=$(tick "$pid")
	sleep 10
	c1=$(tick "$pid")
	echo "daemon_idle_cpu_pct $(awk "BEGIN{printf \"%.3f\", ($c1 - $c0) * 100 / $hz / 10}")" >>"$RES"
	for ((i = 0; i < 300; i++)); do
		grep -Eq '^<6>refresh 1( |:)' "$log" && break
		sleep 0.1
	done
	g1=$(nsenter --net="/run/netns/$NS" "$BB" --pin-dir "$PIN" status -j | jq .filter.generation)
	echo "daemon_304_s $(sed -n 's/^<6>refresh 1 (\([0-9.]*\) s).*/\1/p' "$log")" >>"$RES"
	echo "daemon_304_generations $((g1 - g0))" >>"$RES"
	echo "daemon_304_answer $(grep -c '^ip4.txt ok 304' "$TMP/feedsrv.log")" >>"$RES"
	ip netns exec "$NS" curl -s -o "$TMP/metrics.txt" http://127.0.0.1:9490/metrics
	echo "daemon_metrics_bytes $(stat -c %s "$TMP/metrics.txt")" >>"$RES"
	echo "daemon_metrics_families $(grep -c '^# TYPE' "$TMP/metrics.txt")" >>"$RES"
	for ((i = 0; i < 200; i++)); do
		ip netns exec "$NS" curl -s -o /dev/null -w '%{time_total}\n' \
			http://127.0.0.1:9490/metrics
	done | sort -g | awk '{ v[NR] = $1 * 1000 } END {
		printf "daemon_metrics_gets %d\ndaemon_metrics_min_ms %.3f\n", NR, v[1]
		printf "daemon_metrics_med_ms %.3f\n", v[int((NR + 1) / 2)]
		printf "daemon_metrics_p99_ms %.3f\ndaemon_metrics_max_ms %.3f\n", v[int(NR * 0.99)], v[NR]
	}' >>"$RES"
	kill -TERM "$pid"
	for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	unload_all
	return 0
}
[ -z "$VETH_ONLY" ] && daemon_part

# 5. Everything else, and the tables.
mkdir -p "$RESULTS" || die "cannot create $RESULTS"
BENCH_COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo "+changes") \
BENCH_DATE=$(date -u +%Y-%m-%dT%H:%MZ) \
	"$DRIVER" "${DRIVER_ARGS[@]}" ${DAEMON_ONLY:+--only daemon} ${VETH_ONLY:+--only veth} \
	--out "$RESULTS" --lists "$TMP" \
	--load-results "$RES"
rc=$?
echo "bench: $(( $(date +%s) - START ))s in all" >&2
exit $rc
