#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End to end, bloomblock run --config: an INI file checked (--check-config: file, line
# and key of every problem; and what run will find on this host: each list's files,
# each feed's URL, each interface, every problem named; the example config good once its
# files are there), a run that cannot start or whose first load fails leaving nothing
# it made, loaded at start, again on SIGHUP (a bad config then
# keeps the running one) and on refresh when its lists changed (not when they did
# not), SIGTERM leaving the filter attached or detaching (on_exit); /metrics on
# 127.0.0.1:9420 of the daemon's namespace unless the config says where or off, and a
# default port already taken a warning, not a failure. TAP output; root.
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

e2e_begin

V4=198.51.100.1
LIST=$BB_TMP/run.txt
CONF=$BB_TMP/bloomblock.conf
printf '198.51.100.2\n' >"$LIST"

# write_conf [EXTRA LINES]: the test's config, with lines added to [instance] (from line 8);
# watch = no last: here loads come from SIGHUP and refresh alone (test_watch_e2e.sh watches)
write_conf() {
	{
		printf '# bloomblock run --config, e2e\n[instance]\ninterface = bbd0\nhook = xdp\n'
		printf 'mode = drop\nlist = %s\npin_dir = %s\n' "$LIST" "$BB_PIN_DIR"
		printf '%s\n' "$@"
		printf 'watch = no\n'
	} >"$CONF"
}

start_daemon() { daemon_start "$CONF" "$BB_TMP/run.log"; }	# lib.sh: daemon, dpid
generation() { bb_status '.filter.generation'; }

# check_config CONF: run --config CONF --check-config in the dut namespace (bbd0's)
check_config() {
	run timeout -k 10 "$BB_TIMEOUT" nsenter --net="/run/netns/$NS_DUT" "$BB" run --config "$1" \
		--check-config
}

# ---- --check-config ------------------------------------------------------------------------
write_conf 'fp = 0.001' 'events = 100' 'no_guard = no' 'refresh = 30m' 'metrics = off'
check_config "$CONF"
check_rc "run --check-config on a good config exits 0" 0
check_match "... saying it is good" "$CONF: good: 1 list" "$err"
bad_conf() {	# bad_conf NAME LINE KEY PATTERN LINES...: a broken config, its message
	local name=$1 line=$2 key=$3 pat=$4
	shift 4
	write_conf "$@"
	run "$BB" run --config "$CONF" --check-config
	check_rc "--check-config, $name: exit 2" 2
	check_match "... names file, line and key: $CONF:$line: $key" \
		"$(printf '%s' "$CONF:$line: $key: $pat" | sed 's/[.[\*^$()+?{|]/\\&/g; s/XX/.*/g')" "$err"
}
bad_conf "an unknown key" 8 bogus 'no such keyXX' 'bogus = 1'
bad_conf "a bad value of load's" 8 fp "'2': load refuses this valueXX" 'fp = 2'
bad_conf "a bad mode" 8 mode "'nope'XX" 'mode = nope'
bad_conf "a URL with a space" 8 list "'https://lists.example/a b' is not a URL a feed can have" \
	'list = https://lists.example/a b'
bad_conf "a bad feed_max_shrink" 8 feed_max_shrink "a fraction (0.5) or a percentage (50%) XX'2'" \
	'feed_max_shrink = 2'
bad_conf "a bad feed_max_size" 8 feed_max_size "a size in bytes XX'lots'" 'feed_max_size = lots'
bad_conf "an unknown feed_ key" 8 feed_bogus "no such key (feed_dirXX" 'feed_bogus = 1'
bad_conf "a bad refresh" 8 refresh "a duration (90s, 30m, 1h, 1d) or off, not 'soon'" 'refresh = soon'
bad_conf "a flag's value" 8 no_guard "yes or no, not 'maybe'" 'no_guard = maybe'
write_conf 'bogus = 1' 'fp = 2' 'mode = nope'
run "$BB" run --config "$CONF" --check-config
check_rc "--check-config, three bad keys: exit 2" 2
check_match "... the first named" "$CONF:8: bogus: no such key" "$err"
check_match "... the second" "$CONF:9: fp: '2': load refuses this value" "$err"
check_match "... and the third" "$CONF:10: mode: 'nope'" "$err"
write_conf '[other]' 'x = 1'
run "$BB" run --config "$CONF" --check-config
check_rc "--check-config, a key in another section: exit 2" 2
check_match "... named" "$CONF:9: x: in section \\[other\\]" "$err"
printf '[instance]\nthis is not a key\n' >"$CONF"
run "$BB" run --config "$CONF" --check-config
check_rc "--check-config, a line that is no key: exit 2" 2
check_match "... its line" "$CONF:2: not a key = value line" "$err"
run "$BB" run --config "$BB_TMP/missing.conf" --check-config
check_rc "--check-config, no such file: exit 2" 2

# ---- --check-config checks what run will do: files, globs, feeds' URLs, interfaces ---------
mkdir -p "$BB_TMP/empty.d" "$BB_TMP/a-dir"
# broken NAME ERE LINE...: a config with LINE added names its problem (ERE), exit 1
broken() {
	local name=$1 pat=$2
	shift 2
	write_conf "$@"
	check_config "$CONF"
	check_rc "--check-config, $name: exit 1" 1
	check_match "... named with its file and line: $name" "^(Error: )?$CONF:8: $pat\$" "$err"
	check_match "... and run would fail" "$CONF: 1 problem \\(above\\): run would fail" "$err"
}
broken "a missing list" "list $BB_TMP/nope\\.txt: No such file or directory" "list = $BB_TMP/nope.txt"
broken "a glob matching nothing" "list $BB_TMP/empty\\.d/\\*\\.txt: no file matches it" \
	"list = $BB_TMP/empty.d/*.txt"
broken "a directory for a list" "list $BB_TMP/a-dir: a directory, not a list file" \
	"list = $BB_TMP/a-dir"
broken "a feed URL that does not parse" \
	"list http://lists\\.example:99999/hosts\\.txt: not a URL a feed can have: .*[Pp]ort.*" \
	"list = http://lists.example:99999/hosts.txt"
broken "a missing allowlist" "allow $BB_TMP/no-allow\\.txt: No such file or directory" \
	"allow = $BB_TMP/no-allow.txt"
broken "a missing interface" "interface bbx9: no such interface in this network namespace" \
	"interface = bbx9"
# a file its reader may not read: as a user without the right (the daemon keeps no
# CAP_DAC_OVERRIDE), from a directory that user may enter
chmod 711 "$BB_TMP"
mkdir -m 755 "$BB_TMP/pub"
printf '198.51.100.2\n' >"$BB_TMP/pub/secret.txt"
chmod 000 "$BB_TMP/pub/secret.txt"
printf '[instance]\nlist = %s\nmetrics = off\n' "$BB_TMP/pub/secret.txt" >"$BB_TMP/pub/ro.conf"
chmod 644 "$BB_TMP/pub/ro.conf"
run setpriv --reuid=65534 --regid=65534 --clear-groups "$BB" run --config "$BB_TMP/pub/ro.conf" \
	--check-config
check_rc "--check-config, an unreadable list (as nobody): exit 1" 1
check_match "... named" "ro\\.conf:2: list $BB_TMP/pub/secret\\.txt: Permission denied" "$err"
printf '198.51.100.2\n' >"$BB_TMP/one.txt"
write_conf "list = $BB_TMP/nope.txt" "list = $BB_TMP/empty.d/*.txt" "list = http://:80/x" \
	"allow = $BB_TMP/no-allow.txt" "interface = bbx9" "list = $BB_TMP/one.txt"
check_config "$CONF"
check_rc "--check-config, five problems at once: exit 1" 1
for pat in "8: list $BB_TMP/nope\\.txt" "9: list $BB_TMP/empty\\.d" "10: list http://:80/x: not a URL" \
	"11: allow $BB_TMP/no-allow\\.txt" "12: interface bbx9"; do
	check_match "... each named: $CONF:${pat%%:*}" "$CONF:$pat" "$err"
done
check_match "... counted" "$CONF: 5 problems \\(above\\): run would fail" "$err"
check_no_match "... the good list is no problem" "one\\.txt" "$err"

# the example config (docs/): it says exactly what is missing, and is good once it is there
EX=$BB_ROOT/docs/bloomblock.conf.example
check_config "$EX"
check_rc "--check-config on the example config, its files missing: exit 1" 1
check_match "... its lists' glob" "example:11: list /etc/bloomblock/lists/\\*\\.txt: no file matches it" "$err"
check_match "... its allowlist" "example:13: allow /etc/bloomblock/allow\\.txt: No such file or directory" "$err"
check_match "... its interface" "example:5: interface eth0: no such interface" "$err"
check_match "... and no more" "example: 3 problems \\(above\\)" "$err"
# its files where it names them (its paths under $BB_TMP), eth0 in the namespace
mkdir -p "$BB_TMP/etc/bloomblock/lists"
printf '198.51.100.2\n' >"$BB_TMP/etc/bloomblock/lists/local.txt"
printf '198.51.100.3\n' >"$BB_TMP/etc/bloomblock/allow.txt"
sed "s|/etc/bloomblock/|$BB_TMP/etc/bloomblock/|" "$EX" >"$BB_TMP/example.conf"
ip -n "$NS_DUT" link add eth0 type veth peer name bbeth0 || bail "no eth0 in the dut namespace"
check_config "$BB_TMP/example.conf"
check_rc "--check-config on the example config, its files there: exit 0" 0
check_match "... good" 'example\.conf: good: 2 lists and allowlists' "$err"
ip -n "$NS_DUT" link del eth0

# ---- a run that cannot start leaves nothing it made ------------------------------------------
write_conf "list = $BB_TMP/nope.txt"
run timeout -k 10 60 nsenter --net="/run/netns/$NS_DUT" "$BB" run --config "$CONF"
check_rc "run with a missing list: exit 1, before anything" 1
check_match "... naming it" "$CONF:8: list $BB_TMP/nope\\.txt: No such file" "$err"
check "... no state directory made" test ! -e "$BB_STATE_DIR"
check "... no pin dir" test ! -e "$BB_PIN_DIR"
printf '<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head></html>\n' \
	>"$BB_TMP/page.txt"
write_conf "list = $BB_TMP/page.txt"
run timeout -k 10 60 nsenter --net="/run/netns/$NS_DUT" "$BB" run --config "$CONF"
check_rc "run whose first load fails (an HTML page): exit 1" 1
check_match "... the load said why" 'page\.txt: it is an HTML page, not a list' "$err"
check "... no state directory left (guard.list, lock, run.json)" test ! -e "$BB_STATE_DIR"
check "... no pin dir left" test ! -e "$BB_PIN_DIR"
mkdir -p "$BB_TMP/state"
echo precious >"$BB_TMP/state/keepme.txt"
write_conf "list = $BB_TMP/page.txt" "state_dir = $BB_TMP/state"
run timeout -k 10 60 nsenter --net="/run/netns/$NS_DUT" "$BB" run --config "$CONF"
check_rc "the same with a state_dir of the user's: exit 1" 1
check_eq "... only the user's file is left in it" "$(ls -A "$BB_TMP/state")" keepme.txt
check "... no pin dir left" test ! -e "$BB_PIN_DIR"

# ---- run --config: loaded at start --------------------------------------------------------
write_conf
start_daemon
check_eq "run --config loads its lists and serves" "$?" 0
diag "$(cat "$BB_TMP/run.log")"
check_match "... the load's messages with syslog priorities" '^<6>bbd0: attached' "$(cat "$BB_TMP/run.log")"
expect_blocked "the config's listed source is dropped" 198.51.100.2 $V4
expect_pass "an unlisted one passes" 198.51.100.3 $V4
g1=$(generation)

# ---- /metrics: localhost by default ------------------------------------------------------------
check_match "/metrics: no metrics key: served on 127.0.0.1:9420" \
	'^<6>serving /metrics on http://127\.0\.0\.1:9420/metrics$' "$(cat "$BB_TMP/run.log")"
check_eq "... listening there and on no other address" \
	"$(in_dut ss -Hltn 'sport = :9420' | awk '{print $4}')" "127.0.0.1:9420"
run in_dut curl -sS --max-time 5 http://127.0.0.1:9420/metrics
check_match "... GET /metrics answers with the counters, by interface and hook" \
	'^bloomblock_dropped_total\{interface="bbd0",hook="xdp"\} [0-9]+$' "$out"
run in_dut curl -sS --max-time 5 http://$V4:9420/metrics
check_rc "... and not on bbd0's address" nonzero

# ---- SIGHUP: the config and lists read again ------------------------------------------------
printf '198.51.100.2\n198.51.100.3\n' >"$LIST"
kill -HUP "$dpid"
wait_log '^<6>SIGHUP: loaded'
check_eq "SIGHUP: loaded again" "$?" 0
check_eq "... a new generation" "$(generation)" "$((g1 + 1))"
expect_blocked "... the source added to the list is dropped now" 198.51.100.3 $V4
printf '[instance]\nbogus = 1\n' >"$CONF"
kill -HUP "$dpid"
wait_log 'SIGHUP: .* is not good'
check_eq "SIGHUP with a broken config: said, the running config stays" "$?" 0
check_eq "... no new generation" "$(generation)" "$((g1 + 1))"
expect_blocked "... and what was listed is still dropped" 198.51.100.3 $V4
kill -TERM "$daemon"
wait "$daemon"
check_eq "SIGTERM: exit 0" "$?" 0
expect_blocked "on_exit keep (the default): the filter stays attached" 198.51.100.2 $V4

# ---- refresh: a rebuild only when a list changed --------------------------------------------
write_conf 'refresh = 1s' 'metrics = off'
start_daemon
check_eq "run --config with refresh = 1s starts" "$?" 0
check_eq "metrics = off: nothing listens on 9420" "$(in_dut ss -Hltn 'sport = :9420')" ""
check_no_match "... nor says it serves /metrics" 'serving /metrics' "$(cat "$BB_TMP/run.log")"
g=$(generation)
sleep 2.5
check_eq "refresh, the lists unchanged: no rebuild (the same generation)" "$(generation)" "$g"
printf '198.51.100.2\n' >"$LIST"
wait_log '^<6>refresh: loaded'
check_eq "refresh, a list changed: loaded again" "$?" 0
check_eq "... a new generation" "$(generation)" "$((g + 1))"
expect_pass "... what left the list passes" 198.51.100.3 $V4
kill -TERM "$daemon"
wait "$daemon"

# ---- /metrics: the default port taken (another instance's daemon): a warning -----------------
# (SO_REUSEADDR: the scrape above may have left the port in TIME_WAIT)
ip netns exec "$NS_DUT" timeout 60 python3 -c 'import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 9420)); s.listen(); time.sleep(60)' &
holder=$!
wait_listen_in "$NS_DUT" t 9420 || bail "could not take 127.0.0.1:9420 in the dut namespace"
write_conf
start_daemon
check_eq "/metrics: the default port taken: run starts all the same" "$?" 0
check_match "... warning that it goes on without /metrics" \
	'^<4>/metrics: cannot serve on 127\.0\.0\.1:9420, the default: .*; going on without' \
	"$(cat "$BB_TMP/run.log")"
expect_blocked "... and the filter is served: the listed source is dropped" 198.51.100.2 $V4
kill -TERM "$daemon"
wait "$daemon"
check_eq "... SIGTERM: exit 0" "$?" 0
write_conf 'metrics = 127.0.0.1:9420'
run timeout -k 10 60 nsenter --net="/run/netns/$NS_DUT" "$BB" run --config "$CONF"
check_rc "/metrics: the port the config names taken: run fails" 1
check_match "... saying so" '^<3>--metrics 127\.0\.0\.1:9420: cannot serve there' "$err"
stop_pid "$holder"

# ---- systemd: sd_notify (READY, STATUS, RELOADING, WATCHDOG, STOPPING) and the unit ---------
cat >"$BB_TMP/notify.py" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(0.2)
end = time.time() + float(sys.argv[3])
with open(sys.argv[2], "w") as out:
    while time.time() < end:
        try:
            out.write(s.recv(4096).decode() + "\n---\n")
            out.flush()
        except socket.timeout:
            pass
EOF
# the listener outlives the daemon's run (it is stopped after it), and is bound before the
# daemon starts: a loaded machine starts python slowly
timeout 90 python3 "$BB_TMP/notify.py" "$BB_TMP/notify.sock" "$BB_TMP/notify.txt" 80 &
listener=$!
for _ in $(seq 100); do [ -S "$BB_TMP/notify.sock" ] && break; sleep 0.1; done
[ -S "$BB_TMP/notify.sock" ] || bail "the notify listener did not bind its socket in 10 s"
write_conf
: >"$BB_TMP/run.log"
# WATCHDOG_PID must be the daemon's own: the shell's pid, which exec hands on
timeout -k 10 60 nsenter --net="/run/netns/$NS_DUT" env NOTIFY_SOCKET="$BB_TMP/notify.sock" \
	WATCHDOG_USEC=400000 sh -c 'WATCHDOG_PID=$$ exec "$0" run --config "$1"' "$BB" "$CONF" \
	>"$BB_TMP/run.log" 2>&1 &
daemon=$!
wait_log '^<6>serving /sys'
check_eq "run under systemd's notify socket starts" "$?" 0
dpid=$(pgrep -P "$daemon" | head -n 1)
sleep 1.5
kill -HUP "$dpid"
wait_log '^<6>SIGHUP: loaded'
sleep 0.3
kill -TERM "$dpid"
wait "$daemon"
check_eq "... and stops with exit 0" "$?" 0
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null
notes=$(cat "$BB_TMP/notify.txt" 2>/dev/null)
check_match "sd_notify: READY=1 with a STATUS once serving" "STATUS=serving $BB_PIN_DIR" "$notes"
check_ge "... WATCHDOG=1 pings at half WATCHDOG_USEC (0.4 s): several in 1.5 s" \
	"$(grep -c '^WATCHDOG=1$' <<<"$notes")" 3
check_match "... RELOADING=1 on SIGHUP" '^RELOADING=1$' "$notes"
check_match "... STOPPING=1 on SIGTERM" '^STOPPING=1$' "$notes"
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$BB_TMP/units"
	sed "s|@SBINDIR@|$(dirname "$BB")|" "$BB_ROOT/scripts/bloomblock@.service" \
		>"$BB_TMP/units/bloomblock@test.service"
	run systemd-analyze verify --man=no "$BB_TMP/units/bloomblock@test.service"
	check_rc "systemd-analyze verify passes on the unit (scripts/bloomblock@.service)" 0
	diag "$err"
else
	tap_skip "systemd-analyze verify on the unit" "systemd-analyze not installed"
fi
check_match "the unit is Type=notify with a watchdog and SIGHUP for reload" \
	'Type=notify.*ExecReload=/bin/kill -HUP \$MAINPID.*WatchdogSec=[0-9]+' \
	"$(tr '\n' ' ' <"$BB_ROOT/scripts/bloomblock@.service")"

# ---- a daemon's state_dir, found by commands given only the pin dir (issue 27, item 9) ------
write_conf "state_dir = $BB_TMP/dstate"
start_daemon
check_eq "run --config with state_dir starts" "$?" 0
run bb status -j
check_rc "status -j given only the pin dir exits 0" 0
check_eq "... and reads the daemon's state_dir: what it loaded" \
	"$(jq -r '.loaded.lists[0] // empty' <<<"$out")" "$LIST"
check_eq "... and where that state lives" "$(jq -r '.allowlist.state_dir // empty' <<<"$out")" \
	"$BB_TMP/dstate"
kill -TERM "$daemon"
wait "$daemon"
check_eq "SIGTERM: exit 0" "$?" 0
run bb unload --all
check_rc "unload --all given only the pin dir exits 0" 0
check "... and removes the state_dir it made" test ! -e "$BB_TMP/dstate"

# ---- on_exit = detach ------------------------------------------------------------------------
write_conf 'on_exit = detach'
start_daemon
check_eq "run --config with on_exit = detach starts" "$?" 0
kill -TERM "$daemon"
wait "$daemon"
check_eq "SIGTERM: exit 0" "$?" 0
check_match "... it detached" '^<6>on_exit = detach: detached' "$(cat "$BB_TMP/run.log")"
check "... the pin dir is gone" test ! -e "$BB_PIN_DIR"
expect_pass "... and the listed source passes" 198.51.100.2 $V4

tap_done
