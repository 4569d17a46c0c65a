# SPDX-License-Identifier: GPL-2.0
# Helpers for end-to-end tests: TAP output, private namespaces and pin dirs, cleanup.
#
# The machine's own eth0 may sit on a documentation range (192.0.2.0/24 here), so
# no test address ever lives in the root namespace: the filtering end ("dut") and
# the traffic sources each get a namespace of their own. bloomblock runs with
# `nsenter --net`, which changes the network namespace only, so it still sees the
# host's /sys/fs/bpf (unlike `ip netns exec`, which remounts /sys).

BB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BB=${BB:-$BB_ROOT/bloomblock}
BB_TAG=${BB_TAG:-bbt$$}
BB_PIN_DIR=/sys/fs/bpf/$BB_TAG
NS_DUT=$BB_TAG-dut
NS_SRC=$BB_TAG-src
tap_n=0 tap_fail=0

tap_ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n $*"; }
tap_not_ok() { tap_n=$((tap_n + 1)); tap_fail=$((tap_fail + 1)); echo "not ok $tap_n $*"; }
# check NAME CMD...: ok when CMD succeeds
check() { local name=$1; shift; if "$@" >/dev/null 2>&1; then tap_ok "$name"; else tap_not_ok "$name"; echo "# failed: $*"; fi; }
# check_fails NAME CMD...: ok when CMD fails
check_fails() { local name=$1; shift; if "$@" >/dev/null 2>&1; then tap_not_ok "$name"; echo "# succeeded: $*"; else tap_ok "$name"; fi; }
check_eq() { if [ "$2" = "$3" ]; then tap_ok "$1"; else tap_not_ok "$1"; echo "# got '$2', expected '$3'"; fi; }

# Skip the whole script (a failure when CI=true).
skip_all() {
	if [ "${CI:-}" = true ]; then
		echo "not ok 1 $(basename "$0") # skipped in CI: $*"
		exit 1
	fi
	echo "ok 1 $(basename "$0") # SKIP $*"
	exit 0
}

tap_done() { echo "1..$tap_n"; [ "$tap_fail" -eq 0 ]; }

need_root_bpf() {
	[ "$(id -u)" = 0 ] || skip_all "needs root"
	[ -x "$BB" ] || skip_all "build bloomblock first (make)"
	if ! mountpoint -q /sys/fs/bpf; then
		mount -t bpf bpf /sys/fs/bpf 2>/dev/null || skip_all "no bpffs at /sys/fs/bpf"
	fi
}

# bb ARGS...: the real CLI in the dut namespace, with this test's pin dir
bb() { nsenter --net="/run/netns/$NS_DUT" "$BB" --pin-dir "$BB_PIN_DIR" "$@"; }
in_src() { ip netns exec "$NS_SRC" "$@"; }
in_dut() { ip netns exec "$NS_DUT" "$@"; }

# A veth pair: bbd0 (dut, 198.51.100.1, 2001:db8:51::1) <-> bbs0 (src, .2 .3, ::2 ::3).
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
	ip -n "$NS_DUT" link set bbd0 up
	ip -n "$NS_SRC" link set bbs0 up
}

cleanup() {
	[ -d "$BB_PIN_DIR" ] && "$BB" --pin-dir "$BB_PIN_DIR" unload --all >/dev/null 2>&1
	rm -rf "$BB_PIN_DIR"
	ip netns del "$NS_DUT" 2>/dev/null
	ip netns del "$NS_SRC" 2>/dev/null
	[ -n "${BB_TMP:-}" ] && rm -rf "$BB_TMP"
	return 0
}

# ping_from SRC_ADDR DST: one bounded ping from the src namespace
ping_from() { in_src ping -c 2 -i 0.2 -W 1 -w 2 -I "$1" "$2" >/dev/null 2>&1; }

# stat NAME: one counter from `bloomblock stats -j`
stat() { bb stats -j | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
