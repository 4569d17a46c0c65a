#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End to end, feeds: bloomblock run --config with lists given by URL, fetched from a
# local HTTP server (tests/tools/feedsrv.c) in the source namespace that misbehaves on
# purpose. A feed is fetched at start and its copy loaded; a refresh sends a
# conditional request and a 304 makes no new generation; a changed feed is loaded; a
# 500, a connection dropped midway (with and without a Content-Length), a tiny file,
# a stalled server and a file over feed_max_size (announced, or counted as it comes)
# each keep the feed's last good copy (the other feeds still update), and status and
# the metrics say it is stale and since when; a good fetch makes it fresh again; a
# 200 of the same bytes is no change; a server that sends Last-Modified and no ETag
# is asked with If-Modified-Since alone and its 304 is no change; a feed never
# fetched is left out and said; a restart asks with the ETag it kept. The reload guard:
# a 200 whose body is an HTML page, binary data, a JSON error body or text that mostly
# does not read keeps the last good copy (feeds.json, status and the metrics name the
# check); a list file of the config's replaced by an error page: the load refused, the
# filter kept, status and the metrics say so until a load goes through. TAP output; root.
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

case ${BB_OUTPUT:-.output} in
/*) FEEDSRV=${FEEDSRV:-${BB_OUTPUT}/tests/feedsrv} ;;
*) FEEDSRV=${FEEDSRV:-$BB_ROOT/${BB_OUTPUT:-.output}/tests/feedsrv} ;;
esac
[ -x "$FEEDSRV" ] || skip_all "$FEEDSRV is not built (make tests)"	# a failure under CI

e2e_begin

WWW=$BB_TMP/www
SRV_LOG=$BB_TMP/feedsrv.log
CONF=$BB_TMP/feeds.conf
URL=http://198.51.100.2:8080
mkdir -p "$WWW"
: >"$SRV_LOG"

# names FILE FROM TO DOMAIN: a plain list of hFROM..hTO.DOMAIN
names() { seq "$2" "$3" | sed "s/^/h/; s/\$/.$4/" >"$1"; }
names "$WWW/a.txt" 1 1000 bad.example
names "$WWW/b.txt" 1 200 other.test
printf '203.0.113.9\n' >"$BB_TMP/local.txt"

# the server in the source namespace: the daemon fetches across the veth
in_src timeout 300 "$FEEDSRV" 198.51.100.2 8080 "$WWW" "$SRV_LOG" 300 >/dev/null 2>&1 &
for _ in $(seq 1 50); do
	in_dut bash -c 'exec 3<>/dev/tcp/198.51.100.2/8080' 2>/dev/null && break
	sleep 0.1
done

{
	printf '[instance]\ninterface = bbd0\nhook = xdp\nmode = drop\npin_dir = %s\n' "$BB_PIN_DIR"
	printf 'list = %s/a.txt\nlist = %s/b.txt\nlist = %s/never.txt\nlist = %s\n' \
		"$URL" "$URL" "$URL" "$BB_TMP/local.txt"
	printf 'refresh = 2s\nfeed_retries = 1\nfeed_retry_wait = 1s\nfeed_timeout = 3s\n'
	printf 'feed_max_shrink = 20%%\nfeed_max_size = 64K\nmetrics = off\n'
} >"$CONF"

daemon='' dpid=''
start_daemon() {
	: >"$BB_TMP/run.log"
	timeout -k 10 240 nsenter --net="/run/netns/$NS_DUT" "$BB" run --config "$CONF" \
		>>"$BB_TMP/run.log" 2>&1 &
	daemon=$!
	for _ in $(seq 1 150); do
		if grep -q '^<6>serving /sys' "$BB_TMP/run.log"; then
			dpid=$(pgrep -P "$daemon" | head -n 1)
			return 0
		fi
		sleep 0.1
	done
	cat "$BB_TMP/run.log"
	return 1
}
# stop_daemon: SIGTERM, then until it is gone (10 s at most); ok if it said it stopped
stop_daemon() {
	[ -n "$dpid" ] && kill -TERM "$dpid" 2>/dev/null
	for _ in $(seq 1 100); do
		kill -0 "$dpid" 2>/dev/null || break
		sleep 0.1
	done
	grep -q '^<6>stopped (SIGTERM)' "$BB_TMP/run.log"
}
generation() { bb_status '.filter.generation'; }
REFRESH_RE='^<6>refresh [0-9]+( \([0-9.]+ s\))?:'	# "refresh 3 (0.004 s): ..." or "refresh 4: ..."
# wait_refresh: until the daemon logs one more refresh than it had (20 s at most)
wait_refresh() {
	local before
	before=$(grep -Ec "$REFRESH_RE" "$BB_TMP/run.log")
	for _ in $(seq 1 200); do
		[ "$(grep -Ec "$REFRESH_RE" "$BB_TMP/run.log")" -gt "$before" ] && return 0
		sleep 0.1
	done
	return 1
}
last_refresh() { grep -E "$REFRESH_RE" "$BB_TMP/run.log" | tail -n 1; }
feed() { jq -r --arg u "$URL/$1" ".feeds[] | select(.url == \$u) | $2" "$BB_STATE_DIR/feeds.json"; }
served() { grep -c "^$1 " "$SRV_LOG"; }
metrics() { bb stats --prometheus; }

# ---- start -------------------------------------------------------------------------------
start_daemon >"$BB_TMP/start.out"
check_eq "run starts with two feeds, a missing one and a local list" "$?" 0
check_match "the start fetched both feeds" '^<6>start: feeds: 2 updated, 0 unchanged, 1 failed' \
	"$(cat "$BB_TMP/run.log")"
check_match "the missing feed is said: HTTP 404, left out" \
	'feed .*/never.txt: HTTP 404: no copy of it yet, so it is left out' "$(cat "$BB_TMP/run.log")"
check_eq "the server saw one GET of a.txt" "$(served a.txt)" 1
gen=$(generation)
check_ge "a filter is live" "$gen" 1
run bb check h500.bad.example
check_match "a name of feed a is listed, from its copy" 'listed.*feeds/[0-9a-f]{8}-a\.txt:500' "$out"
run bb check h7.other.test
check_match "a name of feed b is listed" 'listed.*feeds/[0-9a-f]{8}-b\.txt:7' "$out"
run bb check 203.0.113.9
check_match "the local list is loaded beside them" 'listed' "$out"
check_eq "feeds.json: a has 1000 entries" "$(feed a.txt .entries)" 1000
check_eq "feeds.json: a's ETag kept" "$(feed a.txt '.etag | length > 2')" true
check_eq "feeds.json: never.txt failed, no copy" "$(feed never.txt .result)" failed
run bb status
check_match "status: feed a fresh" "feed +$URL/a.txt: fresh: 1000 entries" "$out"
check_match "status: never.txt has no copy" "feed +$URL/never.txt: NO COPY YET .*HTTP 404" "$out"
check_match "status: the last reload (start) ok" 'reloads +the last at .* \(start\): ok; 1 ok, 0 failed' "$out"
run bb status -j
check_eq "status -j: feeds[] with stale flags" "$(jq -r '[.feeds[].stale] | join(",")' <<<"$out")" \
	"false,false,true"

# ---- a refresh: conditional, 304, no rebuild ----------------------------------------------
check "a refresh comes" wait_refresh
check_match "... a 304 for a.txt, asked with its ETag" '^a.txt ok 304 inm="' "$(cat "$SRV_LOG")"
check_match "... nothing to load" 'no list changed: nothing to load' "$(last_refresh)"
check_eq "... no new generation" "$(generation)" "$gen"
check_eq "... feeds.json: a unchanged" "$(feed a.txt .result)" unchanged

# ---- a server with no validators: the same bytes again are no change ----------------------
echo plain >"$WWW/b.txt.mode"
wait_refresh && wait_refresh
check_match "a 200 without ETag or Last-Modified for b.txt" '^b.txt plain 200' "$(cat "$SRV_LOG")"
check_eq "... the same bytes: feeds.json says unchanged" "$(feed b.txt .result)" unchanged
check_match "... nothing to load" 'no list changed: nothing to load' "$(last_refresh)"
check_eq "... no new generation" "$(generation)" "$gen"

# ---- Last-Modified and no ETag: If-Modified-Since alone --------------------------------------
echo lastmod >"$WWW/b.txt.mode"
for _ in 1 2 3 4; do
	wait_refresh
	grep -q '^b.txt lastmod 304 ' "$SRV_LOG" && break
done
check_match "a 200 with Last-Modified and no ETag for b.txt" '^b.txt lastmod 200 ' "$(cat "$SRV_LOG")"
check_match "... then a request with If-Modified-Since alone, answered 304" \
	'^b.txt lastmod 304 inm= ims=[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9:]{8} GMT$' \
	"$(cat "$SRV_LOG")"
check_eq "... feeds.json: no ETag, the Last-Modified kept" \
	"$(feed b.txt '"\(.etag == "") \(.last_modified | test("GMT$"))"')" "true true"
check_eq "... the 304: unchanged" "$(feed b.txt .result)" unchanged
check_match "... nothing to load" 'no list changed: nothing to load' "$(last_refresh)"
check_eq "... no new generation" "$(generation)" "$gen"
rm -f "$WWW/b.txt.mode"

# ---- a changed feed is loaded ------------------------------------------------------------
names "$WWW/a.txt" 1 1100 bad.example
check "a refresh after a.txt grew" wait_refresh
check_match "... lists changed: loading" 'feeds: 1 updated, 1 unchanged, 1 failed; lists changed' \
	"$(last_refresh)"
sleep 0.5
for _ in $(seq 1 50); do [ "$(generation)" != "$gen" ] && break; sleep 0.2; done
gen2=$(generation)
check_ne "... a new generation" "$gen2" "$gen"
run bb check h1050.bad.example
check_match "... a name only the new copy has is listed" 'listed' "$out"
keys=$(bb_status '.filter.keys')

# bad_fetch NAME PATTERN: the feed a.txt, set up to fail by the caller, is stale after a
# refresh with an error matching PATTERN, keeps its copy, and b.txt still updates
bad_fetch() {
	local name=$1 pat=$2 g
	g=$(generation)
	names "$WWW/b.txt" 1 "$((b_n += 10))" other.test
	wait_refresh && wait_refresh
	check_eq "$name: feed a is stale" "$(feed a.txt '.stale_since > 0')" true
	check_match "$name: its error said" "$pat" "$(feed a.txt .error)"
	check_match "$name: the daemon said its last good copy stays" \
		"feed $URL/a.txt: .*$pat.*its last good copy stays" "$(cat "$BB_TMP/run.log")"
	run bb check h1050.bad.example
	check_match "$name: a's entries stay listed" 'listed' "$out"
	run bb check "h$b_n.other.test"
	check_match "$name: feed b updated meanwhile" 'listed' "$out"
	check_ne "$name: ... with a new generation" "$(generation)" "$g"
	check_ge "$name: the filter is not emptier" "$(bb_status '.filter.keys')" "$keys"
	check_eq "$name: a's copy still has 1100 entries" "$(feed a.txt .entries)" 1100
}
b_n=200

# ---- 500 ------------------------------------------------------------------------------------
echo 500 >"$WWW/a.txt.mode"
bad_fetch "HTTP 500" 'HTTP 500'
check_ge "HTTP 500: retried (two GETs a refresh)" "$(grep -c '^a.txt 500 500' "$SRV_LOG")" 2
since=$(feed a.txt .stale_since)
run bb status
check_match "status: feed a STALE since, with the error" \
	"feed +$URL/a.txt: STALE since .* failed fetch.*HTTP 500\\); its last good copy stays \\(1100 entries" "$out"
run metrics
check_match "metrics: bloomblock_feed_stale 1 for a" \
	"^bloomblock_feed_stale\\{list=\"$URL/a.txt\"\\} 1\$" "$out"
check_match "metrics: ... 0 for b" "^bloomblock_feed_stale\\{list=\"$URL/b.txt\"\\} 0\$" "$out"
check_match "metrics: stale since, as a timestamp" \
	"^bloomblock_feed_stale_since_timestamp_seconds\\{list=\"$URL/a.txt\"\\} $since\$" "$out"
check_match "metrics: feed age of a" "^bloomblock_feed_age_seconds\\{list=\"$URL/a.txt\"\\} [0-9]+\$" "$out"
check_match "metrics: the last reload succeeded" '^bloomblock_last_reload_success 1$' "$out"
check_match "metrics: reloads counted" '^bloomblock_reloads_total\{result="ok"\} [0-9]+$' "$out"
if command -v promtool >/dev/null; then
	check "promtool check metrics passes on the feed metrics" \
		bash -c "$(printf '%q ' timeout 20 nsenter --net="/run/netns/$NS_DUT" "$BB" \
			--pin-dir "$BB_PIN_DIR" stats --prometheus) | promtool check metrics"
else
	tap_skip "promtool check metrics" "promtool is not installed (scripts/install-deps.sh)"
fi

# ---- a connection dropped midway, with a Content-Length --------------------------------
echo drop >"$WWW/a.txt.mode"
bad_fetch "dropped midway" 'cut short'
check_eq "dropped midway: stale since the first failure still" "$(feed a.txt .stale_since)" "$since"

# ---- dropped without a Content-Length: only the shrink check can tell -----------------
echo dropraw >"$WWW/a.txt.mode"
bad_fetch "dropped, no length" 'shrank from 1100 to [0-9]+ entries, more than feed_max_shrink \(20%\)'

# ---- a tiny file (an error page with a 200) ------------------------------------------------
echo ok >"$WWW/a.txt.mode"
cp "$WWW/a.txt" "$BB_TMP/a.good"
printf 'h1.bad.example\nh2.bad.example\n' >"$WWW/a.txt"
bad_fetch "a tiny file" 'shrank from 1100 to 2 entries'
check_eq "a tiny file: feeds.json: refused by the shrink check" "$(feed a.txt .refused)" shrink

# ---- the reload guard's checks: a 200 whose body is no list, or mostly does not read -----------
printf '<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head><body>down</body></html>\n' \
	>"$WWW/a.txt"
bad_fetch "an HTML page with a 200" 'refused: an HTML page, titled "503 Service Unavailable", not a list'
check_eq "an HTML page: feeds.json names the check" "$(feed a.txt .refused)" html
run metrics
check_match "an HTML page: metrics: bloomblock_feed_refused 1 for a" \
	"^bloomblock_feed_refused\\{list=\"$URL/a.txt\"\\} 1\$" "$out"
check_match "... 0 for b" "^bloomblock_feed_refused\\{list=\"$URL/b.txt\"\\} 0\$" "$out"
run bb status
check_match "an HTML page: status: feed a STALE, refused as an HTML page, its last copy stays" \
	"feed +$URL/a.txt: STALE since .*refused: an HTML page.*its last good copy stays \\(1100 entries" \
	"$out"
printf 'h1.bad.example\n\0\0\0\0binary\n' >"$WWW/a.txt"
bad_fetch "binary data with a 200" \
	'refused: binary data \(4 NUL bytes, the first at offset 15\), not a list'
check_eq "binary data: feeds.json names the check" "$(feed a.txt .refused)" binary
printf '{"message": "Bad credentials", "documentation_url": "https://docs.example/"}\n' \
	>"$WWW/a.txt"
bad_fetch "a JSON error body with a 200" 'refused: a JSON error body, message "Bad credentials", not a list'
check_eq "a JSON error body: feeds.json names the check" "$(feed a.txt .refused)" json_error
printf 'Service Unavailable\nretry later, please\nForbidden\nh1.bad.example\n' >"$WWW/a.txt"
bad_fetch "text that mostly does not read" \
	'refused: 3 of its 4 lines that are not blank or comments \(75%, more than half\) do not read as plain'
check_eq "... feeds.json names the check" "$(feed a.txt .refused)" rejects

# ---- a stalled server: the timeout ------------------------------------------------------------
echo stall >"$WWW/a.txt.mode"
bad_fetch "a stalled server" 'Timeout was reached'

# ---- larger than feed_max_size (64K): announced, and counted as it comes -------------------------
echo ok >"$WWW/a.txt.mode"
names "$WWW/a.txt" 1 5000 bad.example	# ~93 KB
bad_fetch "over feed_max_size, announced" 'larger than feed_max_size \(65536 bytes\)'
echo nolength >"$WWW/a.txt.mode"
bad_fetch "over feed_max_size, no length" 'larger than feed_max_size \(65536 bytes\)'
check_match "over feed_max_size, no length: the server sent it (no Content-Length)" \
	'^a.txt nolength 200 ' "$(cat "$SRV_LOG")"
check_fails "over feed_max_size: no partial copy left beside the feed's" \
	compgen -G "$BB_STATE_DIR/feeds/*.part"
run bb check h4000.bad.example
check_match "over feed_max_size: none of its names loaded" 'not listed' "$out"

# ---- fresh again --------------------------------------------------------------------------------
echo ok >"$WWW/a.txt.mode"
names "$WWW/a.txt" 1 1200 bad.example
check "a refresh after the server is good again" wait_refresh
for _ in $(seq 1 50); do [ "$(feed a.txt .stale_since)" = 0 ] && break; sleep 0.2; done
check_eq "feed a fresh again" "$(feed a.txt .stale_since)" 0
check_match "the daemon said so" "feed $URL/a.txt: fresh again after [0-9]+ failed fetches" \
	"$(cat "$BB_TMP/run.log")"
wait_refresh
run bb check h1150.bad.example
check_match "the new copy is loaded" 'listed' "$out"
run metrics
check_match "metrics: a no longer stale" "^bloomblock_feed_stale\\{list=\"$URL/a.txt\"\\} 0\$" "$out"
check_match "metrics: a's entries" "^bloomblock_feed_entries\\{list=\"$URL/a.txt\"\\} 1200\$" "$out"

# ---- a list file the daemon reads, replaced by an error page: the load refused -----------------
gen=$(generation)
cp "$BB_TMP/local.txt" "$BB_TMP/local.good"
printf '<html><head><title>Moved</title></head><body></body></html>\n' >"$BB_TMP/local.txt"
wait_log '^<3>refused: .*local\.txt: it is an HTML page, not a list'
check_eq "a list file become an HTML page: the daemon's load refused, saying so" "$?" 0
check_eq "... no new generation" "$(generation)" "$gen"
run bb check 203.0.113.9
check_match "... what the list held stays listed" 'listed' "$out"
run bb status
check_match "... status: the last load refused, the filter before it stays" \
	'^refused +the last load, at .*local\.txt: an HTML page, titled "Moved", not a list; the filter before it stays$' \
	"$out"
check_match "... status: the daemon's last reload failed" 'reloads +the last at .*: FAILED, the filter before stays' "$out"
check_eq "... status -j: refused by the html check" "$(bb_status .refused.check)" html
run metrics
check_match "... metrics: bloomblock_reload_refused{check=\"html\"} 1" \
	'^bloomblock_reload_refused\{check="html"\} 1$' "$out"
check_match "... metrics: the last reload did not succeed" '^bloomblock_last_reload_success 0$' "$out"
cp "$BB_TMP/local.good" "$BB_TMP/local.txt"
for _ in $(seq 1 100); do [ "$(bb_status .refused)" = null ] && break; sleep 0.2; done
check_eq "the list good again: loaded, and no refused load said" "$(bb_status .refused)" null
run metrics
check_match "... metrics: bloomblock_reload_refused{check=\"html\"} 0" \
	'^bloomblock_reload_refused\{check="html"\} 0$' "$out"

# ---- no server at all: every feed fails, nothing is loaded, nothing is lost ----------------
gen=$(generation)
keys=$(bb_status '.filter.keys')
pkill -f "feedsrv 198.51.100.2 8080 $WWW"; sleep 0.2
wait_refresh && wait_refresh
check_match "no server: every feed failed" 'feeds: 0 updated, 0 unchanged, 3 failed; no list changed' \
	"$(last_refresh)"
check_eq "no server: no new generation" "$(generation)" "$gen"
check_eq "no server: the same keys" "$(bb_status '.filter.keys')" "$keys"
run bb check h1150.bad.example
check_match "no server: a's entries stay listed" 'listed' "$out"
in_src timeout 300 "$FEEDSRV" 198.51.100.2 8080 "$WWW" "$SRV_LOG" 300 >/dev/null 2>&1 &
sleep 0.3

# ---- a restart asks with the ETag it kept --------------------------------------------------
check "SIGTERM stops it" stop_daemon
lines=$(wc -l <"$SRV_LOG")
start_daemon >"$BB_TMP/start.out"
check_eq "run starts again" "$?" 0
check_match "... its first fetch of a.txt is conditional: 304" \
	'^a.txt ok 304 inm="' "$(tail -n +"$((lines + 1))" "$SRV_LOG" | grep '^a.txt' | head -n 1)"
check_match "... start: a unchanged" '^<6>start: feeds: 0 updated, 2 unchanged, 1 failed' \
	"$(cat "$BB_TMP/run.log")"
run bb check h1150.bad.example
check_match "... its copy is loaded" 'listed' "$out"
check "SIGTERM stops it cleanly" stop_daemon

tap_done
