#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bounded by design: what a list, a config or a stream may make bloomblock take.
#
#   - --max-entries (default 50M) and --max-list-size (default 4G, inflated) refuse a
#     list past them with the file's name and the bound, over every list of a load;
#     a config file over 1 MiB is refused;
#   - 10^8 lines through stdin (comments, and entries past --max-entries), a 1 GiB
#     line with no newline, and a gzip stream inflating to 1 GiB (read whole, and
#     refused past --max-list-size) are each handled in bounded memory: the peak
#     resident size of the command is asserted, whatever the input's size.
#
# `bloomblock build` reads lists as load does (the same parser, the same options), so
# this needs no root and no namespace. TAP output.
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip_all "needs python3 (scripts/install-deps.sh installs it)"
command -v gzip >/dev/null || skip_all "needs gzip (scripts/install-deps.sh installs it)"
[ -x "$BB" ] || skip_all "build bloomblock first (make)"
BB_TMP=$(mktemp -d /tmp/bbbounds.XXXXXX)
trap 'rm -rf "$BB_TMP"' EXIT
OUT=$BB_TMP/out.bbf
# the peak RSS allowed, in MiB: a few times what was measured (13 to 47 MiB), more
# under AddressSanitizer, whose shadow and quarantine are resident too
CAP_MB=${BB_BOUNDS_RSS_MB:-200}
case $BB in *asan*) CAP_MB=${BB_BOUNDS_RSS_MB:-600} ;; esac

# peak CMD...: run CMD (a shell line); sets rc, err (its stderr's last lines) and
# peak_mb, the largest resident size of any process of it, in MiB
peak() {
	local r
	r=$(python3 - "$@" <<'PY'
import resource, subprocess, sys
p = subprocess.run(["sh", "-c", sys.argv[1]], stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, text=True, errors="replace")
tail = " | ".join(p.stderr.strip().splitlines()[-3:])
print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, tail)
PY
)
	rc=${r%% *}
	r=${r#* }
	peak_mb=${r%% *}
	err=${r#* }
}

awk 'BEGIN { for (i = 0; i < 3000; i++) printf "n%d.bulk.test\n", i }' >"$BB_TMP/l3k.txt"

# ---- --max-entries ---------------------------------------------------------------------
run "$BB" build "$BB_TMP/l3k.txt" -o "$OUT" --max-entries 1000
check_rc "a list of 3000 entries, --max-entries 1000: refused" 1
check_match "... naming the file and the bound" "l3k.txt: more than 1000 entries.*--max-entries" "$err"
check_match "... and why the load stopped" "load stopped at .*l3k.txt: the lists hold more entries than --max-entries" "$err"
run "$BB" build "$BB_TMP/l3k.txt" "$BB_TMP/l3k.txt" -o "$OUT" --max-entries 5000
check_rc "two lists of 3000, --max-entries 5000: refused (the bound is the load's)" 1
run "$BB" build "$BB_TMP/l3k.txt" "$BB_TMP/l3k.txt" -o "$OUT" --max-entries 6000
check_rc "... 6000: read" 0
run "$BB" build "$BB_TMP/l3k.txt" -o "$OUT" --max-entries 0
check_rc "--max-entries 0: no bound" 0
run "$BB" build "$BB_TMP/l3k.txt" -o "$OUT" --max-entries lots
check_rc "--max-entries lots: a usage error" 2

# ---- --max-list-size ---------------------------------------------------------------------
run "$BB" build "$BB_TMP/l3k.txt" -o "$OUT" --max-list-size 10K
check_rc "a list of 44 KiB, --max-list-size 10K: refused before it is read" 1
check_match "... naming the file and the bound" "l3k.txt: more than 10240 bytes.*--max-list-size" "$err"
gzip -c "$BB_TMP/l3k.txt" >"$BB_TMP/l3k.txt.gz"
run "$BB" build "$BB_TMP/l3k.txt.gz" -o "$OUT" --max-list-size 20K
check_rc "the same gzip-compressed (7 KiB), --max-list-size 20K: refused once inflated" 1
check_match "... naming it" "l3k.txt.gz: more than 20480 bytes \(inflated" "$err"
run "$BB" build "$BB_TMP/l3k.txt.gz" -o "$OUT" --max-list-size 64K
check_rc "... 64K: read" 0
run "$BB" build "$BB_TMP/l3k.txt" -o "$OUT" --max-list-size 1X
check_rc "--max-list-size 1X: a usage error" 2

# ---- a config file --------------------------------------------------------------------
{ printf '[instance]\nlist = %s\n' "$BB_TMP/l3k.txt"; head -c $((1100 * 1024)) /dev/zero | tr '\0' '#'; } >"$BB_TMP/big.conf"
run "$BB" run --config "$BB_TMP/big.conf" --check-config
check_rc "a config file of 1.1 MiB: refused" nonzero
check_match "... saying so" "big.conf: [0-9]+ bytes, not a config file \(at most 1024 KiB\)" "$err"

# ---- bounded memory, whatever the input's size --------------------------------------------
peak "{ echo 198.51.100.7; yes '# a comment' | head -n 99999999; } | $BB build - -o $OUT"
check_eq "10^8 lines through stdin (one entry, the rest comments): read" "$rc" 0
check_eq "... in bounded memory: peak ${peak_mb} MiB, at most $CAP_MB" "$((peak_mb <= CAP_MB))" 1
peak "yes 198.51.100.7 | head -n 100000000 | $BB build - -o $OUT --max-entries 1M"
check_eq "10^8 entry lines through stdin, --max-entries 1M: refused" "$rc" 1
check_match "... saying so" "more than 1000000 entries" "$err"
check_eq "... in bounded memory: peak ${peak_mb} MiB, at most $CAP_MB" "$((peak_mb <= CAP_MB))" 1
peak "{ echo 198.51.100.7; head -c 1073741824 /dev/zero | tr '\\0' a; } | $BB build - -o $OUT"
check_eq "a 1 GiB line with no newline after an entry: the entry read, the line rejected" "$rc" 0
check_eq "... in bounded memory: peak ${peak_mb} MiB, at most $CAP_MB" "$((peak_mb <= CAP_MB))" 1
# a gzip stream of 1024 members, each 1 MiB of comments inflated: 1 GiB from 7 MiB
{ echo 198.51.100.7; yes '# a comment line of some length' | head -c $((1 << 20)); } | gzip -1 >"$BB_TMP/member.gz"
for _ in $(seq 10); do cat "$BB_TMP/member.gz"; done >"$BB_TMP/m10.gz"
for _ in $(seq 102); do cat "$BB_TMP/m10.gz"; done >"$BB_TMP/bomb.gz"
cat "$BB_TMP/m10.gz" "$BB_TMP/m10.gz" >>"$BB_TMP/bomb.gz"	# 1040 members
peak "$BB build $BB_TMP/bomb.gz -o $OUT"
check_eq "a gzip file inflating to over 1 GiB (of comments), the default bound: read" "$rc" 0
check_eq "... in bounded memory: peak ${peak_mb} MiB, at most $CAP_MB" "$((peak_mb <= CAP_MB))" 1
peak "$BB build $BB_TMP/bomb.gz -o $OUT --max-list-size 256M"
check_eq "the same, --max-list-size 256M: refused past 256 MiB inflated" "$rc" 1
check_match "... saying so" "bomb.gz: more than 268435456 bytes \(inflated" "$err"
check_eq "... in bounded memory: peak ${peak_mb} MiB, at most $CAP_MB" "$((peak_mb <= CAP_MB))" 1

tap_done
