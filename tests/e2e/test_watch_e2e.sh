#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End to end, bloomblock run noticing its files change (inotify, user/watch.c), with no
# SIGHUP and no refresh: a config directory laid out as Kubernetes mounts a ConfigMap
# (bloomblock.conf and list.txt symlinks through ..data, ..data a symlink to a
# timestamped directory, swapped by renaming a new link over it) on a daemon guarding a
# veth in a namespace. A new list swapped in is loaded by itself and the verdicts
# follow, with no gap for a source listed before and after; a new config is read again;
# a broken config and a corrupted filter file are refused with the filter kept and
# the failure in status and the metrics; a change of nothing loads nothing; watch = no
# watches nothing. TAP output; root.
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

e2e_begin

V4=198.51.100.1
CM=$BB_TMP/configmap	# the volume kubelet would mount at /etc/bloomblock
LOG=$BB_TMP/run.log
METRICS=127.0.0.1:9427	# in the dut namespace: no clash with anything outside it
mkdir -p "$CM"

# conf_text [EXTRA LINES]: the config, as the ConfigMap's bloomblock.conf
conf_text() {
	printf '[instance]\ninterface = bbd0\nhook = xdp\nmode = drop\nrefresh = off\n'
	printf 'list = %s/list.txt\npin_dir = %s\nmetrics = %s\n' "$CM" "$BB_PIN_DIR" "$METRICS"
	printf '%s\n' "$@"
}

# publish NAME=FILE...: a new version of the ConfigMap, as kubelet writes it: a new
# timestamped directory with every key, a ..data_tmp link to it renamed over ..data
# (one atomic step), the old directory removed. FILE is copied; the keys are links.
version=0
publish() {
	local old dir kv
	old=$(readlink "$CM/..data" 2>/dev/null)
	version=$((version + 1))
	dir=..2026_12_01_00_00_0${version}.$$
	mkdir "$CM/$dir"
	for kv in "$@"; do cp "${kv#*=}" "$CM/$dir/${kv%%=*}"; done
	ln -sfn "$dir" "$CM/..data_tmp"
	mv -T "$CM/..data_tmp" "$CM/..data"
	for kv in "$@"; do
		[ -L "$CM/${kv%%=*}" ] || ln -s "..data/${kv%%=*}" "$CM/${kv%%=*}"
	done
	[ -n "$old" ] && rm -rf "${CM:?}/$old"
	return 0
}

generation() { bb_status '.filter.generation'; }
loads() { grep -c '^<6>change: loaded' "$LOG"; }
# next_load: until the daemon has loaded once more than when `before=$(loads)` was taken
next_load() { wait_log '^<6>change: loaded' "$LOG" $((before + 1)); }
metric() { in_dut curl -fsS "http://$METRICS/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }

conf_text >"$BB_TMP/conf"
printf '198.51.100.2\n203.0.113.7\n' >"$BB_TMP/list"
publish bloomblock.conf="$BB_TMP/conf" list.txt="$BB_TMP/list"
check "the ConfigMap layout: bloomblock.conf is a link through ..data" \
	test "$(readlink "$CM/bloomblock.conf")" = ..data/bloomblock.conf

daemon_start "$CM/bloomblock.conf" "$LOG"
check_eq "run --config on the ConfigMap's file starts and serves" "$?" 0
expect_blocked "the listed source is dropped" 198.51.100.2 $V4
expect_pass "an unlisted one passes" 198.51.100.3 $V4
g1=$(generation)

# ---- a new list swapped in: loaded by itself, with no gap ----------------------------------
printf '198.51.100.3\n203.0.113.7\n' >"$BB_TMP/list"
netns_add_src 203.0.113.7
in_src timeout 20 ping -4 -n -q -c 400 -i 0.01 -W 1 -I 203.0.113.7 $V4 >"$BB_TMP/flood" 2>&1 &
flood=$!
sleep 0.5
before=$(loads)
publish bloomblock.conf="$BB_TMP/conf" list.txt="$BB_TMP/list"
next_load
check_eq "a list swapped in (..data renamed over): loaded, no signal, no refresh" "$?" 0
diag "$(grep -E 'change' "$LOG")"
check_match "... the daemon said the ConfigMap's files changed" \
	"^<6>change: $CM/bloomblock.conf changed: reading it again" "$(cat "$LOG")"
check_eq "... a new generation" "$(generation)" $((g1 + 1))
wait "$flood"
check_match "... a source listed before and after: not one of 400 pings through the swap answered" \
	'400 packets transmitted, 0 received' "$(cat "$BB_TMP/flood")"
expect_pass "... the source taken off the list passes" 198.51.100.2 $V4
expect_blocked "... the source put on it is dropped" 198.51.100.3 $V4
check_eq "... one load for one swap" "$(grep -c '^<6>change: loaded' "$LOG")" 1

# ---- a new config swapped in: read again --------------------------------------------------
conf_text 'mode = flag' >"$BB_TMP/conf"
before=$(loads)
publish bloomblock.conf="$BB_TMP/conf" list.txt="$BB_TMP/list"
next_load
check_eq "a config swapped in: loaded again" "$?" 0
check_eq "... its new mode is live" "$(bb_status '.filter.mode')" flag
expect_pass "... so a listed source is flagged and passes" 198.51.100.3 $V4

# ---- a file changed in place; a change of nothing loads nothing -----------------------------
printf '198.51.100.3\n' >"$CM/plain.txt"
sed "s|^list = .*|list = $CM/plain.txt|" "$BB_TMP/conf" >"$BB_TMP/conf.plain"
before=$(loads)
publish bloomblock.conf="$BB_TMP/conf.plain"
next_load
check_eq "a config naming a plain file beside the ConfigMap's: loaded" "$?" 0
before=$(loads)
printf '198.51.100.3\n198.51.100.2\n' >>"$CM/plain.txt"
next_load
check_eq "that list written in place (not swapped): loaded" "$?" 0
check_match "... as a changed list, the config not read again" \
	'^<6>change: a list changed: loading' "$(cat "$LOG")"
g2=$(generation)
before=$(loads)
: >"$CM/unrelated.txt"
mkdir "$CM/unrelated.d"
sleep 2
check_eq "an unrelated file and directory made beside them: no load" "$(loads)" "$before"
check_eq "... the same generation" "$(generation)" "$g2"

# ---- a glob: a new file that matches it is loaded --------------------------------------------
mkdir "$BB_TMP/lists.d"
printf '198.51.100.3\n' >"$BB_TMP/lists.d/a.txt"
sed "s|^list = .*|list = $BB_TMP/lists.d/*.txt|" "$BB_TMP/conf" >"$BB_TMP/conf.glob"
before=$(loads)
publish bloomblock.conf="$BB_TMP/conf.glob"
next_load
check_eq "a config whose list is a glob: loaded" "$?" 0
check_match "... 198.51.100.2 is not listed" '198\.51\.100\.2: not listed' "$(bb check 198.51.100.2)"
before=$(loads)
printf '198.51.100.2\n' >"$BB_TMP/lists.d/b.txt.part"
mv "$BB_TMP/lists.d/b.txt.part" "$BB_TMP/lists.d/b.txt"
next_load
check_eq "a new file matching the glob: loaded" "$?" 0
check_match "... what it lists is listed now" '198\.51\.100\.2: listed' "$(bb check 198.51.100.2)"
g2=$(generation)

# ---- a broken config: refused, the filter and config kept ----------------------------------
printf '[instance]\nbogus = 1\n' >"$BB_TMP/bad.conf"
publish bloomblock.conf="$BB_TMP/bad.conf" list.txt="$BB_TMP/list"
wait_log "change: $CM/bloomblock.conf is not good" "$LOG"
check_eq "a broken config swapped in: said, the running config stays" "$?" 0
check_eq "... the same generation" "$(generation)" "$g2"

# ---- a corrupted filter file: refused, the filter kept, the failure shown -------------------
conf_text >"$BB_TMP/conf.bbf"
sed -i "s|^list = .*|list = $CM/filter.bbf|" "$BB_TMP/conf.bbf"
run timeout "$BB_TIMEOUT" "$BB" build "$BB_TMP/list" -o "$BB_TMP/good.bbf"
check_rc "build the list into a filter file" 0
cp "$BB_TMP/good.bbf" "$BB_TMP/bad.bbf"
printf '\x55' | dd of="$BB_TMP/bad.bbf" bs=1 seek=3000 conv=notrunc 2>/dev/null
before=$(loads)
publish bloomblock.conf="$BB_TMP/conf.bbf" filter.bbf="$BB_TMP/good.bbf"
next_load
check_eq "a config naming a filter file, swapped in: loaded" "$?" 0
diag "$(tail -n 12 "$LOG")"
check_eq "... drop mode again" "$(bb_status '.filter.mode')" drop
g3=$(generation)
check_eq "metrics: the last reload succeeded" "$(metric bloomblock_last_reload_success)" 1
publish bloomblock.conf="$BB_TMP/conf.bbf" filter.bbf="$BB_TMP/bad.bbf"
wait_log 'change: load failed' "$LOG"
check_eq "a corrupted filter file swapped in: the load fails" "$?" 0
check_match "... as corrupt" 'corrupt' "$(cat "$LOG")"
check_eq "... the previous filter stays (the same generation)" "$(generation)" "$g3"
expect_blocked "... and drops what it listed" 198.51.100.3 $V4
check_match "status: the last reload failed, the filter before stays" \
	'^reloads +the last at .*\(change\): FAILED, the filter before stays' "$(bb status)"
check_eq "status -j: reloads.ok is false" "$(bb_status '.reloads.ok')" false
check_eq "metrics: bloomblock_last_reload_success 0" "$(metric bloomblock_last_reload_success)" 0
check_eq "metrics: one failed reload" \
	"$(metric 'bloomblock_reloads_total{result="failed"}')" 1
before=$(loads)
publish bloomblock.conf="$BB_TMP/conf.bbf" filter.bbf="$BB_TMP/good.bbf"
next_load
check_eq "the good file again: loaded" "$?" 0
check_eq "... metrics: the last reload succeeded" "$(metric bloomblock_last_reload_success)" 1
kill -TERM "$dpid"
wait "$daemon"
check_eq "SIGTERM: exit 0" "$?" 0

# ---- watch = no ----------------------------------------------------------------------------
conf_text 'watch = no' >"$BB_TMP/conf"
printf '198.51.100.2\n' >"$BB_TMP/list"
publish bloomblock.conf="$BB_TMP/conf" list.txt="$BB_TMP/list"
daemon_start "$CM/bloomblock.conf" "$LOG"
check_eq "watch = no: starts" "$?" 0
g4=$(generation)
printf '198.51.100.3\n' >"$BB_TMP/list"
publish bloomblock.conf="$BB_TMP/conf" list.txt="$BB_TMP/list"
sleep 2
check_eq "... a list swapped in is not loaded" "$(generation)" "$g4"
kill -HUP "$dpid"
wait_log '^<6>SIGHUP: loaded' "$LOG"
check_eq "... until SIGHUP" "$(generation)" $((g4 + 1))
kill -TERM "$dpid"
wait "$daemon"

tap_done
