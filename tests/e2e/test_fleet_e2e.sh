#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Filter files and a fleet, simulated: one `build` on a build host that loads nothing,
# three network-namespace "nodes" (each its own veth and pin dir) loading the same
# .bbf, with identical verdicts on the same packets and the same `check` answers; a
# second .bbf rolled out node by node, each node switching atomically while the
# others keep the first; a corrupt or truncated file refused with the running
# filter untouched. TAP output; root needed (else skipped; a skip fails under CI=true).
# The nodes and addresses: fleet_lib.sh.
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/fleet_lib.sh
. "$(dirname "$0")/fleet_lib.sh"

command -v jq >/dev/null || skip_all "needs jq (scripts/install-deps.sh installs it)"

fleet_begin
CHECKS="203.0.113.9 203.0.113.10 evil.example www.evil.example other.example 198.51.100.200"
answers() { bbn "$1" check $CHECKS 2>&1; }

LISTA=$BB_TMP/list-a.txt LISTB=$BB_TMP/list-b.txt
printf '# list A\n203.0.113.0/24\nevil.example\n' >"$LISTA"
printf '# list B: the client is no longer listed, other.example is\n198.51.100.192/26\nother.example\n' >"$LISTB"
A=$BB_TMP/a.bbf B=$BB_TMP/b.bbf

# ---- build once, on a host that loads nothing -------------------------------------------
run timeout "$BB_TIMEOUT" "$BB" build "$LISTA" -o "$A" --seed 11
check_rc "build LIST -o a.bbf exits 0" 0
check_match "build says what it wrote" 'wrote .*a\.bbf' "$err$out"
check "the file exists" test -s "$A"
check_fails "no temporary file is left beside it" bash -c "ls '$BB_TMP' | grep -q 'a.bbf.tmp'"
run timeout "$BB_TIMEOUT" "$BB" -j info "$A"
check_rc "info -j a.bbf exits 0" 0
check_eq "info: the list it was built from" "$(jq -r '.sources.lists[0].file' <<<"$out")" "$LISTA"
check_eq "info: that list's size" "$(jq -r '.sources.lists[0].bytes' <<<"$out")" "$(stat -c %s "$LISTA")"
check_match "info: its XXH128 digest" '^[0-9a-f]{32}$' "$(jq -r '.sources.lists[0].xxh128' <<<"$out")"
check_eq "info: it holds names" "$(jq -r '.filter.names' <<<"$out")" true
check "info: it carries the key index" test "$(jq -r '.index.keys' <<<"$out")" -gt 0
run timeout "$BB_TIMEOUT" "$BB" info "$A"
check_match "info (text): the per-check rates" 'per check' "$out"
run timeout "$BB_TIMEOUT" "$BB" build "$LISTB" -o "$B" --seed 12
check_rc "build the second list -o b.bbf exits 0" 0
run timeout "$BB_TIMEOUT" "$BB" build "$LISTA" -o "$BB_TMP/x.bbf" -i bbd0
check_rc "build with -i is a usage error" 2
run timeout "$BB_TIMEOUT" "$BB" build "$LISTA"
check_rc "build without -o is a usage error" 2

# ---- every node loads the same file -------------------------------------------------------
for n in $NODES; do
	run bbn "$n" load "$A" -i "$(node_if "$n")"
	check_rc "node $n: load a.bbf -i $(node_if "$n") exits 0" 0
	check_match "node $n: the summary names the filter file" 'a\.bbf \(a filter file' "$err$out"
done
for n in $NODES; do
	check_eq "node $n: the listed client is dropped, the unlisted one answered" "$(verdicts "$n")" \
		"drop pass"
done
ref=$(answers 1)
check_match "node 1: check says evil.example is listed" 'evil\.example: listed' "$ref"
check_match "node 1: ... at the build's list and line (the file's key index)" \
	"evil\\.example: listed \\($LISTA:3\\)" "$ref"
check_match "node 1: status says it was loaded from the filter file" \
	'^loaded +.* from the filter file .*a\.bbf' "$(bbn 1 status)"
run bbn 1 del evil.example
check_rc "node 1: del works on a filter that came as a file" 0
check_match "node 1: ... and evil.example is then not listed" 'evil\.example: not listed' \
	"$(bbn 1 check evil.example)"
run bbn 1 add evil.example
check_rc "node 1: add puts it back" 0
for n in 2 3; do
	check_eq "node $n: check answers as node 1 does, item for item" "$(answers "$n")" "$ref"
done

# ---- a bad file is refused; the running filter is untouched -------------------------------
gen=$(bbn 1 status -j | jq -r .filter.generation)
head -c 300 "$B" >"$BB_TMP/cut.bbf"
run bbn 1 load "$BB_TMP/cut.bbf"
check_rc "node 1: a truncated b.bbf is refused (exit 1)" 1
check_match "... saying why" 'truncated' "$err"
cp "$B" "$BB_TMP/flip.bbf"
printf '\x55' | dd of="$BB_TMP/flip.bbf" bs=1 seek=5000 conv=notrunc 2>/dev/null
run bbn 1 load "$BB_TMP/flip.bbf"
check_rc "node 1: a b.bbf with a byte flipped is refused" 1
check_match "... as corrupt" 'corrupt' "$err"
run bbn 1 load "$B" "$LISTA"
check_rc "node 1: a filter file with a blocklist beside it is refused" 1
check_eq "node 1: the generation is unchanged" "$(bbn 1 status -j | jq -r .filter.generation)" "$gen"
check_eq "node 1: and so are its verdicts" "$(verdicts 1)" "drop pass"

# ---- the second file, rolled out node by node ------------------------------------------------
for n in $NODES; do
	g=$(bbn "$n" status -j | jq -r .filter.generation)
	run bbn "$n" load "$B"
	check_rc "rollout: node $n loads b.bbf" 0
	check_eq "rollout: node $n switched in one step (generation $g -> $((g + 1)))" \
		"$(bbn "$n" status -j | jq -r .filter.generation)" $((g + 1))
	for m in $NODES; do
		if [ "$m" -le "$n" ]; then want="pass pass"; else want="drop pass"; fi
		check_eq "rollout: after node $n, node $m has the $([ "$m" -le "$n" ] && echo second || echo first) filter's verdicts" \
			"$(verdicts "$m")" "$want"
	done
done
ref=$(answers 1)
check_match "all on b.bbf: other.example is listed" 'other\.example: listed' "$ref"
for n in 2 3; do
	check_eq "all on b.bbf: node $n answers as node 1" "$(answers "$n")" "$ref"
done

# ---- a node's own allowlist goes onto the shipped filter -------------------------------------
run bbn 2 allow other.example
check_rc "node 2: allow other.example on the shipped filter" 0
check_match "node 2: check says allowed" 'other\.example: allowed' "$(answers 2)"
check_match "node 3: still listed there" 'other\.example: listed' "$(answers 3)"
run bbn 2 load "$B"
check_match "node 2: a reload of the file keeps its kept allowlist" 'other\.example: allowed' \
	"$(answers 2)"

for n in $NODES; do
	run bbn "$n" unload --all
	check_rc "node $n: unload --all" 0
done
tap_done
