#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End to end, the reload guard: a live filter of 2,000 names (4,000 keys) on a veth, and
# `load` given what a cron job's failed download leaves in its list's place: an HTML
# error page, a truncated file, binary data, a JSON error body, text that mostly does
# not read. Each is refused with a message saying which check and by how much, the live
# filter as it was (status -j: generation and keys; check: a listed name still listed),
# and status, status -j and /metrics' text say the last load was refused, by what.
# --allow-shrink lets a deliberate shrink through (never an HTML page or binary data),
# and a load that goes through clears the record. What is no shrink is not refused: a
# hosts file of mostly comments and preamble, an Adblock list of mostly rules the filter
# cannot follow, a reload after live adds and dels. A first load of an HTML page fails
# too, saying it is one, and leaves nothing behind. TAP output; root.
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

e2e_begin

LIST=$BB_TMP/names.txt
seq 1 2000 | sed 's/^/h/; s/$/.bad.example/' >"$LIST"

generation() { bb_status .filter.generation; }
keys() { bb_status .filter.keys; }
metric() { bb stats --prometheus | awk -v m="$1" '$1 == m { print $2 }'; }

run bb load "$LIST" -i bbd0
check_rc "a live filter of 2000 names" 0
gen=$(generation)
check_eq "... 4000 keys (a name and its subdomains)" "$(keys)" 4000
check_eq "status -j: no refused load yet" "$(bb_status .refused)" null
check_eq "/metrics: bloomblock_reload_refused{check=\"shrink\"} 0" \
	"$(metric 'bloomblock_reload_refused{check="shrink"}')" 0

# refused NAME CHECK ERR-ERE FILE [ARGS...]: `load FILE ARGS` exits 1 saying ERR-ERE on
# stderr (kept in $said); the live filter as it was; status, status -j and /metrics say
# CHECK refused it
refused() {
	local name=$1 check=$2 pat=$3 file=$4
	shift 4
	run bb load "$file" "$@"
	check_rc "$name: refused (exit 1)" 1
	check_match "$name: says which and by how much" "$pat" "$err"
	said=$err
	check_eq "$name: the live filter unchanged (generation $gen)" "$(generation)" "$gen"
	check_eq "$name: ... its 4000 keys" "$(keys)" 4000
	run bb check h1500.bad.example
	check_match "$name: ... a listed name still listed" 'h1500\.bad\.example: listed' "$out"
	check_eq "$name: status -j: refused by the $check check" "$(bb_status .refused.check)" "$check"
	check_match "$name: status: the last load refused, the filter before it stays" \
		'^refused +the last load, at .*: .*; the filter before it stays$' "$(bb status)"
	check_eq "$name: /metrics: bloomblock_reload_refused{check=\"$check\"} 1" \
		"$(metric "bloomblock_reload_refused{check=\"$check\"}")" 1
}

# ---- an HTML error page -------------------------------------------------------------------
printf '<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head>\n<body>\n<h1>503</h1>\nevil.example\n</body></html>\n' \
	>"$BB_TMP/page.txt"
refused "an HTML page" html \
	'refused: .*page\.txt: it is an HTML page, not a list' "$BB_TMP/page.txt"
check_match "an HTML page: its reader names it by its title" \
	'page\.txt: an HTML page, titled "503 Service Unavailable", not a list' "$said"
check_no_match "an HTML page: never read in a format" 'page\.txt \((plain|adblock|hosts)' "$said"
check_match "an HTML page: status -j names the list" 'page\.txt$' "$(bb_status .refused.list)"

# ---- a truncated download: less than half the keys ----------------------------------------
head -c 9000 "$LIST" >"$BB_TMP/cut.txt"	# about 500 names, the last one cut
refused "a truncated list" shrink \
	"refused: the new filter keeps [0-9]+ of the live filter's 4000 keys \\([0-9]+\\.[0-9]%, less than half\\)" \
	"$BB_TMP/cut.txt"
check_match "a truncated list: says --allow-shrink loads it" '--allow-shrink loads it all the same' "$said"

# ---- binary data ---------------------------------------------------------------------------
python3 -c 'import sys, random; r = random.Random(7); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(3000)))' \
	>"$BB_TMP/junk.txt"
refused "binary data" binary \
	'refused: .*junk\.txt: it is binary data, not a list' "$BB_TMP/junk.txt"
check_match "binary data: reported as binary, where the NUL bytes are" \
	'junk\.txt: binary data \(([0-9]+ NUL bytes, the first|a NUL byte) at offset [0-9]+\), not a list' "$said"
check_no_match "binary data: never as a list format, no line escaped" \
	'junk\.txt( \(adblock|:[0-9]+: )' "$said"

# ---- a JSON error body ------------------------------------------------------------------------
printf '{"error": "API rate limit exceeded", "status": 429}\n' >"$BB_TMP/error.json"
refused "a JSON error body" json_error \
	'refused: .*error\.json: it is a JSON error body, not a list' "$BB_TMP/error.json"
check_match "a JSON error body: what it said" \
	'error\.json: a JSON error body, error "API rate limit exceeded", not a list' "$said"

# ---- text that mostly does not read: more than half the lines rejected ----------------------
{
	printf 'Traceback (most recent call last):\n  File "fetch.py", line 12, in <module>\n'
	printf 'ConnectionError: the mirror is down\nService Unavailable\nretry later, please\n'
	printf 'Forbidden\n404 Not Found\nh1.bad.example\nh2.bad.example\n'
} >"$BB_TMP/garbage.txt"
refused "mostly lines that do not read" rejects \
	'refused: .*garbage\.txt: 7 of its 9 lines that are not blank or comments \(78%, more than half\) do not read as plain' \
	"$BB_TMP/garbage.txt"
run bb -j load "$BB_TMP/garbage.txt"
check_match "-j: the refusal as the JSON error" '^\{"error":"refused: .*garbage\.txt: 7 of its 9 lines' "$out"

# ---- a shrink by more than half, a list that reads well --------------------------------------
head -n 600 "$LIST" >"$BB_TMP/small.txt"
refused "a shrink to 30%" shrink \
	"refused: the new filter keeps 1200 of the live filter's 4000 keys \\(30\\.0%, less than half\\)" \
	"$BB_TMP/small.txt"
refused "--strict too: its own rules unchanged, the shrink still checked" shrink \
	"refused: the new filter keeps 1200 of" "$BB_TMP/small.txt" --strict

# ---- --allow-shrink: a deliberate shrink goes through; never an HTML page or binary data --------
run bb load "$BB_TMP/page.txt" --allow-shrink
check_rc "--allow-shrink: an HTML page still refused" 1
check_match "... as an HTML page" 'it is an HTML page, not a list' "$err"
run bb load "$BB_TMP/junk.txt" --allow-shrink
check_rc "--allow-shrink: binary data still refused" 1
check_eq "... the live filter unchanged" "$(generation)" "$gen"
run bb load "$BB_TMP/small.txt" --allow-shrink
check_rc "--allow-shrink: the deliberate shrink loads" 0
check_match "... saying what it keeps" \
	"the new filter keeps 1200 of the live filter's 4000 keys \\(30\\.0%\\): loaded all the same \\(--allow-shrink\\)" \
	"$err"
check_eq "... a new generation" "$(generation)" "$((gen + 1))"
check_eq "... of 1200 keys" "$(keys)" 1200
run bb check h1500.bad.example
check_rc "... what left the list is no longer listed" 1
check_eq "a load that went through: status -j has no refused load" "$(bb_status .refused)" null
check_no_match "... status says none" '^refused ' "$(bb status)"
check_eq "... /metrics: bloomblock_reload_refused{check=\"shrink\"} 0" \
	"$(metric 'bloomblock_reload_refused{check="shrink"}')" 0
check_eq "... and its time 0" "$(metric bloomblock_reload_refused_timestamp_seconds)" 0

# ---- what is no shrink is not refused ---------------------------------------------------------
run bb load "$LIST"
check_rc "a list growing back: loads" 0
gen=$(generation)
{
	printf '# a hosts file: a long preamble, mostly comments\n'
	printf '127.0.0.1 localhost\n127.0.0.1 localhost.localdomain\n255.255.255.255 broadcasthost\n'
	printf '::1 localhost\n0.0.0.0 0.0.0.0\n'
	for i in $(seq 1 3000); do printf '# comment %d\n' "$i"; done
	sed 's/^/0.0.0.0 /' "$LIST"
} >"$BB_TMP/hosts.txt"
run bb load "$BB_TMP/hosts.txt"
check_rc "a hosts file of mostly comments and preamble: loads" 0
{
	printf '[Adblock Plus 2.0]\n! Title: rules the filter cannot follow, most of them\n'
	for i in $(seq 1 1500); do printf 's%d.example##.ad\n||t%d.example^$third-party\n' "$i" "$i"; done
	sed 's/^/||/; s/$/^/' "$LIST"
} >"$BB_TMP/adblock.txt"
run bb load "$BB_TMP/adblock.txt"
check_rc "an Adblock list of mostly cosmetic and option rules: loads" 0
check_match "... its rejects are not lines that fail to read" \
	'adblock\.txt \(adblock\): .* 3000 rejected \(options 1500, cosmetic 1500\)' "$err"

# live adds do not count: what a load must keep is what the last load built (adds last
# until the next load), and not what `del` took out either
run bb load "$LIST" --capacity 12000
check_rc "the list again, with room to add" 0
seq 1 3000 | sed 's/^/live/; s/$/.test/' >"$BB_TMP/live.txt"
run bb add -f "$BB_TMP/live.txt"
check_rc "3000 names added live" 0
check_eq "... 10000 keys live" "$(keys)" 10000
run bb load "$LIST"
check_rc "a reload of the list after live adds: loads (4000 of the 4000 keys its load built)" 0
check_eq "... 4000 keys" "$(keys)" 4000
head -n 1600 "$LIST" >"$BB_TMP/del.txt"
run bb del -f "$BB_TMP/del.txt"
check_rc "1600 names deleted live" 0
check_eq "... 800 keys left" "$(keys)" 800
tail -n 400 "$LIST" >"$BB_TMP/after-del.txt"	# what is left: 400 names, 800 keys
run bb load "$BB_TMP/after-del.txt"
check_rc "a reload of what the dels left: loads (800 of the 800 keys live)" 0

# ---- a first load: nothing to shrink from, the content checks hold -----------------------------
run bb unload --all
check_rc "unload --all" 0
run bb load "$BB_TMP/page.txt" -i bbd0
check_rc "a first load of an HTML page fails" 1
check_match "... saying it is one, not a list" 'page\.txt: an HTML page, titled "503 Service Unavailable", not a list' "$err"
check_match "... nothing was loaded" 'nothing was loaded' "$out$err"
check "... no pin dir left" test ! -e "$BB_PIN_DIR"
check "... no state directory left" test ! -e "$BB_STATE_DIR"
run bb load "$BB_TMP/garbage.txt" -i bbd0
check_rc "a first load of text that mostly does not read fails" 1
check_match "... saying how much does not read" '7 of its 9 lines .* do not read as plain' "$err"
run bb load "$BB_TMP/small.txt" -i bbd0
check_rc "a first load of a small list: nothing to shrink from" 0
run bb unload --all
check_rc "unload --all" 0

tap_done
