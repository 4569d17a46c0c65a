#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The CLI without traffic: help and usage errors, `plan`, the non-root refusal, and
# loading every real public list in ../shared/lists (BB_LISTS_DIR) onto a veth in a
# private namespace. TAP output. The parts that need root are skipped without it.
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
BB_LISTS_DIR=${BB_LISTS_DIR:-$BB_ROOT/../shared/lists}
BB_TMP=$(mktemp -d /tmp/bbcli.XXXXXX)
trap cleanup EXIT
trap 'exit 130' INT TERM

[ -x "$BB" ] || skip_all "build bloomblock first (make)"
command -v jq >/dev/null || skip_all "needs jq"
cli() { timeout "$BB_TIMEOUT" "$BB" "$@"; }

# ---- help and usage ----------------------------------------------------------------
run cli --help
check_rc "--help exits 0" 0
check_match "--help prints a usage line on stdout" '^Usage: bloomblock' "$out"
for cmd in load unload status stats check plan; do
	check_match "--help lists the command $cmd" "^  $cmd " "$out"
done
for cmd in load unload status stats check plan; do
	run cli $cmd --help
	check_rc "$cmd --help exits 0" 0
	check_match "$cmd --help prints its usage on stdout" "^Usage: bloomblock $cmd" "$out"
	run cli $cmd -h
	check_rc "$cmd -h exits 0" 0
done
run cli --version
check_rc "--version exits 0" 0
check_match "--version prints a version" '^bloomblock [0-9]+\.[0-9]+' "$out"

run cli frobnicate
check_rc "an unknown command exits 2" 2
check_match "... and names it" frobnicate "$err"
run cli
check_rc "no command exits 2" 2
run cli --no-such-option stats
check_rc "an unknown global option exits 2" 2
run cli stats --no-such-option
check_rc "an unknown command option exits 2" 2

# ---- plan ------------------------------------------------------------------------------
run cli plan -n 1000000
check_rc "plan -n 1000000 exits 0" 0
k=$(awk '$1 == "k" { print $2 }' <<<"$out")
bpi=$(awk '/^bits per item/ { print $4 }' <<<"$out")
pfpr=$(awk '/^predicted FPR/ { print $3 }' <<<"$out")
check_match "plan prints k" '^k +[0-9]+' "$out"
check "plan: k is between 1 and 16 (got '$k')" awk -v k="$k" 'BEGIN { exit !(k >= 1 && k <= 16) }'
check "plan: bits per item <= 16 at the default FPR (got '$bpi')" \
	awk -v b="$bpi" 'BEGIN { exit !(b > 0 && b <= 16) }'
check "plan: predicted FPR <= the default 0.001 (got '$pfpr')" \
	awk -v p="$pfpr" 'BEGIN { exit !(p > 0 && p <= 0.001) }'

run cli plan -n 1e6 --fp 0.01 -j
check_rc "plan -n 1e6 --fp 0.01 -j exits 0" 0
check "plan -j is valid JSON" jq -e . <<<"$out"
plan=$out
check_eq "plan -j: items" "$(jq -r .items <<<"$plan")" 1000000
check_eq "plan -j: target_fpr" "$(jq -r .target_fpr <<<"$plan")" 0.01
check_eq "plan -j: has k, blocks, bits, bytes, bits_per_item, fpr" \
	"$(jq -r '[.k, .blocks, .bits, .bytes, .bits_per_item, .fpr] | map(type) | unique | join(",")' <<<"$plan")" number
check "plan -j: predicted fpr <= target" jq -e '.fpr > 0 and .fpr <= .target_fpr' <<<"$plan"
check "plan -j: bits = blocks x 512" jq -e '.bits == .blocks * 512' <<<"$plan"
check "plan -j: fewer bits per item at 1% than at 0.1%" \
	awk -v a="$(jq -r .bits_per_item <<<"$plan")" -v b="$bpi" 'BEGIN { exit !(a < b) }'
run cli -j plan -n 10M
check_eq "-j before plan, and 10M" "$(jq -r .items <<<"$out" 2>&1)" 10000000
run cli plan -n 1000 --fp 0.1%
check_rc "plan --fp 0.1% (a percentage) exits 0" 0
run cli plan --fp 2
check_rc "plan --fp 2 exits 2" 2
check_match "plan --fp 2 says why" 'fp' "$err"
run cli plan -n 1000 --fp 0
check_rc "plan --fp 0 exits 2" 2
run cli plan -n abc
check_rc "plan -n abc exits 2" 2
run cli plan -n 1e30
check_rc "plan -n 1e30 exits 2" 2
check_match "... and says it is too many, not that it is no whole number" 'at most 10\^12' "$err"
run cli plan -n 1000 --fp 0.999
check_rc "plan --fp 0.999 exits 2" 2
check_match "... and says why" 'half of all unlisted items' "$err"
run cli plan -n 1000 --fp 0.1
check_rc "plan --fp 0.1 exits 0" 0
check_match "... with a warning" '^Warning: --fp 0.1: 10% of the unlisted items' "$err"
run cli plan
check_rc "plan without -n exits 2" 2

# ---- not root ------------------------------------------------------------------------------
if [ "$(id -u)" != 0 ]; then
	run cli stats
	check_rc "stats as non-root exits 1" 1
	check_match "... and says it needs root" root "$err"
	check_match "... and names the capabilities it lacks" 'lacks( CAP_[A-Z_]+)+' "$err"
elif command -v setpriv >/dev/null; then
	nobody() { timeout "$BB_TIMEOUT" setpriv --reuid=65534 --regid=65534 --clear-groups "$BB" "$@"; }
	# one rule: an error (here, no root) exits 1 whatever the command
	for args in "stats" "status" "unload --all" "check 198.51.100.2" "load /dev/null -i lo"; do
		want=1
		run nobody $args
		check_rc "$args as uid 65534 exits $want" $want
		check_match "$args as uid 65534 says it needs root" root "$err"
		check_match "... and names the capabilities it lacks" \
			'lacks CAP_BPF CAP_PERFMON CAP_NET_ADMIN CAP_SYS_ADMIN' "$err"
	done
	# a user's process with some of them (ambient): the ones it still lacks, by name
	if setpriv --inh-caps=+net_admin --ambient-caps=+net_admin true 2>/dev/null; then
		run timeout "$BB_TIMEOUT" setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=+net_admin --ambient-caps=+net_admin "$BB" stats
		check_rc "stats as uid 65534 with CAP_NET_ADMIN exits 1" 1
		check_match "... naming only what it lacks" \
			'is not root and lacks CAP_BPF CAP_PERFMON CAP_SYS_ADMIN: run' "$err"
	else
		tap_skip "a user with CAP_NET_ADMIN ambient" "setpriv cannot raise ambient capabilities here"
	fi
	run nobody plan -n 1000
	check_rc "plan needs no root" 0
	# root in a container or a unit that dropped the capabilities
	nocaps() { timeout "$BB_TIMEOUT" setpriv --inh-caps=-all --bounding-set=-all "$BB" "$@"; }
	run nocaps --pin-dir "/sys/fs/bpf/$BB_TAG-nocaps" load "$BB_ROOT/tests/lists/hosts.txt" -i lo
	check_rc "load as root without CAP_BPF exits 1" 1
	check_match "... and names the capabilities it lacks" 'lacks CAP_BPF CAP_PERFMON CAP_NET_ADMIN' "$err"
	check_fails "... and creates nothing" test -e "/sys/fs/bpf/$BB_TAG-nocaps"
else
	tap_skip "non-root refusal" "needs setpriv"
fi

# ---- every format, loaded for real --------------------------------------------------------
# The project's fixtures (tests/lists: every format and its traps) always; the real public
# lists in ../shared/lists (BB_LISTS_DIR) when they are there.
why=$(root_bpf_missing)
if [ -n "$why" ]; then
	tap_skip "loading the lists" "$why"
	tap_done
	exit
fi
netns_setup || bail "could not set up the test namespaces"

# Items each list must hold (a Bloom filter may say "listed" wrongly, never "not listed")
# and a few it must not hold: hosts-file preamble, an Adblock @@ exception, a shared host
# that only has path rules, a URL's host. --seed 1 makes the rare false positive
# reproducible.
declare -A listed=(
	[adaway-hosts.txt]="analytics.163.com"
	[nocoin-adblock.txt]="45.15.156.210"
	[nocoin-hosts.txt]="1q2w3.fun"
	[phishunt-urls.txt]="http://allegrolokalnie.oferta-lokalana989714.lol/"
	[spamhaus-drop.txt]="1.10.16.0/20 1.10.16.77"
	[spamhaus-dropv6.txt]="2001:678:6c4::/48 2001:678:6c4:1::1"
	[stevenblack-unified-hosts.ohnx-2019.hosts]="hercules.iad.appboy.com a.b.jackbootedroom.com"
	[urlhaus-filter-agh-online.adblock.txt]="1.1.109.99 0022a601.pphost.net"
	[urlhaus-filter-domains.txt]="1.1.109.99 05webinvite.com"
	[urlhaus-filter-hosts.txt]="0022a601.pphost.net"
	[urlhaus-filter-online.ublock.txt]="1.1.109.99"
	[anti-ad-dnsmasq.2020-03-25.conf]="jx.cn c.wechat.jx.cn a.cqmjjx.cn"
	[duhow-blocklist-source.txt]="103.0.0.0/8 218.92.0.22 49.245.62.0"
	[feodo-ipblocklist.2021-12-20.csv]="51.178.161.32 217.17.56.163"
	[hagezi-doh-rpz.zone]="polisitogel.accountant x.dns.flwagners.com"
	[ipdeny-countries.ipset]="119.161.128.0/17 92.119.90.16"
	[spamhaus-drop-v4.2026-07-24.json]="1.10.16.0/20 62.60.226.9"
	[urlhaus-filter-hosts.txt.gz]="0022a601.pphost.net"
	[urlhaus-filter-unbound.conf]="0022a601.pphost.net a.0022a601.pphost.net"
	[scores.tsv]="192.0.2.1 203.0.113.77 2001:db8:1::9"
	[columns.txt]="192.0.2.13 192.0.2.200 10.1.2.3"
	[hosts.txt]="ads.example a.b.c.multi.example upper.example last-line.example"
	[adblock.txt]="ads.example http://shared-host.example/malware/payload.exe"
	[urls.txt]="http://big-site.example/ http://big-site.example/any/path http://phish.example/login/x"
	[ranges.p2p]="192.0.2.77 203.0.113.7 198.51.100.100"
	[ranges.txt]="192.0.2.130 198.51.100.5 2001:db8::abcd 203.0.113.7"
	[dnsmasq.conf]="nx.example www.nx.example two.example x.wild.example"
	[unbound.conf]="nx.example sink.example www.sink.example alone.example"
	[policy.rpz]="nx.example www.nx.example exact.example x.wild.example 192.0.2.1 2001:db8:1::7"
	[drop.json]="192.0.2.9 203.0.113.63 2001:db8::1"
	[domains.json]="evil.example other.example"
	[feed.csv]="192.0.2.50 2001:db8::50"
	[urlhaus.csv]="http://192.0.2.60/bins/x86 http://whole-host.example/"
	[sets.ipset]="192.0.2.9 203.0.113.77 2001:db8::1 203.0.113.70"
	[semicolon.csv]="evil.example bad.example"
)
# How a list must be read, where its content does not say (or says wrong)
declare -A load_args=(
	[semicolon.csv]="--format csv --column host"
)
declare -A unlisted=(
	[adaway-hosts.txt]="localhost"
	[nocoin-adblock.txt]="api.nyda.pro"
	[stevenblack-unified-hosts.ohnx-2019.hosts]="localhost broadcasthost hercules notjackbootedroom.com"
	[urlhaus-filter-online.ublock.txt]="bitbucket.org cdn.glitch.global"
	[phishunt-urls.txt]="allegrolokalnie.oferta-lokalana989714.lol https://allegrolokalnie.oferta-lokalana989714.lol/"
	[anti-ad-dnsmasq.2020-03-25.conf]="cn"
	[hagezi-doh-rpz.zone]="localhost accountant"
	[feodo-ipblocklist.2021-12-20.csv]="dst_ip"
	[columns.txt]="203.0.113.9 mapped.example router.lan"
	[hosts.txt]="localhost buildhost"
	[adblock.txt]="allowed.example shared-host.example third.example"
	[urls.txt]="big-site.example search.example"
	[dnsmasq.conf]="router.example corp.example wild.example"
	[unbound.conf]="walled.example pass.example www.alone.example"
	[policy.rpz]="pass.example local.example www.exact.example wild.example"
	[sets.ipset]="203.0.113.5"
)

files=("$BB_ROOT"/tests/lists/*)
if [ -f "$BB_LISTS_DIR/README.md" ]; then
	for f in "$BB_LISTS_DIR"/*; do
		case $f in *.md) continue ;; esac
		files+=("$f")
	done
else
	tap_skip "loading the real lists in $BB_LISTS_DIR" \
		"not there (a plain clone outside the workspace): set BB_LISTS_DIR"
fi
gen=0 all=()
for f in "${files[@]}"; do
	b=$(basename "$f")
	all+=("$f")
	# shellcheck disable=SC2086
	run bb load ${load_args[$b]:-} "$f" -i bbd0 --seed 1 --allow-shrink	# one list for another
	check_rc "load ${load_args[$b]:+${load_args[$b]} }$b exits 0" 0
	st=$(bb status -j 2>/dev/null)
	check_eq "$b: generation $((gen + 1))" "$(jq -r .filter.generation <<<"$st" 2>&1)" $((gen + 1))
	gen=$(jq -r .filter.generation <<<"$st" 2>/dev/null || echo "$gen")
	check_ge "$b: keys > 0" "$(jq -r .filter.keys <<<"$st" 2>&1)" 1
	if [ -n "${listed[$b]:-}" ]; then
		run bb check ${listed[$b]}
		check_rc "$b: check ${listed[$b]} -> listed" 0
	fi
	for u in ${unlisted[$b]:-}; do
		run bb check -- "$u"
		check_rc "$b: check $u -> not listed" 1
	done
done
check_eq "the attachment survived all those swaps" "$(bb_status '[.interfaces[].ifname] | join(",")')" bbd0

# every fixture as it is: semicolon.csv, read as plain here, mostly does not read and is
# loaded all the same (--allow-shrink; alone, it is refused: below)
run bb load "${all[@]}" --seed 1 --allow-shrink
check_rc "load of all the lists at once exits 0" 0
check_match "... and reports every file" "$(basename "${all[-1]}")" "$err$out"
run bb check ads.example 192.0.2.1 nx.example
check_rc "... and holds entries of several of them" 0

run bb load "${all[@]}" --seed 1 --threads 1 -j --allow-shrink
check_rc "load of all the lists, --threads 1, exits 0" 0
one=$(jq -c '[.total, .filter.keys, .filter.blocks]' <<<"$out" 2>&1)
run bb load "${all[@]}" --seed 1 --threads 3 -j --allow-shrink
check_rc "load of all the lists, --threads 3, exits 0" 0
check_eq "... the same counts and filter as with one thread" \
	"$(jq -c '[.total, .filter.keys, .filter.blocks]' <<<"$out" 2>&1)" "$one"
run bb load "${all[@]}" --threads x
check_rc "load --threads x exits 2" 2
check_match "... and says why" 'threads' "$err"

# Streamed (two passes, nothing stored per entry): the same items found, duplicates
# not counted, a rejected line under --strict still fatal with the live filter kept.
run bb load "${all[@]}" --seed 1 --stream always -j --allow-shrink
check_rc "load of all the lists, --stream always, exits 0" 0
check_eq "... is streamed, with no duplicate count" \
	"$(jq -c '[.streamed, .total.duplicates, (.filter.repeated_or_colliding_keys >= 0)]' <<<"$out" 2>&1)" \
	'[true,null,true]'
check_eq "... and counts every line as the in-memory load does" \
	"$(jq -c '.total.lines' <<<"$out" 2>&1)" "$(jq -c '.[0].lines' <<<"$one" 2>&1)"
run bb check ads.example 192.0.2.1 nx.example
check_rc "... and holds entries of several of them" 0
gen=$(bb status -j 2>/dev/null | jq -r .filter.generation)
strict=$(mktemp "${BB_TMP:-/tmp}/strict.XXXXXX")
printf '198.51.100.77\r\nnodot\r\nstrict.example' >"$strict"
run bb load "$strict" --stream always --strict
check_rc "--stream always --strict with a rejected line exits 1" 1
check_match "... names the file and line" "$(basename "$strict"):2: " "$err"
check_eq "... and leaves the live filter" "$(bb status -j 2>/dev/null | jq -r .filter.generation)" "$gen"
run bb load "$strict" --stream always --allow-shrink	# 3 lines for every list: on purpose
check_rc "--stream always, CRLF and no final newline, exits 0" 0
run bb check 198.51.100.77 strict.example
check_rc "... and holds its first and last lines" 0
rm -f "$strict"
run bb load "${all[@]}" --stream sometimes
check_rc "load --stream sometimes exits 2" 2

run_stdin $'# from stdin\n198.51.100.9\nnot a valid line!' bb load -
check_rc "load - (stdin) exits 0" 0
check_match "... names stdin <stdin> in a reject line" '^<stdin>:3: ' "$err"
check_match "... and in its summary, the same" '^<stdin> \(plain\): 3 lines' "$err"
run bb check 198.51.100.9
check_rc "... and holds what came on stdin" 0

# ---- check and errors under -j ---------------------------------------------------------------
run bb check -x.example 192.0.2.1
check_rc "check -x.example: an option it does not know, a usage error" 2
check_match "... which says an item that starts with '-' follows --" 'follows --' "$err"
run bb check -- -x.example 192.0.2.1
check_rc "check -- -x.example: after --, an item" 1
check_match "... and -x.example is an item" '^-x.example: not listed' "$out"
run bb -j check 'bad..name.example' 192.0.2.1
check_rc "check -j with a bad item exits 2" 2
check_eq "... and the bad item is in the JSON, with its error" \
	"$(jq -c '[.[0].error, .[1].kind]' <<<"$out" 2>&1)" '["empty label in name","ipv4"]'
run bb -j load "$BB_TMP/no-such-list.txt"
check_rc "load -j of a missing list exits 1" 1
check_match "... and prints the error as JSON on stdout" \
	'^\{"error":"load stopped at .*no-such-list.txt: No such file or directory"\}$' "$out"
run bb -j load "$BB_ROOT/tests/lists/hosts.txt" -i no-such-iface0
check_eq "load -j with an unknown interface: the error as JSON" "$(jq -r .error <<<"$out" 2>&1)" \
	"no interface named 'no-such-iface0' (see: ip link show)"
# check answers what the kernel would do: HTTPS paths unseen, names only where names are
run bb load "$BB_ROOT/tests/lists/urls.txt"
run bb check https://big-site.example/x
check_rc "check https://URL of a URL-only list: not listed" 1
check_match "... and says an HTTPS path is never seen" 'the path of an HTTPS URL is never seen' "$out"
run bb check http://big-site.example/x
check_rc "check http://URL: listed" 0
check_match "... where: cleartext HTTP on the screened ports" 'cleartext HTTP requests \(TCP 80, 8080\)' "$out"
run bb load "$BB_ROOT/tests/lists/scores.tsv"
run bb check random-name.example
check_rc "check a name on an address-only filter: not listed" 1
check_match "... because the filter holds no names" 'the filter holds no names' "$out"
run bb -j check 192.0.2.1 evil.example
check_eq "check -j: by and seen_in" "$(jq -c '[.[0].by, .[0].seen_in, .[1].by, .[1].note]' <<<"$out" 2>&1)" \
	'["address",["address"],"name","the filter holds no names"]'
run bb stats
check_eq "stats: every counter's number ends in the same column" \
	"$(awk '{ print index($0, " " $2 "  ") + length($2) }' <<<"$out" | sort -u | wc -l)" 1

# ---- how lists are read: per-list options, compression, warnings ------------------------
L=$BB_ROOT/tests/lists
run bb -j load "$L/hosts.txt" --format plain "$L/dnsmasq.conf" --allow-shrink	# misread on purpose
check_eq "--format applies to the lists after it, not before" \
	"$(jq -c '[.files[] | select(.origin == "list") | .format]' <<<"$out" 2>&1)" '["hosts","plain"]'
run bb -j load "$L/semicolon.csv" --format csv --column host
check_rc "--format csv --column host after the only list exits 0" 0
check_eq "... and reads that list so" "$(jq -c '.files[0] | [.format, .column, .counts.accepted.name]' \
	<<<"$out" 2>&1)" '["csv","host (column 1)",2]'
run bb -j load --urls-as-hosts "$L/urls.txt" --no-urls-as-hosts "$L/urlhaus.csv"
check_eq "--urls-as-hosts widens the URLs of the list after it, and counts them" \
	"$(jq -c '[.files[] | select(.origin == "list") | .counts.urls_widened]' <<<"$out" 2>&1)" \
	'[16,0]'
run bb check big-site.example 192.0.2.40
check_rc "... whose hosts are then listed" 0
run bb -j load "$L/sets.ipset" --ipset-set BLOCK4,BLOCK6
check_eq "--ipset-set: the sets, which were loaded, what each held" \
	"$(jq -c '[.files[0].sets[] | select(.loaded) | .name], .files[0].counts.skipped.other_set' \
	<<<"$out" 2>&1 | tr -d '\n')" '["BLOCK4","BLOCK6"]5'
check_eq "... with no warning that every set was loaded" \
	"$(jq -c '[.files[0].warnings[] | select(test("sets are loaded as one"))] | length' \
	<<<"$out" 2>&1)" 0
for a in 203.0.113.250 203.0.113.66; do
	run bb check "$a"
	check_rc "... $a, of a set left out, is not listed" 1
done
run bb load "$L/sets.ipset"
check_match "without --ipset-set, a file of several sets warns that all are one blocklist" \
	'sets.ipset: its 6 sets are loaded as one blocklist.*--ipset-set NAME' "$err"
run bb load --help
check_match "load --help lists every format's name" \
	'auto \(default\), plain, hosts, adblock, p2p, dnsmasq, unbound, rpz, json, csv, ipset' \
	"$(tr -s ' \n' ' ' <<<"$out")"
run bb load --format nosuch "$L/hosts.txt"
check_rc "--format nosuch exits 2" 2
check_match "... and names the formats" 'dnsmasq, unbound, rpz' "$err"
gen=$(bb status -j 2>/dev/null | jq -r .filter.generation)
run bb load "$L/semicolon.csv"
check_rc "a list read in the wrong format, no entry left, exits 1" 1
check_match "... warns that most lines are rejected, naming the first" \
	'3 of 3 lines are rejected, the first line 1 \(host;first seen;count\).*--format' "$err"
check_eq "... and leaves the live filter" "$(bb status -j 2>/dev/null | jq -r .filter.generation)" "$gen"
gzip -c "$L/hosts.txt" >"$BB_TMP/hosts.gz"
run bb load "$BB_TMP/hosts.gz"
check_rc "load of a gzip-compressed hosts file exits 0" 0
check_match "... names its format and compression" 'hosts.gz \(hosts, gzip\): 41 lines' "$err$out"
run bb check ads.example c.multi.example
check_rc "... and holds its names" 0
if command -v xz >/dev/null && command -v zstd >/dev/null; then
	xz -c "$L/policy.rpz" >"$BB_TMP/policy.xz"
	zstd -q -c "$L/drop.json" >"$BB_TMP/drop.zst"
	run bb load "$BB_TMP/policy.xz" "$BB_TMP/drop.zst" --stream always
	check_rc "xz and zstd lists, streamed (read twice), exit 0" 0
	check_match "... read as rpz and json" '\(rpz, xz\).*\(json, zstd, key cidr\)' "$(tr '\n' ' ' <<<"$err$out")"
	run bb check exact.example 192.0.2.9
	check_rc "... and hold their entries" 0
else
	tap_skip "xz and zstd lists" "needs the xz and zstd tools (xz-utils, zstd)"
fi
gen=$(bb status -j 2>/dev/null | jq -r .filter.generation)
head -c 300 "$BB_TMP/hosts.gz" >"$BB_TMP/cut.gz"
run bb load "$BB_TMP/cut.gz"
check_rc "a truncated gzip list exits 1" 1
check_match "... says so, with the file's name" 'cut.gz: gzip data ends early \(truncated\)' "$err"
check_eq "... and leaves the live filter" "$(bb status -j 2>/dev/null | jq -r .filter.generation)" "$gen"
gzip -c "$L/scores.tsv" >"$BB_TMP/scores.gz"
run_from "$BB_TMP/scores.gz" bb load - --allow-shrink	# a small list after the large ones
check_rc "a gzip stream on stdin exits 0" 0
run bb check 192.0.2.1 2001:db8:1::1
check_rc "... and holds what came on stdin" 0

run bb unload --all
check_rc "unload --all exits 0" 0
check_fails "unload --all removes the pin dir" test -e "$BB_PIN_DIR"

tap_done
