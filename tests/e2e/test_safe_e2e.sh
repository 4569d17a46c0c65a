#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Safe to run at 3 a.m. (issue 27): no command removes or changes a file it did not create
# (a foreign file in --state-dir and --pin-dir survives unload, unload --all, a failed load
# and a killed load; the state files are the owner's alone); what add prints is what it did
# (a refused commit says "not added" for every item, naming the kind the filter has no room
# for; a typo changes nothing); check names the entry that matched; a state directory given
# to load is found by every later command from the pin dir alone; ip netns exec is explained.
# TAP output; root needed (else skipped; a skip fails under CI=true).
#
#   dut namespace: bbd0  198.51.100.1   <- bloomblock at XDP
#   src namespace: bbs0  198.51.100.2, .3
# shellcheck disable=SC2016  # jq programs
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "needs jq (scripts/install-deps.sh installs it)"
e2e_begin

LIST=$BB_TMP/block.txt
{
	echo "# safe e2e: addresses and names, no URL; filled to its plan by many names"
	echo 203.0.113.0/24
	echo tracker.example
	echo evil.example
	seq -f 'n%g.filler.example' 1 20000
} >"$LIST"
tracker_line=$(grep -n '^tracker.example$' "$LIST" | cut -d: -f1)

# ---- foreign files in the state and pin directories ---------------------------------------
S=$BB_TMP/state	# a directory the user made, with a file of theirs in it
mkdir -m 0755 "$S"
echo precious >"$S/keepme.txt"
sb() { bb --state-dir "$S" "$@"; }

run sb load "$LIST" -i bbd0
check_rc "load --state-dir DIR (a directory of the user's) exits 0" 0
# a pin of someone else's in the pin dir: a map pinned there by hand
bpftool map create "$BB_PIN_DIR/theirs" type array key 4 value 4 entries 1 name theirs >/dev/null 2>&1
check "... and a foreign pin sits beside the instance's" test -e "$BB_PIN_DIR/theirs"
run sb status -j
check_rc "status still opens the instance with a foreign pin in its directory" 0

check_eq "the state files are the owner's alone: none readable or writable by others" \
	"$(find "$S" -type f ! -name keepme.txt -perm /077 | wc -l)" 0
check_eq "... and the user's directory keeps its own mode" "$(stat -c %a "$S")" 755

run sb unload -i bbd0
check_rc "unload -i bbd0 (the last interface) exits 0" 0
check "... and keepme.txt survives it" test "$(cat "$S/keepme.txt" 2>/dev/null)" = precious

run sb load "$LIST" -i bbd0
check_rc "load again into the same directories exits 0" 0
run sb unload --all
check_rc "unload --all exits 0" 0
check "... keepme.txt survives unload --all" test "$(cat "$S/keepme.txt" 2>/dev/null)" = precious
check "... and so does the directory it is in" test -d "$S"
check_eq "... which holds nothing of bloomblock's any more" "$(ls -A "$S")" keepme.txt
check "... the foreign pin survives unload --all" test -e "$BB_PIN_DIR/theirs"
check "... and so does the pin directory that holds it" test -d "$BB_PIN_DIR"
check_eq "... which holds nothing of bloomblock's any more" "$(ls -A "$BB_PIN_DIR")" theirs

# a failed first load (a list that does not exist) leaves nothing of its own either
run sb load "$BB_TMP/no-such-list.txt" -i bbd0
check_rc "a first load of a missing list exits 1" 1
check_eq "... and leaves only what was there before in the state directory" "$(ls -A "$S")" \
	keepme.txt
check_eq "... and in the pin directory" "$(ls -A "$BB_PIN_DIR")" theirs

# a killed first load: the next command to take the lock sweeps, unload --all removes
run env BB_FAULT=swap timeout "$BB_TIMEOUT" nsenter --net="/run/netns/$NS_DUT" "$BB" \
	--pin-dir "$BB_PIN_DIR" --state-dir "$S" load "$LIST" -i bbd0
check_rc "a first load killed at its swap (SIGKILL)" 137
run sb unload --all
check_rc "... then unload --all exits 0" 0
check "... and keepme.txt survives the killed load and the unload" \
	test "$(cat "$S/keepme.txt" 2>/dev/null)" = precious
check_eq "... the state directory holds only it" "$(ls -A "$S")" keepme.txt
check_eq "... the pin directory only the foreign pin" "$(ls -A "$BB_PIN_DIR")" theirs
rm -f "$BB_PIN_DIR/theirs"

# a state directory bloomblock made is removed with the instance, its parents are not
M=$BB_TMP/made/state
run bb --state-dir "$M" load "$LIST" -i bbd0
check_rc "load --state-dir DIR (a directory that does not exist yet) exits 0" 0
check_eq "... the directory it made is the owner's alone (0700)" "$(stat -c %a "$M")" 700
run bb --state-dir "$M" unload --all
check "... unload --all removes the directory it made" test ! -e "$M"
check "... and not the parent it did not" test -d "$BB_TMP/made"

# ---- a state directory given once is found from the pin dir -------------------------------
run bb --state-dir "$S" load "$LIST" -i bbd0
check_rc "load --state-dir DIR exits 0" 0
run bb status -j
check_rc "status -j given only the pin dir exits 0" 0
check_eq "... and reads what the load wrote in DIR (its lists)" \
	"$(jq -r '.loaded.lists[0] // empty' <<<"$out")" "$LIST"
run bb allow 203.0.113.77
check_rc "allow given only the pin dir exits 0" 0
check "... and keeps the item in DIR's allow.list" grep -qx 203.0.113.77 "$S/allow.list"
run bb --state-dir "$BB_TMP/other" load "$LIST"
check_rc "a load with another --state-dir is refused" 1
check_match "... naming the directory the instance keeps its state in" "keeps its state in $S" "$err"
check "... and makes no other state directory" test ! -e "$BB_TMP/other"

# ---- add says what it did ----------------------------------------------------------------
run bb add 198.51.100.2 http://ok.example/bad/
check_rc "add ADDRESS URL to a filter without URLs: refused, exit 1" 1
check_no_match "... and no item is said to be added" ': added' "$out"
check_match "... the address is 'not added'" '^198.51.100.2: not added' "$out"
check_match "... the URL is 'not added', naming URLs and --room" \
	'^http://ok.example/bad/: not added: .*no URLs.*--room urls' "$out"
run bb check 198.51.100.2
check_rc "... and check says the address is not listed" 1
run bb -j add 198.51.100.2 http://ok.example/bad/
check_eq "add -j: each item's result is 'not added', done false" \
	"$(jq -c '[.[] | [.result, .done]] | unique' <<<"$out")" '[["not added",false]]'

run bb add --bogus 203.0.113.2
check_rc "add --bogus 203.0.113.2: a usage error" 2
check_match "... saying --bogus is not an option" 'bogus is not an option' "$err"
run bb add 198.51.100.9 1
check_rc "add 198.51.100.9 1 ('1' is no item): a usage error" 2
check_no_match "... which prints no 'added'" 'added' "$out"
run bb check 198.51.100.9
check_rc "... and 198.51.100.9 is not listed" 1
run bb add 198.51.100.9
check_rc "add 198.51.100.9 exits 0" 0
check_match "... and says added" '^198.51.100.9: added' "$out"
run bb add 198.51.100.9
check_match "add of it again: listed already" '^198.51.100.9: listed already' "$out"

run bb load "$LIST" --room urls
check_rc "load --room urls (the same list) exits 0" 0
run bb add http://ok.example/bad/
check_rc "... now a URL can be added live" 0
check_match "... and add says added" '^http://ok.example/bad/: added' "$out"
run bb check http://ok.example/bad/page
check_rc "... and check finds the request under it listed" 0
run bb load "$LIST"
check_rc "a reload without --room (nor the URL added live) exits 0" 0
run bb add http://ok.example/other/
check_rc "... it keeps the room: a URL is added live again" 0

# ---- check names the entry that matched ---------------------------------------------------
run bb check ads.tracker.example
check_rc "check ads.tracker.example exits 0" 0
check_match "... names the entry that matched, the parent, and its line" \
	"^ads.tracker.example: listed: tracker.example \\($LIST:$tracker_line\\)" "$out"
run bb -j check ads.tracker.example 203.0.113.9
check_eq "check -j: .matched is the parent name and the /24" \
	"$(jq -c '[.[].matched]' <<<"$out")" '["tracker.example","203.0.113.0/24"]'

# ---- ip netns exec is explained -------------------------------------------------------------
run timeout "$BB_TIMEOUT" ip netns exec "$NS_DUT" "$BB" --pin-dir "$BB_PIN_DIR" status
check_rc "status under ip netns exec (a /sys of its own) exits 1" 1
check_match "... and says to use nsenter --net=/run/netns/NAME" \
	"nsenter --net=/run/netns/$NS_DUT" "$err"
check_no_match "... never to mount a bpffs there" 'mount -t bpf' "$err"

tap_done
