#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Faults survived: `kill -9` of load, add, del, allow and the daemon, at random moments
# and at the fault points where a crash would hurt most (BB_FAULT=POINT[:N], fault.h):
# during the map fill, between the filter's and the allowlist's writes, just before
# and just after the swap, between a live change's bits and its index, before the
# counting shadow. After every kill:
#
#   - the XDP program is still attached to bbd0, the very program the pin dir holds;
#   - it says what the old filter says, or (a kill after the swap) what the new one
#     says, on every probe: addresses and DNS names of either list only, of both, of
#     neither, one the new load allows; never a mix, never a miss of a listed item;
#   - the next command succeeds, leaves the filter it was asked for, and the pin dir
#     and state directory hold what they held before: nothing stale.
#
# Then the number of BPF maps is what it was after the first loads: no killed command
# leaked a filter map. Two loads at once, and a load racing an add, are serialised by
# the state directory's lock: one consistent filter, its index in step. Pins deleted
# by hand (stats, filters, events, url_xdp, prog_xdp) are said by status and restored
# by the next load, the tail-call table refilled; a first load killed leaves a
# half-made instance that status names and load finishes or unload removes; the .tmp
# files of a writer killed midway are removed by the next command; a
# read-only or full state directory fails with the file and the reason, the filter as
# it was; an interface deleted while attached is said by status and unloaded.
#
# The verdicts are asked of the pinned program with BPF_PROG_TEST_RUN (bbverdict), the
# program the interface runs, so a trial costs milliseconds and sends nothing.
# BB_FAULT_TRIALS sets the trials of each kind (default 50, the least it may be).
#
# TAP output; root needed (else skipped; a skip fails under CI=true).
# bb-test: serial: counts BPF maps and programs no one holds, machine-wide (bpf_census)
# (tests/run.sh runs it alone: every map on the machine named as bloomblock's, and the maps
# and programs no one holds; another suite's loads and exits beside it change both)
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

for c in bpftool jq awk; do
	command -v "$c" >/dev/null || skip_all "needs $c (scripts/install-deps.sh installs it)"
done
VERDICT=${BB_VERDICT:-$BB_ROOT/${BB_OUTPUT:-.output}/tests/bbverdict}
[ -x "$VERDICT" ] || skip_all "build the test tools first (make tests)"

TRIALS=${BB_FAULT_TRIALS:-50}
SEED=7

e2e_begin

# ---- the lists ------------------------------------------------------------------------
# COMMON is in both lists, A_* in list A only, B_* in list B only, ALLOWED in both but
# allowed by the allowlist B loads with, FREE in neither. A bulk of the same 20,000
# entries in both makes the map fill last long enough for a random kill to land in it.
LIST_A=$BB_TMP/a.txt LIST_B=$BB_TMP/b.txt ALLOW_B=$BB_TMP/allow-b.txt BULK=$BB_TMP/bulk.txt
awk 'BEGIN { for (i = 0; i < 10000; i++) {
	printf "n%d.bulk.test\n", i
	printf "2001:db8:b%x:%x::/64\n", int(i / 4096), i % 4096 } }' >"$BULK"
{
	printf '203.0.113.10\n203.0.113.20\n2001:db8:aa::20\n203.0.113.40\n'
	printf 'common.example\na-only.example\nallowed.example\n'
	cat "$BULK"
} >"$LIST_A"
{
	printf '203.0.113.10\n203.0.113.30\n2001:db8:aa::30\n203.0.113.40\n'
	printf 'common.example\nb-only.example\nallowed.example\n'
	cat "$BULK"
} >"$LIST_B"
printf '203.0.113.40\nallowed.example\n' >"$ALLOW_B"

PROBES=(203.0.113.10 203.0.113.20 203.0.113.30 203.0.113.40 203.0.113.50
	2001:db8:aa::20 2001:db8:aa::30 2001:db8:aa::50 dns:common.example dns:a-only.example
	dns:b-only.example dns:allowed.example dns:free.example dns:n77.bulk.test)
WANT_A='drop drop pass drop pass drop pass pass drop drop pass drop pass drop'
WANT_B='drop pass drop pass pass pass drop pass drop pass drop pass pass drop'
LIVE=203.0.113.60	# what add, del and allow change live (also live.example)
set_at() {	# set_at WORDS I WORD: WORDS with its Ith (from 0) replaced
	awk -v i="$2" -v w="$3" '{ $(i + 1) = w; print }' <<<"$1"
}

# the program the interface runs (the pin dir's, or the one bbd0 runs), on every probe
verdicts() {
	local prog=$BB_PIN_DIR/prog_xdp
	[ -e "$prog" ] || prog=id:$(attached_id)
	"$VERDICT" "$prog" "${PROBES[@]}" "$@" | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $2 }'
}
load_a() { bb load "$LIST_A" -i bbd0 --seed "$SEED"; }
load_b() { bb load "$LIST_B" -i bbd0 --seed "$SEED" --allow "$ALLOW_B"; }
# "${BB_RAW[@]}" ARGS...: bloomblock itself in the dut namespace, a simple command
# (not a function: a function run with & is a subshell, which kill -9 would kill and
# leave bloomblock running); nsenter execs bloomblock, so $! is bloomblock's pid
BB_RAW=(nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$BB_PIN_DIR")
attached_id() { ip -n "$NS_DUT" -j link show bbd0 | jq -r '.[0].xdp.prog.id // .[0].xdp.progs[0].id // empty'; }
pinned_id() { bpftool prog show pinned "$BB_PIN_DIR/prog_xdp" -j 2>/dev/null | jq -r '.id // empty'; }
pins() { ls "$BB_PIN_DIR" | tr '\n' ' '; }
state_files() { ls "$BB_STATE_DIR" | tr '\n' ' '; }
# the instance's BPF objects and those no one holds (lib.sh: bpf_census), settled: a
# killed process's maps go a moment after it
# census [PIN_DIR]: of this test's instance, or of PIN_DIR's
census() { bpf_census "${1:-$BB_PIN_DIR}" "netns:/run/netns/$NS_DUT" "netns:/run/netns/$NS_SRC"; }
# settled_leaks BEFORE [PIN_DIR]: leaks (lib.sh) since BEFORE once they stop changing
settled_leaks() {
	local left _ t_end=$((SECONDS + 40))	# freed by a kernel worker: seen over 10 s
	while :; do
		left=$(leaks "$1" "$(census "${2:-}")")
		read -r d_maps d_progs _ u_maps u_progs <<<"$left"
		[ "$d_maps $d_progs $u_maps $u_progs" = "0 0 0 0" ] || [ "$SECONDS" -ge "$t_end" ] && break
		sleep 0.5
	done
	echo "$left"
}
# ms: a random delay of 0 .. $1 ms, as sleep reads it
rand_delay() { awk -v r="$RANDOM" -v max="$1" 'BEGIN { printf "%.3f", r / 32768 * max / 1000 }'; }

# ---- the two filters, as a clean load leaves them ---------------------------------------
run load_a
check_rc "list A loads, attached at XDP" 0
check_eq "list A: its verdicts on every probe (seed $SEED: no probe is a false positive)" "$(verdicts)" "$WANT_A"
run load_b
check_rc "list B loads with its allowlist" 0
check_eq "list B: its verdicts on every probe" "$(verdicts)" "$WANT_B"
run bb add "$LIVE" live.example
check_rc "add $LIVE live.example" 0
check_eq "added: dropped" "$(verdicts "$LIVE" dns:live.example)" "$WANT_B drop drop"
run bb del "$LIVE" live.example
check_rc "del $LIVE live.example" 0
check_eq "deleted: passed again" "$(verdicts "$LIVE" dns:live.example)" "$WANT_B pass pass"
PINS=$(pins) PROG=$(pinned_id)
check_ne "the pinned XDP program has an id" "$PROG" ""
check_eq "bbd0 runs the pinned program" "$(attached_id)" "$PROG"
CENSUS0=$(census)

# time_ms CMD...: how long CMD takes, in ms: the random kills' range for its kind
time_ms() {
	local t0
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	echo $((($(date +%s%N) - t0) / 1000000))
}
LOAD_MS=$(( ($(time_ms load_a) + $(time_ms load_b)) / 2 ))
RANGE_MS=$LOAD_MS
echo "# a load takes about $LOAD_MS ms here"

# after_kill KIND OLD NEW [ITEM...]: the verdicts (on the probes and ITEMs) a killed
# command left are OLD's or NEW's, or want_mid's (a state a command of several items
# may stop in), and the program is still attached. Sets outcome (old, new, mid, bad)
# and counts it in old_n, new_n, mid_n or bad.
bad=0 bad_first='' want_mid='' mid_n=0
after_kill() {
	local kind=$1 want_old=$2 want_new=$3 got id
	shift 3
	got=$(verdicts "$@")
	id=$(attached_id)
	outcome=bad
	if [ "$id" != "$PROG" ] || [ "$(pinned_id)" != "$PROG" ]; then
		bad=$((bad + 1))
		bad_first=${bad_first:-"$kind: attached program $id, pinned $(pinned_id), not $PROG"}
	elif [ "$got" = "$want_old" ]; then
		old_n=$((old_n + 1)) outcome=old
	elif [ "$got" = "$want_new" ]; then
		new_n=$((new_n + 1)) outcome=new
	elif [ -n "$want_mid" ] && [ "$got" = "$want_mid" ]; then
		mid_n=$((mid_n + 1)) outcome=mid
	else
		bad=$((bad + 1))
		[ -n "$bad_first" ] || sleep 0.5	# what it was once more, a moment later
		bad_first=${bad_first:-"$kind: verdicts '$got', neither '$want_old' nor '$want_new'; a moment later '$(verdicts "$@")'; allow --list: $(bb allow --list 2>&1 | tr '\n' ' ')"}
	fi
}
# recovered KIND WANT CMD...: CMD succeeds; then the verdicts are WANT and nothing is stale
recovered() {
	local kind=$1 want=$2 o
	shift 2
	if ! o=$("$@" 2>&1); then
		bad=$((bad + 1)); bad_first=${bad_first:-"$kind: the next command failed: $o"}
	elif [ "$(verdicts)" != "$want" ]; then
		bad=$((bad + 1)); bad_first=${bad_first:-"$kind: after the next command: $(verdicts)"}
	elif [ "$(pins)" != "$PINS" ] || [ "$(state_files)" != "$STATE" ]; then
		bad=$((bad + 1))
		bad_first=${bad_first:-"$kind: pins '$(pins)', state '$(state_files)' after the next command"}
	fi
}
# expect_outcome POINT WANT: a kill at a fault point leaves the one state it must
expect_outcome() {
	[ "$outcome" = bad ] || [ "$outcome" = "$2" ] && return 0
	bad=$((bad + 1))
	bad_first=${bad_first:-"killed at $1: the $outcome state, not the $2 one"}
}
# kill_run POINT CMD...: CMD (a simple command that execs bloomblock: what is killed is
# its pid) in the background, stdin from $KILL_STDIN, killed at the fault point POINT
# or ("random") after a random part of RANGE_MS; counts in killed whether it was. A
# bloomblock still running after the kill (the kill missed it) is a bad trial.
KILL_STDIN=/dev/null
kill_run() {
	local point=$1 pid
	shift
	if [ "$point" = random ]; then
		"$@" <"$KILL_STDIN" >/dev/null 2>&1 &
		pid=$!
		sleep "$(rand_delay "$RANGE_MS")"
		kill -9 "$pid" 2>/dev/null
	else
		BB_FAULT=$point "$@" <"$KILL_STDIN" >/dev/null 2>&1 &
		pid=$!
	fi
	{ wait "$pid"; } 2>/dev/null
	[ $? = 137 ] && killed=$((killed + 1))
	if pgrep -f -- "--pin-dir $BB_PIN_DIR" >/dev/null; then
		bad=$((bad + 1))
		bad_first=${bad_first:-"$point: a bloomblock still ran after its kill: $(pgrep -af -- "--pin-dir $BB_PIN_DIR")"}
		pkill -9 -f -- "--pin-dir $BB_PIN_DIR"
	fi
	return 0
}
kind_begin() { bad=0 bad_first='' killed=0 old_n=0 new_n=0 mid_n=0; }
# report KIND POINTS: the kind's trials as one test
report() {
	local kind=$1
	if [ "$bad" = 0 ]; then
		tap_ok "kill -9 of $kind, $2 trials ($killed killed: $old_n left the old state, $new_n the new, $mid_n one between; $3): the filter attached and right after each, the next command clean"
	else
		tap_not_ok "kill -9 of $kind: $bad of $2 trials went wrong"
		diag "$bad_first"
	fi
	echo "# $kind: trials=$2 killed=$killed old=$old_n new=$new_n between=$mid_n bad=$bad"
}
# point_for I POINT...: every other trial at a fault point, in turn; the rest at random
point_for() {
	local i=$1
	shift
	if [ $((i % 2)) = 0 ]; then
		local -a points=("$@")
		echo "${points[$((i / 2 % ${#points[@]}))]}"
	else
		echo random
	fi
}

# ---- kill -9 of load: A -> B and back, so the new filter is always the other one ---------
STATE=$(state_files)	# as a load leaves it
kind_begin; from=B	# the timing's last load
for i in $(seq 0 $((TRIALS - 1))); do
	point=$(point_for "$i" fill allow swap swapped)
	if [ "$from" = A ]; then
		kill_run "$point" "${BB_RAW[@]}" load "$LIST_B" -i bbd0 --seed "$SEED" --allow "$ALLOW_B"
		after_kill "load ($point)" "$WANT_A" "$WANT_B"
	else
		kill_run "$point" "${BB_RAW[@]}" load "$LIST_A" -i bbd0 --seed "$SEED"
		after_kill "load ($point)" "$WANT_B" "$WANT_A"
	fi
	case $point in
	fill | allow | swap) expect_outcome "$point" old ;;
	swapped) expect_outcome "$point" new ;;
	esac
	# the next load: the other list from the one that was live
	if [ "$from" = A ]; then recovered "load ($point)" "$WANT_B" load_b; from=B
	else recovered "load ($point)" "$WANT_A" load_a; from=A; fi
done
report load "$TRIALS" "fault points fill, allow, swap, swapped and random moments"
[ "$from" = B ] || load_b >/dev/null 2>&1

# ---- kill -9 of add and del ---------------------------------------------------------------
# A killed add may leave its items matched (bits before the index: a false positive at
# worst), never one listed before unmatched. The next add makes them listed, its del
# unlisted, in step with the index.
RANGE_MS=$(time_ms bb add "$LIVE" live.example)
DEL_MS=$(time_ms bb del "$LIVE" live.example)
STATE=$(state_files)	# as add and del leave it: the counting shadow written
echo "# add takes about $RANGE_MS ms, del $DEL_MS ms"
kind_begin
for i in $(seq 0 $((TRIALS - 1))); do
	point=$(point_for "$i" add-bits live-shadow)
	kill_run "$point" "${BB_RAW[@]}" add "$LIVE" live.example
	after_kill "add ($point)" "$WANT_B pass pass" "$WANT_B drop drop" "$LIVE" dns:live.example
	[ "$point" = random ] || expect_outcome "$point" new
	if ! o=$(bb add "$LIVE" live.example 2>&1) ||
		[ "$(verdicts "$LIVE" dns:live.example)" != "$WANT_B drop drop" ]; then
		bad=$((bad + 1)); bad_first=${bad_first:-"add ($point): the next add: $o; $(verdicts "$LIVE")"}
	fi
	recovered "add ($point)" "$WANT_B" bb del "$LIVE" live.example
	[ "$(verdicts "$LIVE" dns:live.example)" = "$WANT_B pass pass" ] ||
		{ bad=$((bad + 1)); bad_first=${bad_first:-"add ($point): the del left $(verdicts "$LIVE" dns:live.example)"}; }
done
report add "$TRIALS" "fault points add-bits, live-shadow and random moments"

kind_begin; RANGE_MS=$DEL_MS
for i in $(seq 0 $((TRIALS - 1))); do
	point=$(point_for "$i" del-index live-shadow)
	bb add "$LIVE" live.example >/dev/null 2>&1
	kill_run "$point" "${BB_RAW[@]}" del "$LIVE" live.example
	after_kill "del ($point)" "$WANT_B drop drop" "$WANT_B pass pass" "$LIVE" dns:live.example
	case $point in
	del-index) expect_outcome "$point" old ;;	# the index first: the bits still set
	live-shadow) expect_outcome "$point" new ;;
	esac
	# the next del: the items it still holds, or none (a killed del wrote the index first)
	o=$(bb del "$LIVE" live.example 2>&1)
	if [ "$(verdicts "$LIVE" dns:live.example)" != "$WANT_B pass pass" ]; then
		bad=$((bad + 1)); bad_first=${bad_first:-"del ($point): after the next del: $(verdicts "$LIVE" dns:live.example): $o"}
	fi
	recovered "del ($point)" "$WANT_B" bb check 203.0.113.10
done
report del "$TRIALS" "fault points del-index, live-shadow and random moments"

# A kill while a state file is written leaves NAME.tmp (written whole, then renamed over
# NAME): the next command to take the instance's lock removes it, whatever it holds.
for f in shadow.bin.tmp index.bin.tmp allow.list.tmp loaded.json.tmp guard.list.tmp; do
	printf 'half a file' >"$BB_STATE_DIR/$f"
done
run bb del "$LIVE" live.example	# neither is listed: it takes the lock all the same
check_eq "the .tmp files a killed writer leaves: removed by the next command to take the lock" \
	"$(state_files)" "$STATE"

# ---- kill -9 of allow ------------------------------------------------------------------
# Two items from stdin: a kill may stop it after the first (allow-item), so the state in
# between (the address allowed, the name not) is a right one too.
ALLOWED_IP=$(set_at "$WANT_B" 0 pass)
ALLOWED_BOTH=$(set_at "$ALLOWED_IP" 8 pass)
ALLOW_ITEMS=$BB_TMP/allow-items.txt
printf '203.0.113.10\ncommon.example\n' >"$ALLOW_ITEMS"
allow_items() { "$@" - <"$ALLOW_ITEMS"; }
RANGE_MS=$(time_ms allow_items bb allow)
allow_items bb disallow >/dev/null 2>&1
STATE=$(state_files)	# as allow and disallow leave it: allow.list written
echo "# allow takes about $RANGE_MS ms"
kind_begin; want_mid=$ALLOWED_IP
for i in $(seq 0 $((TRIALS - 1))); do
	point=$(point_for "$i" allow-item allow-kept)
	KILL_STDIN=$ALLOW_ITEMS kill_run "$point" "${BB_RAW[@]}" allow -
	after_kill "allow ($point)" "$WANT_B" "$ALLOWED_BOTH"
	case $point in
	allow-item) expect_outcome "$point" mid ;;
	allow-kept) expect_outcome "$point" new ;;
	esac
	# the next allow: both allowed, and kept for the next load; the disallow undoes it
	if ! o=$(allow_items bb allow 2>&1) || [ "$(verdicts)" != "$ALLOWED_BOTH" ] ||
		! grep -qx '203.0.113.10' "$BB_STATE_DIR/allow.list"; then
		bad=$((bad + 1)); bad_first=${bad_first:-"allow ($point): the next allow: $o; $(verdicts)"}
	fi
	recovered "allow ($point)" "$WANT_B" allow_items bb disallow
done
want_mid=''
report allow "$TRIALS" "fault points allow-item, allow-kept and random moments"

# ---- kill -9 of the daemon -------------------------------------------------------------
# bloomblock run --config, its list file replaced and a SIGHUP sent, then the daemon
# and the load it runs as a child killed at once (a process group of its own: what
# systemd's SIGKILL of the unit's cgroup does) at a random moment of the reload. The
# reload is that child `bloomblock load`, whose fault points the load trials took one
# by one. The next daemon start is the next command: it loads the list as it is now.
LIST_D=$BB_TMP/daemon.txt CONF=$BB_TMP/faults.conf DLOG=$BB_TMP/run.log
printf '[instance]\ninterface = bbd0\nhook = xdp\nmode = drop\nlist = %s\nallow = %s\n' \
	"$LIST_D" "$ALLOW_B" >"$CONF"
# watch = no: the reload killed is the SIGHUP's (the list's rename would start one too)
printf 'pin_dir = %s\nseed = %s\nmetrics = off\nwatch = no\n' "$BB_PIN_DIR" "$SEED" >>"$CONF"
# with the allowlist, list A's verdicts on 203.0.113.40 and allowed.example are passes
WANT_AD=$(set_at "$(set_at "$WANT_A" 3 pass)" 11 pass)
daemon_list() { cp "$1" "$LIST_D.new" && mv "$LIST_D.new" "$LIST_D"; }
dpid=''
daemon_start() {
	: >"$DLOG"
	setsid nsenter --net="/run/netns/$NS_DUT" "$BB" run --config "$CONF" >"$DLOG" 2>&1 &
	dpid=$!
	for _ in $(seq 100); do
		grep -q '^<6>serving /sys' "$DLOG" && return 0
		sleep 0.1
	done
	return 1
}
daemon_kill() { kill -9 -- "-$dpid" 2>/dev/null; { wait "$dpid"; } 2>/dev/null; dpid=''; }

kind_begin; hup_ms=''
from=B
daemon_list "$LIST_B"
for i in $(seq 0 "$TRIALS"); do	# the first one times a reload
	if [ "$from" = A ]; then want=$WANT_AD other=$WANT_B next=$LIST_B
	else want=$WANT_B other=$WANT_AD next=$LIST_A; fi
	# the start: the next command after the last trial's kill
	if ! daemon_start; then
		bad=$((bad + 1)); bad_first=${bad_first:-"daemon: did not start: $(tail -n 3 "$DLOG")"}
		daemon_kill
		continue
	fi
	if [ "$(verdicts)" != "$want" ] || [ "$(pins)" != "$PINS" ] || [ "$(attached_id)" != "$PROG" ]; then
		bad=$((bad + 1)); bad_first=${bad_first:-"daemon: after its start: $(verdicts); pins $(pins)"}
	fi
	if [ -z "$hup_ms" ]; then	# one reload seen whole: how long a SIGHUP's load takes
		t0=$(date +%s%N)
		daemon_list "$next"
		kill -HUP "$dpid"
		for _ in $(seq 100); do grep -q 'SIGHUP: loaded' "$DLOG" && break; sleep 0.05; done
		hup_ms=$((($(date +%s%N) - t0) / 1000000))
		echo "# a SIGHUP's reload takes about $hup_ms ms"
		daemon_kill
		if [ "$from" = A ]; then from=B; else from=A; fi
		continue
	fi
	daemon_list "$next"
	kill -HUP "$dpid"
	sleep "$(rand_delay "$hup_ms")"
	grep -q 'SIGHUP: loaded' "$DLOG" || killed=$((killed + 1))
	daemon_kill
	after_kill "daemon" "$want" "$other"
	# the list file holds the other list now: the next start loads it
	if [ "$from" = A ]; then from=B; else from=A; fi
done
report "the daemon (and its reload)" "$TRIALS" "random moments of a SIGHUP's reload"


# ---- nothing leaked ---------------------------------------------------------------------
# the filter live now is list A's or B's (either's memlock): maps and programs are counted
read -r d_maps d_progs _ u_maps u_progs <<<"$(settled_leaks "$CENSUS0")"
check_eq "no map leaked: after every kill, the instance holds as many maps as after the first loads" \
	"$d_maps" 0
check_eq "... and as many programs" "$d_progs" 0
check_eq "... and no map or program made since is held by no one" "$u_maps $u_progs" "0 0"

# ---- concurrent commands: one lock, one consistent filter --------------------------------
# listed_in ITEM: the list file `check` names for ITEM (its index's word), or "none"
listed_in() {
	local o
	o=$(bb check "$1" 2>/dev/null)
	case $o in *a.txt*) echo A ;; *b.txt*) echo B ;; *added\ live* | *bloomblock\ add*) echo live ;; *) echo none ;; esac
}
bad=0 bad_first='' a_won=0 b_won=0
for i in $(seq 10); do
	load_a >/dev/null 2>&1 & pa=$!
	load_b >/dev/null 2>&1 & pb=$!
	wait "$pa"; ra=$?
	wait "$pb"; rb=$?
	got=$(verdicts)
	if [ "$ra$rb" != 00 ]; then
		bad=$((bad + 1)); bad_first=${bad_first:-"two loads at once: exit $ra and $rb"}
	elif [ "$got" = "$WANT_A" ] && [ "$(listed_in 203.0.113.20)" = A ]; then
		a_won=$((a_won + 1))
	elif [ "$got" = "$WANT_B" ] && [ "$(listed_in 203.0.113.30)" = B ]; then
		b_won=$((b_won + 1))
	else
		bad=$((bad + 1)); bad_first=${bad_first:-"two loads at once left '$got', index: 20 in $(listed_in 203.0.113.20), 30 in $(listed_in 203.0.113.30)"}
	fi
done
if [ "$bad" = 0 ]; then
	tap_ok "two loads at once, 10 times: both succeed, serialised; list A's filter and index whole $a_won times, list B's $b_won"
else
	tap_not_ok "two loads at once: $bad of 10 went wrong"; diag "$bad_first"
fi
load_b >/dev/null 2>&1
bad=0 bad_first='' add_last=0 load_last=0
for i in $(seq 10); do
	bb del "$LIVE" >/dev/null 2>&1
	if [ $((i % 2)) = 0 ]; then	# the load first, the add a moment into it
		load_b >/dev/null 2>&1 & pl=$!
		sleep "$(rand_delay "$LOAD_MS")"
		bb add "$LIVE" >/dev/null 2>&1 & pa=$!
	else				# the add first, the load started as it runs
		bb add "$LIVE" >/dev/null 2>&1 & pa=$!
		sleep "$(rand_delay 20)"
		load_b >/dev/null 2>&1 & pl=$!
	fi
	wait "$pl"; rl=$?
	wait "$pa"; ra=$?
	v=$(verdicts "$LIVE")
	if [ "$rl$ra" != 00 ]; then
		bad=$((bad + 1)); bad_first=${bad_first:-"a load racing an add: exit $rl and $ra"}
	elif [ "$v" = "$WANT_B drop" ] && [ "$(listed_in "$LIVE")" = live ]; then
		add_last=$((add_last + 1))
	elif [ "$v" = "$WANT_B pass" ] && [ "$(listed_in "$LIVE")" = none ]; then
		load_last=$((load_last + 1))
	else
		bad=$((bad + 1)); bad_first=${bad_first:-"a load racing an add left '$v', check says $(listed_in "$LIVE")"}
	fi
done
if [ "$bad" = 0 ]; then
	tap_ok "a load racing an add, 10 times: both succeed, serialised; the add after the load $add_last times (listed live), before it $load_last (gone with the old filter)"
else
	tap_not_ok "a load racing an add: $bad of 10 went wrong"; diag "$bad_first"
fi
bb del "$LIVE" >/dev/null 2>&1


# ---- pins deleted by hand ---------------------------------------------------------------
# The objects live on while the attached program holds them: status says the instance
# is damaged (not "nothing is loaded"), the filter keeps working, and the next load
# pins them again from the program and the link, no new map made, nothing detached.
# the instance's own maps, by name: a repair must not make a second of any. Its own
# (bpf_census: held by its pins or by what is attached in its namespaces), not every
# map on the machine with one of these names, which every other instance has too.
instance_maps() {
	census | jq '. as $c | [.instance.maps[] | $c.names[tostring] |
		capture("^[^ ]+ (?<name>[^,]*),").name | select(IN("filters", "stats", "events",
		"event_bucket", "confirm_ring", "confirmed", "unlisted", "confirm_daemon",
		"url_xdp", "url_tc"))] | length'
}
load_b >/dev/null 2>&1
inst_maps=$(instance_maps)
for pin in stats filters events url_xdp prog_xdp; do
	rm -f "$BB_PIN_DIR/$pin"
	if [ "$pin" = url_xdp ]; then	# its last pin gone, the kernel empties the table
		check_fails "url_xdp deleted: the tail-call table is empty" \
			bpftool map lookup id "$(bpftool prog show id "$PROG" -j | jq -r '.map_ids[]' |
			while read -r m; do bpftool map show id "$m" -j | jq -r 'select(.name == "url_xdp") | .id'; done)" key 0 0 0 0
	fi
	run bb status
	check_match "$pin deleted by hand: status says the instance is damaged, and what repairs it" \
		'damaged or half made.*bloomblock load repairs it' "$err"
	check_eq "$pin deleted: bbd0 still filters, with list B" "$(verdicts)" "$WANT_B"
	run load_b
	check_rc "$pin deleted: the next load succeeds" 0
	check_match "$pin deleted: the load says it restored the pin" "pins were gone, now restored: .*$pin" "$err"
	check_eq "$pin deleted: every pin back, bbd0 runs the same program" "$(pins) $(attached_id)" "$PINS $PROG"
	if [ "$pin" = url_xdp ]; then
		check_match "url_xdp deleted: the load says it filled the table again" "tail-call table had lost its programs" "$err"
		check "url_xdp deleted: the table holds its programs again" \
			bpftool map lookup pinned "$BB_PIN_DIR/url_xdp" key 0 0 0 0
	fi
done
check_eq "the pins restored made none of the instance's maps again" "$(instance_maps)" "$inst_maps"
census_before=$(census "$BB_PIN_DIR-first")	# the first loads' pin dir: nothing yet

# ---- a first load killed: a half-made instance, found and then finished or removed -----
FIRST_PIN=$BB_PIN_DIR-first
first() { timeout "$BB_TIMEOUT" nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$FIRST_PIN" "$@"; }
bad=0 bad_first='' said=0 n_first=0
for i in $(seq 0 11); do
	case $((i % 3)) in
	0) point=fill ;; 1) point=swap ;; *) point=random ;;
	esac
	RANGE_MS=$LOAD_MS
	kill_run "$point" nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$FIRST_PIN" load "$LIST_A" --seed "$SEED"
	n_first=$((n_first + 1))
	if [ -d "$FIRST_PIN" ] && [ -n "$(ls "$FIRST_PIN")" ]; then
		o=$(first status 2>&1)
		case $o in
		*"half-made"* | *"damaged or half made"* | *"pin dir"*) said=$((said + 1)) ;;
		*) bad=$((bad + 1)); bad_first=${bad_first:-"killed first load ($point): status said: $o"} ;;
		esac
	fi
	if [ $((i % 2)) = 0 ]; then	# finished by the next load, or removed by unload
		o=$(first load "$LIST_A" --seed "$SEED" 2>&1) ||
			{ bad=$((bad + 1)); bad_first=${bad_first:-"the load after a killed first load: $o"}; }
		[ "$("$VERDICT" "$FIRST_PIN/prog_xdp" 203.0.113.20 | cut -d' ' -f2)" = drop ] ||
			{ bad=$((bad + 1)); bad_first=${bad_first:-"the load after a killed first load: not list A"}; }
	fi
	o=$(first unload --all 2>&1)
	if [ -e "$FIRST_PIN" ]; then
		bad=$((bad + 1)); bad_first=${bad_first:-"unload --all left $(ls "$FIRST_PIN"): $o"}
	fi
done
if [ "$bad" = 0 ]; then
	tap_ok "a first load killed $n_first times (fill, swap, random): status names the half-made instance ($said times), the next load finishes it, unload --all removes it"
else
	tap_not_ok "a first load killed: $bad of $n_first went wrong"; diag "$bad_first"
fi
read -r d_maps d_progs _ u_maps u_progs <<<"$(settled_leaks "$census_before" "$FIRST_PIN")"
check_eq "no map left by the killed first loads: none held by their pin dir or by no one" \
	"$d_maps $d_progs $u_maps $u_progs" "0 0 0 0"

# ---- a read-only or full state directory: a clear error, the filter as it was ----------
# In a mount namespace of its own, so the small tmpfs goes when the commands end:
#   ro     the state directory's files, then mounted read-only
#   full   64 KiB, which the copy of the state directory fills
#   tight  1 MiB with 64 KiB free, the small files only: room for all but the key index
small_state() {	# small_state ro|full|tight CMD...: CMD with --state-dir on the tmpfs
	local how=$1
	shift
	# shellcheck disable=SC2016  # the inner bash expands them
	unshare -m bash -c '
		d=$1/small how=$2 size=64k
		shift 2
		[ "$how" = tight ] && size=1m
		mkdir -p "$d" && mount -t tmpfs -o size=$size,mode=0700 tmpfs "$d" || exit 99
		if [ "$how" = tight ]; then
			cp -a "$0"/*.list "$0"/*.json "$d"/ 2>/dev/null
			head -c $((1024 * 1024 - 96 * 1024)) /dev/zero >"$d/filler" 2>/dev/null
		else
			cp -a "$0"/. "$d"/ 2>/dev/null
		fi
		[ "$how" = ro ] && mount -o remount,ro "$d"
		"$@" --state-dir "$d" 2>&1' "$BB_STATE_DIR" "$BB_TMP" "$how" "$@"
}
load_b >/dev/null 2>&1
o=$(small_state ro nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$BB_PIN_DIR" load "$LIST_A" -i bbd0 --seed "$SEED"); rc=$?
check_ne "a read-only state directory: load fails" "$rc" 0
check_match "... saying which file, and why" "cannot lock .*/small/lock: Read-only file system" "$o"
check_eq "... and list B stays live, untouched" "$(verdicts)" "$WANT_B"
o=$(small_state ro nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$BB_PIN_DIR" add "$LIVE"); rc=$?
check_ne "a read-only state directory: add fails" "$rc" 0
check_match "... saying which file, and why" "small/lock: Read-only file system" "$o"
check_eq "... nothing changed" "$(verdicts "$LIVE")" "$WANT_B pass"
o=$(small_state full nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$BB_PIN_DIR" load "$LIST_A" -i bbd0 --seed "$SEED"); rc=$?
check_ne "a full state directory: load fails" "$rc" 0
check_match "... saying which file, and why" "small/[a-z.]*: No space left on device" "$o"
check_eq "... and list B stays live, untouched" "$(verdicts)" "$WANT_B"
o=$(small_state tight nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$BB_PIN_DIR" load "$LIST_A" -i bbd0 --seed "$SEED"); rc=$?
check_eq "room for all but the key index: load succeeds" "$rc" 0
check_match "... saying the index could not be written, and why" \
	"key index could not be written \(No space left on device\)" "$o"
check_eq "... the filter it swapped in is whole: list A" "$(verdicts)" "$WANT_A"
load_b >/dev/null 2>&1

# ---- the interface vanishes while attached ---------------------------------------------
ip -n "$NS_DUT" link del bbd0
run bb status
check_match "bbd0 deleted while attached: status says the interface is gone" "bbd0 .*interface gone" "$out"
run bb unload -i bbd0
check_rc "unload -i bbd0 after it vanished succeeds" 0
run bb unload --all
check_rc "then unload --all removes the instance" 0
check "... and nothing of it is left" test ! -e "$BB_PIN_DIR"
t_end=$((SECONDS + 40))
while :; do	# freed after an RCU grace period, by a kernel worker: seen over 10 s
	gone=$(census | jq -c --argjson a "$census_before" '[.instance.maps, .instance.progs,
		(.unowned.maps - $a.all_maps), (.unowned.progs - $a.all_progs)] | map(length)')
	[ "$gone" = "[0,0,0,0]" ] || [ "$SECONDS" -ge "$t_end" ] && break
	sleep 0.5
done
check_eq "... nor a map or program of it, held by its pin dir or by no one" "$gone" "[0,0,0,0]"

tap_done
