#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One exit-status rule for every command (issue 27): 0 ok, 1 error, 2 usage. A table of
# every command against --help, an option it does not know, a missing value, as root with
# nothing loaded, and as a user who is not root. A usage error is one line and "see
# bloomblock CMD --help", never the whole help. No traffic: no namespace is made.
# TAP output; root needed (else skipped; a skip fails under CI=true).
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_root_bpf
command -v setpriv >/dev/null || skip_all "needs setpriv (util-linux)"
BB_TMP=$(mktemp -d /tmp/bbexit.XXXXXX)
trap 'rm -rf "$BB_TMP"; rm -rf "${BB_PIN_DIR:?}"' EXIT
chmod 755 "$BB_TMP"

commands="load build info unload status stats check events top allow disallow add del run plan"

bbx() { timeout "$BB_TIMEOUT" "$BB" --pin-dir "$BB_PIN_DIR" "$@"; }
nobody() {
	timeout "$BB_TIMEOUT" setpriv --reuid=65534 --regid=65534 --clear-groups "$BB" \
		--pin-dir "$BB_PIN_DIR" "$@"
}

# ---- every command: --help 0, an unknown option 2 in one line, a missing value 2 ---------
for c in $commands; do
	run bbx "$c" --help
	check_rc "$c --help exits 0" 0
	check_match "... its usage on stdout" "^Usage: bloomblock $c" "$out"
	run bbx "$c" --no-such-option
	check_rc "$c --no-such-option exits 2" 2
	check_eq "... two lines on stderr: what, and see --help" \
		"$(printf '%s\n' "$err" | wc -l) $(printf '%s\n' "$err" | tail -n 1)" \
		"2 see bloomblock $c --help"
	check_no_match "... and no help on stdout" . "$out"
done
for c in "load --fp" "build --fp" "stats --watch" "events --count" "top --interval" "plan -n" \
	 "add --max-fp" "run --config" "unload -i"; do
	# shellcheck disable=SC2086  # the command and its option are words
	run bbx $c
	check_rc "$c (its value missing) exits 2" 2
	check_match "... saying it needs a value" 'needs a value' "$err"
done
run bbx load --fp 2 x.txt
check_rc "load --fp 2 (out of range) exits 2" 2
check_eq "... one line and see --help" "$(printf '%s\n' "$err" | wc -l)" 2
run "$BB" --no-such-global status
check_rc "an unknown global option before the command exits 2" 2
run "$BB" no-such-command
check_rc "an unknown command exits 2" 2
run bbx stats -j --pin-dir "$BB_PIN_DIR"
check_rc "global options after the command are read (stats -j --pin-dir, nothing loaded)" 1
check_match "... and -j took: the error as JSON" '^\{"error":' "$out"

# ---- as root, nothing loaded: an error (1) for what needs an instance ---------------------
printf '198.51.100.7\n' >"$BB_TMP/list.txt"
for c in status stats "check 198.51.100.7" events top "allow 198.51.100.7" \
	 "disallow 198.51.100.7" "add 198.51.100.7" "del 198.51.100.7" run "info $BB_TMP/none.bbf"; do
	# shellcheck disable=SC2086
	run bbx $c
	check_rc "root, nothing loaded: $c exits 1" 1
done
run bbx unload --all
check_rc "root, nothing loaded: unload --all exits 0 (nothing to do is no error)" 0
run bbx plan -n 1000
check_rc "root: plan -n 1000 exits 0" 0
run bbx build "$BB_TMP/list.txt" -o "$BB_TMP/list.bbf"
check_rc "root: build LIST -o FILE exits 0" 0
run bbx info "$BB_TMP/list.bbf"
check_rc "root: info FILE exits 0" 0
run bbx load "$BB_TMP/no-such-list.txt"
check_rc "root: load of a missing list exits 1" 1
check "... and leaves no pin directory" test ! -e "$BB_PIN_DIR"
# a kernel that lacks a helper the programs call (BB_TEST_LACKS: the probe says so)
run env BB_TEST_LACKS='bpf_loop()' timeout "$BB_TIMEOUT" "$BB" --pin-dir "$BB_PIN_DIR" \
	load "$BB_TMP/list.txt"
check_rc "root: load on a kernel without bpf_loop() exits 1" 1
check_match "... naming the helper, this kernel and the Linux version that has it" \
	"this kernel \\($(uname -r | sed 's/[.+]/\\&/g')\\) lacks bpf_loop\\(\\), .*Linux 5\\.17 or later" "$err"
check "... and leaves no pin directory" test ! -e "$BB_PIN_DIR"

# ---- not root: an error (1) for every command that needs root; plan, build, info do not ----
for c in "load $BB_TMP/list.txt" "unload --all" status stats "check 198.51.100.7" events top \
	 "allow 198.51.100.7" "disallow 198.51.100.7" "add 198.51.100.7" "del 198.51.100.7" run; do
	# shellcheck disable=SC2086
	run nobody $c
	check_rc "not root: $c exits 1" 1
	check_match "... and says it needs root" 'needs root' "$err"
done
run nobody plan -n 1000
check_rc "not root: plan -n 1000 exits 0" 0
mkdir -m 0777 "$BB_TMP/nobody"
run nobody build "$BB_TMP/list.txt" -o "$BB_TMP/nobody/list.bbf"
check_rc "not root: build into a directory it may write exits 0" 0
run nobody info "$BB_TMP/list.bbf"
check_rc "not root: info exits 0" 0
run nobody add --bogus 198.51.100.7
check_rc "not root: a usage error is still 2 (the command line is read first)" 2

tap_done
