# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034  # variables here are for the scripts that source this
# Helpers for end-to-end tests: TAP output, private namespaces and pin dirs, cleanup.
#
# The machine's own eth0 may sit on a documentation range (192.0.2.0/24 here), so
# no test address ever lives in the root namespace: the filtering end ("dut") and
# the traffic sources each get a namespace of their own. bloomblock runs with
# `nsenter --net`, which changes the network namespace only, so it still sees the
# host's /sys/fs/bpf (unlike `ip netns exec`, which remounts /sys).
#
# A test script:
#   . "$(dirname "$0")/lib.sh"
#   e2e_begin                  # root + bpffs + namespaces + cleanup trap, or skip
#   expect_blocked "listed source" 198.51.100.2 198.51.100.1
#   run bb check 198.51.100.2; check_rc "check exits 0" 0; check_match "..." 'listed' "$out"
#   tap_done

BB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BB=${BB:-$BB_ROOT/bloomblock}
BB_TAG=${BB_TAG:-bbt$$}
BB_PIN_DIR=/sys/fs/bpf/$BB_TAG
BB_STATE_DIR=/run/bloomblock/sys-fs-bpf-$BB_TAG	# the default for that pin dir (state.h)
BB_TIMEOUT=${BB_TIMEOUT:-30}	# seconds any one bloomblock run may take
NS_DUT=$BB_TAG-dut
NS_SRC=$BB_TAG-src
BB_TMP=${BB_TMP:-}

# BB_VALGRIND=1: every bloomblock the script runs ($BB, so bb() and each script's own
# wrappers) runs under valgrind's memcheck, definite leaks counted as errors, its
# reports one file per process (the commands' stderr stays theirs to check); an error
# makes the command exit 99, and tap_done() fails the script on any report, quoting it.
# Children too (the daemon runs its loads as a child: execv("/proc/self/exe"), which
# valgrind follows only with --trace-children=yes).
# tests/valgrind.supp: what valgrind cannot follow of bpf() and inside libbpf.
# Ten times the time for each run.
if [ "${BB_VALGRIND:-0}" = 1 ] && [ -z "${BB_VG_DIR:-}" ]; then
	BB_VG_DIR=$(mktemp -d /tmp/bbvg.XXXXXX)
	chmod 1777 "$BB_VG_DIR"	# a run as another user (setpriv) writes its report too
	printf '#!/bin/sh\nexec valgrind -q --error-exitcode=99 --leak-check=full --trace-children=yes \\\n\t%s \\\n\t%s "%s" "$@"\n' \
		"--errors-for-leak-kinds=definite --show-leak-kinds=definite --num-callers=24" \
		"--suppressions=$BB_ROOT/tests/valgrind.supp --log-file=$BB_VG_DIR/vg.%p.log" \
		"$BB" >"$BB_VG_DIR/bloomblock"
	chmod 755 "$BB_VG_DIR/bloomblock"
	BB=$BB_VG_DIR/bloomblock
	BB_TIMEOUT=$((BB_TIMEOUT * 10))
fi
tap_n=0 tap_fail=0
out='' err='' rc=0	# set by run/run_stdin

# ---- TAP ---------------------------------------------------------------------

tap_ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n $*"; }
tap_not_ok() { tap_n=$((tap_n + 1)); tap_fail=$((tap_fail + 1)); echo "not ok $tap_n $*"; }
# diag TEXT: TEXT as TAP comment lines (at most 20)
diag() { [ -n "$1" ] && printf '%s\n' "$1" | head -n 20 | sed 's/^/#   /'; return 0; }

# check NAME CMD...: ok when CMD succeeds (its output is shown on failure)
check() {
	local name=$1 o
	shift
	if o=$("$@" 2>&1); then tap_ok "$name"; else tap_not_ok "$name"; echo "# failed: $*"; diag "$o"; fi
}
# check_fails NAME CMD...: ok when CMD fails
check_fails() {
	local name=$1 o
	shift
	if o=$("$@" 2>&1); then tap_not_ok "$name"; echo "# succeeded: $*"; diag "$o"; else tap_ok "$name"; fi
}
check_eq() { if [ "$2" = "$3" ]; then tap_ok "$1"; else tap_not_ok "$1"; echo "# got '$2', expected '$3'"; fi; }
# check_ne NAME GOT UNEXPECTED
check_ne() { if [ "$2" != "$3" ]; then tap_ok "$1"; else tap_not_ok "$1"; echo "# got '$2', expected anything else"; fi; }
# check_ge NAME A B: integers, A >= B
check_ge() {
	if [[ "$2" =~ ^[0-9]+$ && "$3" =~ ^[0-9]+$ ]] && [ "$2" -ge "$3" ]; then
		tap_ok "$1"
	else
		tap_not_ok "$1"; echo "# got '$2', expected >= '$3'"
	fi
}
# check_match NAME ERE TEXT: TEXT has a line matching the extended regex ERE
check_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then tap_ok "$1"; else tap_not_ok "$1"; echo "# no line matches /$2/ in:"; diag "$3"; fi
}
check_no_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then tap_not_ok "$1"; echo "# a line matches /$2/ in:"; diag "$3"; else tap_ok "$1"; fi
}

# run CMD...: run CMD; its exit status lands in $rc, stdout in $out, stderr in $err
run() {
	local f
	f=$(mktemp "${BB_TMP:-/tmp}/run.XXXXXX")
	out=$("$@" 2>"$f")
	rc=$?
	err=$(<"$f")
	rm -f "$f"
}
# run_stdin TEXT CMD...: run with TEXT (plus a newline) on stdin
run_stdin() {
	local f text=$1
	shift
	f=$(mktemp "${BB_TMP:-/tmp}/run.XXXXXX")
	out=$("$@" <<<"$text" 2>"$f")
	rc=$?
	err=$(<"$f")
	rm -f "$f"
}
# run_from FILE CMD...: run with FILE on stdin (bytes as they are: a compressed list)
run_from() {
	local f from=$1
	shift
	f=$(mktemp "${BB_TMP:-/tmp}/run.XXXXXX")
	out=$("$@" <"$from" 2>"$f")
	rc=$?
	err=$(<"$f")
	rm -f "$f"
}
# check_rc NAME WANT: the last run's exit status is WANT ("nonzero": anything but 0)
check_rc() {
	if [ "$2" = nonzero ] && [ "$rc" -ne 0 ] || [ "$rc" = "$2" ]; then
		tap_ok "$1"
	else
		tap_not_ok "$1"; echo "# exit status $rc, expected $2"; diag "$out"; diag "$err"
	fi
}

# tap_skip NAME REASON: one skipped test (a failure when CI=true)
tap_skip() {
	if [ "${CI:-}" = true ]; then
		tap_not_ok "$1 # skipped in CI: $2"
	else
		tap_n=$((tap_n + 1)); echo "ok $tap_n $1 # SKIP $2"
	fi
}

# tap_skip_kernel NAME REASON: a skip that stands in CI too, for one thing only: a
# kernel feature this kernel refuses, shown in the same run by the script's own checks
# (REASON says which refusal). Every other skip fails under CI=true.
tap_skip_kernel() { tap_n=$((tap_n + 1)); echo "ok $tap_n $1 # SKIP this kernel: $2"; }

# Skip the whole script (a failure when CI=true).
skip_all() {
	if [ "${CI:-}" = true ]; then
		echo "not ok 1 $(basename "$0") # skipped in CI: $*"
		echo "1..1"
		exit 1
	fi
	echo "ok 1 $(basename "$0") # SKIP $*"
	echo "1..1"
	exit 0
}

# bail REASON: stop the script, failed (cleanup still runs from the EXIT trap)
bail() { echo "Bail out! $*"; exit 1; }

# valgrind_done: under BB_VALGRIND=1, one check: no run of bloomblock reported an error
valgrind_done() {
	local f runs=0 bad=0 first=''
	[ -n "${BB_VG_DIR:-}" ] || return 0
	for f in "$BB_VG_DIR"/vg.*.log; do
		[ -e "$f" ] || continue
		runs=$((runs + 1))
		# its reports ("==PID== "), not its warnings ("--PID-- WARNING: unhandled eBPF
		# command 28": BPF_LINK_CREATE, which it passes through unchecked)
		if grep -qE '^==[0-9]+== ' "$f"; then
			bad=$((bad + 1))
			[ -n "$first" ] || first=$f
		fi
	done
	if [ "$bad" -eq 0 ]; then
		tap_ok "valgrind: $runs runs of bloomblock, no error, no definite leak"
	else
		tap_not_ok "valgrind: $bad of $runs runs of bloomblock reported errors (reports in $BB_VG_DIR)"
		diag "$(grep -E '^==[0-9]+== ' "$first" | head -n 40)"
		BB_VG_KEEP=1
	fi
}

tap_done() { valgrind_done; echo "1..$tap_n"; [ "$tap_fail" -eq 0 ]; }

# ---- environment ---------------------------------------------------------------

# root_bpf_missing: empty when this can run bloomblock for real, else the reason
root_bpf_missing() {
	[ "$(id -u)" = 0 ] || { echo "needs root"; return; }
	[ -x "$BB" ] || { echo "build bloomblock first (make)"; return; }
	local c
	for c in ip nsenter ping jq timeout; do
		command -v "$c" >/dev/null || { echo "needs $c"; return; }
	done
	if ! mountpoint -q /sys/fs/bpf; then
		mount -t bpf bpf /sys/fs/bpf 2>/dev/null || { echo "no bpffs at /sys/fs/bpf"; return; }
	fi
}

need_root_bpf() {
	local why
	why=$(root_bpf_missing)
	[ -z "$why" ] || skip_all "$why"
}

# e2e_begin: root, bpffs, a scratch dir, the namespaces, and cleanup on any exit
e2e_begin() {
	need_root_bpf
	BB_TMP=$(mktemp -d /tmp/bbe2e.XXXXXX)
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	netns_setup || bail "could not set up the test namespaces"
}

# bb ARGS...: the real CLI in the dut namespace, with this test's pin dir, bounded in time
bb() { timeout "$BB_TIMEOUT" nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$BB_PIN_DIR" "$@"; }
in_src() { ip netns exec "$NS_SRC" "$@"; }
in_dut() { ip netns exec "$NS_DUT" "$@"; }

# A veth pair: bbd0 (dut, 198.51.100.1, 2001:db8:51::1) <-> bbs0 (src, .2 .3, ::2 ::3).
# Both ends live in namespaces of their own; nothing is added to the root namespace.
netns_setup() {
	ip netns add "$NS_DUT" && ip netns add "$NS_SRC" || return 1
	ip -n "$NS_DUT" link add bbd0 type veth peer name bbs0 netns "$NS_SRC" || return 1
	ip -n "$NS_DUT" link set lo up
	ip -n "$NS_SRC" link set lo up
	ip -n "$NS_DUT" addr add 198.51.100.1/24 dev bbd0
	ip -n "$NS_DUT" addr add 2001:db8:51::1/64 dev bbd0 nodad
	ip -n "$NS_SRC" addr add 198.51.100.2/24 dev bbs0
	ip -n "$NS_SRC" addr add 198.51.100.3/24 dev bbs0
	ip -n "$NS_SRC" addr add 2001:db8:51::2/64 dev bbs0 nodad
	ip -n "$NS_SRC" addr add 2001:db8:51::3/64 dev bbs0 nodad
	ip -n "$NS_DUT" link set bbd0 up || return 1
	ip -n "$NS_SRC" link set bbs0 up || return 1
}

# netns_add_src ADDR: one more source address on bbs0 (outside 198.51.100.0/24 and
# 2001:db8:51::/64), with a host route back to it in the dut namespace
netns_add_src() {
	case $1 in
	*:*)
		ip -n "$NS_SRC" addr add "$1/128" dev bbs0 nodad &&
			ip -n "$NS_DUT" -6 route add "$1/128" dev bbd0 ;;
	*)
		ip -n "$NS_SRC" addr add "$1/32" dev bbs0 &&
			ip -n "$NS_DUT" route add "$1/32" dev bbd0 ;;
	esac
}

cleanup() {
	local j
	for j in $(jobs -p); do kill "$j" 2>/dev/null; done
	case $BB_PIN_DIR in
	/sys/fs/bpf/?*)
		if [ -d "$BB_PIN_DIR" ]; then
			timeout 20 "$BB" --pin-dir "$BB_PIN_DIR" unload --all >/dev/null 2>&1
			rm -rf "$BB_PIN_DIR"
		fi ;;
	esac
	case $BB_STATE_DIR in /run/bloomblock/?*) rm -rf "$BB_STATE_DIR" ;; esac
	ip netns del "$NS_DUT" 2>/dev/null
	ip netns del "$NS_SRC" 2>/dev/null
	case $BB_TMP in /tmp/?*) rm -rf "$BB_TMP" ;; esac
	case ${BB_VG_DIR:-}:${BB_VG_KEEP:-} in /tmp/bbvg.?*:) rm -rf "$BB_VG_DIR" ;; esac
	return 0
}

# ---- traffic -------------------------------------------------------------------

# stop_pid PID: a background server stopped and reaped (nothing for an empty PID)
stop_pid() {
	[ -n "$1" ] || return 0
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# wait_listen_in NS t|u PORT: until something listens on PORT (TCP or UDP) in NS, 5 s at most
wait_listen_in() {
	local _
	for _ in $(seq 50); do
		[ -n "$(ip netns exec "$1" ss -Hln"$2" "sport = :$3" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	return 1
}


# ping_from SRC_ADDR DST [COUNT [INTERVAL]]: a bounded ping from the src namespace;
# success when any reply came back. Sets ping_tx and ping_rx.
ping_from() {
	local src=$1 dst=$2 count=${3:-2} ival=${4:-0.2} fam=-4 o deadline
	case $dst in *:*) fam=-6 ;; esac
	deadline=$(awk -v c="$count" -v i="$ival" 'BEGIN { d = int(c * i + 2); print d }')
	o=$(in_src timeout $((deadline + 5)) ping "$fam" -n -c "$count" -i "$ival" -W 1 -w "$deadline" \
		-I "$src" "$dst" 2>&1)
	ping_tx=$(printf '%s\n' "$o" | sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p')
	ping_rx=$(printf '%s\n' "$o" | sed -n 's/.* \([0-9][0-9]*\) \(packets \)\{0,1\}received.*/\1/p')
	ping_tx=${ping_tx:-0} ping_rx=${ping_rx:-0}
	[ "$ping_rx" -gt 0 ]
}

# expect_pass NAME SRC DST: every ping is answered
expect_pass() {
	if ping_from "$2" "$3" && [ "$ping_rx" = "$ping_tx" ]; then
		tap_ok "$1"
	else
		tap_not_ok "$1"; echo "# ping from $2 to $3: $ping_tx sent, $ping_rx answered; expected all answered"
	fi
}

# expect_blocked NAME SRC DST: the pings are dropped, as the drop counter proves: it rises
# by every ping sent, read right after them (a reply would come within milliseconds on a
# veth: each is waited for half a second, not a whole timeout), and none is answered.
# Where this instance's counters cannot be read (another instance drops), the pings alone
# decide, waited for as long as ping_from waits. Adds the pings sent to $blocked_tx.
# BB_BLOCK_BB: the function that runs the dropping instance's bloomblock (default bb).
blocked_tx=0
blocked_drops() { "${BB_BLOCK_BB:-bb}" stats -j 2>/dev/null | jq -r .dropped 2>/dev/null; }
expect_blocked() {
	local d0 d1 o fam=-4
	case $3 in *:*) fam=-6 ;; esac
	d0=$(blocked_drops)
	if ! [[ "$d0" =~ ^[0-9]+$ ]]; then
		expect_blocked_slow "$@"
		return
	fi
	o=$(in_src timeout 10 ping "$fam" -n -c 2 -i 0.2 -W 0.5 -w 3 -I "$2" "$3" 2>&1)
	d1=$(blocked_drops)
	ping_tx=$(printf '%s\n' "$o" | sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p')
	ping_rx=$(printf '%s\n' "$o" | sed -n 's/.* \([0-9][0-9]*\) \(packets \)\{0,1\}received.*/\1/p')
	ping_tx=${ping_tx:-0} ping_rx=${ping_rx:-0}
	blocked_tx=$((blocked_tx + ping_tx))
	if [ "$ping_tx" -gt 0 ] && [ "$ping_rx" = 0 ] && [[ "$d1" =~ ^[0-9]+$ ]] &&
	   [ $((d1 - d0)) -ge "$ping_tx" ]; then
		tap_ok "$1"
	else
		tap_not_ok "$1"
		echo "# ping from $2 to $3: $ping_tx sent, $ping_rx answered, the drop counter $d0 -> $d1; expected every ping dropped and counted"
	fi
}

# expect_blocked_slow NAME SRC DST: no ping is answered, waited for in full (no counter)
expect_blocked_slow() {
	if ping_from "$2" "$3"; then
		tap_not_ok "$1"; echo "# ping from $2 to $3: $ping_tx sent, $ping_rx answered; expected none"
	elif [ "$ping_tx" -eq 0 ]; then
		tap_not_ok "$1"; echo "# ping from $2 to $3 sent nothing"
	else
		tap_ok "$1"
	fi
	blocked_tx=$((blocked_tx + ping_tx))
}

# ---- the daemon ------------------------------------------------------------------

# daemon_start CONF LOG [NS]: `bloomblock run --config CONF` in NS (the dut's by default),
# its messages in LOG, until it serves (30 s at most). Sets daemon (the pid of timeout(1),
# to wait for) and dpid (bloomblock's own: timeout passes on one signal, then ignores it,
# so SIGHUP goes to dpid). BB_DAEMON_TIMEOUT bounds its life (120 s).
daemon=''
dpid=''
daemon_start() {
	local conf=$1 log=$2 ns=${3:-$NS_DUT} _
	: >"$log"
	# -k: killed 10 s after its time, whatever it does with SIGTERM (an AddressSanitizer
	# build's leak check at exit was seen spinning in LeakSanitizer's StopTheWorld)
	timeout -k 10 "${BB_DAEMON_TIMEOUT:-120}" nsenter --net="/run/netns/$ns" "$BB" run --config "$conf" \
		>"$log" 2>&1 &
	daemon=$!
	for _ in $(seq 1 300); do
		if grep -q '^<6>serving /sys' "$log"; then
			dpid=$(pgrep -P "$daemon" | head -n 1)
			return 0
		fi
		kill -0 "$daemon" 2>/dev/null || return 1	# it stopped: the log says why
		sleep 0.1
	done
	return 1
}

# wait_log ERE [LOG [COUNT]]: until LOG ($BB_TMP/run.log) has COUNT (1) lines matching ERE,
# 10 s at most
wait_log() {
	local log=${2:-$BB_TMP/run.log} count=${3:-1} _
	for _ in $(seq 1 100); do
		[ "$(grep -cE -- "$1" "$log" 2>/dev/null)" -ge "$count" ] && return 0
		sleep 0.1
	done
	return 1
}

# ---- state -----------------------------------------------------------------------

# bb_stat NAME: one counter from `bloomblock stats -j`
bb_stat() { bb stats -j | jq -r ".$1"; }
# bb_status FILTER: a jq filter over `bloomblock status -j`
bb_status() { bb status -j | jq -r "$1"; }

# send_frames SRC_ADDR DST_ADDR COUNT VLAN...: COUNT raw UDP frames from the src
# namespace out of bbs0 to bbd0's MAC, carrying the given 802.1Q tags (outer first;
# two tags make the outer one 802.1ad). The frames are built by hand and sent on an
# AF_PACKET socket, so the tags sit in the packet data where XDP reads them.
send_frames() {
	local mac
	mac=$(ip -n "$NS_DUT" -j link show bbd0 | jq -r '.[0].address') || return 1
	in_src timeout 10 python3 - "$mac" "$@" <<'PY'
import socket, struct, sys, ipaddress
mac, src, dst, count, tags = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), [int(t) for t in sys.argv[5:]]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("bbs0", 0))
smac = s.getsockname()[4]
def csum(b):
    if len(b) % 2: b += b"\0"
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while t >> 16: t = (t & 0xffff) + (t >> 16)
    return ~t & 0xffff
sa, da = ipaddress.ip_address(src), ipaddress.ip_address(dst)
udp = struct.pack("!HHHH", 40000, 9, 8 + 4, 0) + b"bbt!"
if sa.version == 4:
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0, sa.packed, da.packed)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    et = 0x0800
else:
    ip = struct.pack("!IHBB16s16s", 6 << 28, len(udp), 17, 64, sa.packed, da.packed)
    et = 0x86DD
hdr = bytes.fromhex(mac.replace(":", "")) + smac
for i, vid in enumerate(tags):
    tpid = 0x88A8 if i == 0 and len(tags) > 1 else 0x8100
    hdr += struct.pack("!HH", tpid, vid)
frame = hdr + struct.pack("!H", et) + ip + udp
for _ in range(count):
    s.send(frame)
PY
}

# ---- the leak census (test_reload_e2e, test_faults_e2e) -------------------------------------
# Whether reloads or kills leak is a question about every BPF object on the machine, and
# other tests (other engineers' too) create and free maps and programs meanwhile:
# counting all of them, or all named as bloomblock names its own (another instance's
# are named the same), cannot tell a leak from a neighbour. So bpf_census sorts every
# map and program the kernel lists by who holds it:
#
#   instance  reachable from this instance's pins (its pin dir), from the fds of its
#             own processes (the daemon, in the SIGHUP phase) or from what is
#             attached in this test's network namespaces;
#   others    reachable from any other pin, any other process's fds, or what is
#             attached in any other network namespace (tc filters and XDP programs
#             attached without a link have no pin and no fd) or to a cgroup;
#   unowned   none of these: held only by something no one can name any more.
#
# "Reachable" follows what holds what: a link holds its program, a program the maps
# it uses, a map-in-map its inner maps (the live filter is the inner map of the
# pinned `filters`), a program array its programs. An old filter map that the swap
# did not free would be unowned (or the instance's, if a stale pin or a daemon's fd
# kept it), so the checks are: the instance holds as many maps and programs after
# the reloads as before, and no more map memlock; and no map or program that did not
# exist before is unowned (an unowned object from before is someone else's business).
# Objects freed after an RCU grace period may be seen for a moment: the census is
# taken again for a few seconds until it settles.
#
# bpf_census PIN_DIR [pid:PID | netns:PATH]...: the instance's pin dir, processes and
# network namespaces; one JSON object: instance, others, unowned: {maps, progs (id
# lists), memlock (the maps')}; all_maps, all_progs; names (map id: what it is)
bpf_census() {
	python3 - "$@" <<'PY'
import json, os, re, subprocess, sys
pin_dir = sys.argv[1].rstrip("/") + "/"
ours_pids = {a[4:] for a in sys.argv[2:] if a.startswith("pid:")}
ours_netns = {os.stat(a[6:]).st_ino for a in sys.argv[2:] if a.startswith("netns:")}
def bpftool(*args):
    r = subprocess.run(["bpftool", "-j", *args], capture_output=True, text=True)
    try:
        return json.loads(r.stdout or "[]") or []
    except ValueError:
        return []
maps = {m["id"]: m for m in bpftool("-f", "map", "show")}
progs = {p["id"]: p for p in bpftool("-f", "prog", "show")}
links = {l["id"]: l for l in bpftool("-f", "link", "show")}
objs = {("map", i): o for i, o in maps.items()}
objs.update({("prog", i): o for i, o in progs.items()})
objs.update({("link", i): o for i, o in links.items()})
# who holds what: pins, and every process's fds (fdinfo names the object's id)
holders = {}
for key, o in objs.items():
    for path in o.get("pinned") or []:
        holders.setdefault(key, set()).add("ours" if path.startswith(pin_dir) else "others")
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        fds = os.listdir("/proc/%s/fdinfo" % pid)
    except OSError:
        continue
    for fd in fds:
        try:
            with open("/proc/%s/fdinfo/%s" % (pid, fd)) as f:
                text = f.read()
        except OSError:
            continue
        m = re.search(r"^(map|prog|link)_id:\s*(\d+)", text, re.M)
        if m and (m[1], int(m[2])) in objs:
            holders.setdefault((m[1], int(m[2])), set()).add(
                "ours" if pid in ours_pids else "others")
# and what is attached to an interface without a link (tc, XDP by netlink), in every
# network namespace there is: a namespace of ours (given) holds ours
spaces = {}
for path in ["/run/netns/" + n for n in (os.listdir("/run/netns") if os.path.isdir("/run/netns") else [])] + \
        ["/proc/%s/ns/net" % p for p in filter(str.isdigit, os.listdir("/proc"))]:
    try:
        spaces.setdefault(os.stat(path).st_ino, path)
    except OSError:
        pass
for ino, path in spaces.items():
    r = subprocess.run(["nsenter", "--net=" + path, "bpftool", "-j", "net", "show"],
                       capture_output=True, text=True)
    try:
        nets = json.loads(r.stdout or "[]") or []
    except ValueError:
        continue
    for net in nets:
        for kind in net.values():
            for a in kind if isinstance(kind, list) else []:
                i = a.get("id", a.get("prog_id"))
                if ("prog", i) in objs:
                    holders.setdefault(("prog", i), set()).add(
                        "ours" if ino in ours_netns else "others")
# cgroup programs (systemd's among them) are no one's here: others
for cg in bpftool("cgroup", "tree"):
    for a in cg.get("programs", []) if isinstance(cg, dict) else []:
        if ("prog", a.get("id")) in objs:
            holders.setdefault(("prog", a["id"]), set()).add("others")
# what each object holds: a link its program, a program its maps, a map-in-map its
# inner maps, a program array its programs
def ids_in(map_id):
    out = []
    for e in bpftool("map", "dump", "id", str(map_id)):
        v = e.get("value") if isinstance(e, dict) else None
        if isinstance(v, list) and len(v) == 4:
            out.append(int.from_bytes(bytes(int(b, 16) for b in v), "little"))
    return out
edges = {}
for i, l in links.items():
    edges[("link", i)] = [("prog", l["prog_id"])] if "prog_id" in l else []
for i, p in progs.items():
    edges[("prog", i)] = [("map", m) for m in p.get("map_ids", [])]
for i, m in maps.items():
    if m.get("type") in ("array_of_maps", "hash_of_maps"):
        edges[("map", i)] = [("map", x) for x in ids_in(i)]
    elif m.get("type") == "prog_array":
        edges[("map", i)] = [("prog", x) for x in ids_in(i)]
def reach(owner):
    seen = {k for k, h in holders.items() if owner in h}
    todo = list(seen)
    while todo:
        for n in edges.get(todo.pop(), []):
            if n in objs and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen
ours, others = reach("ours"), reach("others")
groups = {"instance": ours, "others": others - ours, "unowned": set(objs) - ours - others}
out = {g: {"maps": sorted(i for k, i in s if k == "map"),
           "progs": sorted(i for k, i in s if k == "prog"),
           "memlock": sum(maps[i].get("bytes_memlock", 0) for k, i in s if k == "map")}
       for g, s in groups.items()}
out["all_maps"], out["all_progs"] = sorted(maps), sorted(progs)
out["names"] = {str(i): "%s %s, %s bytes memlock" % (m.get("type"), m.get("name", ""),
                                                   m.get("bytes_memlock"))
                for i, m in maps.items()}
print(json.dumps(out))
PY
}
# leaks BEFORE AFTER: the instance's growth in maps, programs and map memlock, and the
# maps and programs made since BEFORE that no one holds: five numbers
leaks() {
	jq -rn --argjson a "$1" --argjson b "$2" '
		[($b.instance.maps | length) - ($a.instance.maps | length),
		 ($b.instance.progs | length) - ($a.instance.progs | length),
		 $b.instance.memlock - $a.instance.memlock,
		 ($b.unowned.maps - $a.all_maps | length),
		 ($b.unowned.progs - $a.all_progs | length)] | map(tostring) | join(" ")'
}
