#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Where one benchmark row spends its time, by source line of the BPF programs:
#
#   sudo scripts/profile.sh ROW [SECONDS] [CPU]     (after make .output/bench)
#
# ROW is one of bench --profile's rows (empty, parse, ip4-hit, ip4-miss, ip4-cold,
# dns, tls, http: 4-label misses; dns-hit, tls-hit, http-hit: 4-label hits;
# ip4-hit-event: a hit raising its event, table 9's; dns-drop, dns-reject,
# dns-sinkhole: table 2b's query, in single test runs). The
# driver runs the row on CPU (default: the last) and writes
# where each program's source lines sit in its JIT image (--line-map); perf samples
# that CPU; every sample inside a BPF program is counted under the last line whose
# address is at or below it. Prints the share of each symbol, then of each line.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${BB_OUTPUT:-$ROOT/.output}
ROW=${1:?usage: $0 ROW [SECONDS] [CPU]}
SECS=${2:-4}
CPU=${3:-$(($(nproc) - 1))}
command -v perf >/dev/null || { echo "profile: needs perf" >&2; exit 1; }
TMP=$(mktemp -d /tmp/bbprof.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

"$OUT/bench" --profile "$ROW" --seconds $((SECS + 4)) --cpu "$CPU" \
	--line-map "$TMP/lines" >"$TMP/run.out" 2>&1 &
bench=$!
sleep 2	# the skeleton loads (the verifier) and the row starts
perf record -q -F 10000 -C "$CPU" -o "$TMP/perf.data" -- sleep "$SECS" >/dev/null 2>&1
wait "$bench" || { cat "$TMP/run.out" >&2; exit 1; }
cat "$TMP/run.out"

echo "== symbols"
perf report -i "$TMP/perf.data" --stdio --sort symbol 2>/dev/null | grep -E '^ +[0-9]' | head -12

echo "== BPF source lines (share of the samples in BPF programs)"
# one stream sorted by address: "ADDR L FILE:LINE" from the map, "ADDR S" per sample
perf script -i "$TMP/perf.data" -F ip,sym 2>/dev/null |
	awk '$2 ~ /^bpf_prog_/ { printf "%016s S\n", $1 }' >"$TMP/samples"
awk '{ print $1, "L", $2 }' "$TMP/lines" | cat - "$TMP/samples" | sort -k1,1 -k2,2 |
	awk '$2 == "L" { line = $3; next }
	     { n[line == "" ? "?" : line]++; total++ }
	     END { for (l in n) printf "%6.1f%% %s\n", 100 * n[l] / total, l }' |
	sort -rn | head -30
