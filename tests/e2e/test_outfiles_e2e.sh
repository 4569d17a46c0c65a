#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Output files are written whole beside their place and renamed over it, never through
# a link: a symlink planted where a state file's temporary copy goes (and where a .bbf
# file's goes) is replaced, its target left untouched, and so is a link in the file's
# own place; the state directory and its
# files are root's alone (0700, 0600); a stale temporary file from a crash is
# replaced by the next write. TAP output; root.
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

e2e_begin
LIST=$BB_TMP/list.txt
printf 'blocked.example\n198.51.100.3\n' >"$LIST"
VICTIM=$BB_TMP/victim
echo "precious" >"$VICTIM"

run bb load "$LIST" -i bbd0
check_rc "load" 0
check_eq "the state directory is root's alone (0700)" "$(stat -c %a "$BB_STATE_DIR")" 700
for f in loaded.json index.bin guard.list; do
	[ -e "$BB_STATE_DIR/$f" ] || continue
	check_eq "$f: 0600" "$(stat -c %a "$BB_STATE_DIR/$f")" 600
done
check_eq "the pin dir: 0700" "$(stat -c %a "$BB_PIN_DIR")" 700

# links planted where the next load writes its temporary copies
for f in loaded.json index.bin guard.list allow.list; do
	ln -sf "$VICTIM" "$BB_STATE_DIR/$f.tmp"
done
run bb load "$LIST"
check_rc "a reload with links planted at every *.tmp" 0
check_eq "... the links' target untouched" "$(cat "$VICTIM")" precious
check_match "... loaded.json written, a file" 'generation' "$(cat "$BB_STATE_DIR/loaded.json")"
check_fails "... loaded.json is not a link" test -L "$BB_STATE_DIR/loaded.json"
ln -sf "$VICTIM" "$BB_STATE_DIR/loaded.json"
run bb load "$LIST"
check_eq "a state file that is itself a link: replaced, the target untouched" "$(cat "$VICTIM")" precious
check_fails "... loaded.json a file again" test -L "$BB_STATE_DIR/loaded.json"
run bb allow fine.example
check_rc "allow (allow.list written)" 0
check_eq "... the target still untouched" "$(cat "$VICTIM")" precious
check_eq "... no temporary file left" "$(find "$BB_STATE_DIR" -maxdepth 1 -name '*.tmp' | wc -l)" 0

# a stale temporary file (a crash mid-write) is replaced
echo stale >"$BB_STATE_DIR/loaded.json.tmp"
run bb load "$LIST"
check_rc "a reload over a stale loaded.json.tmp" 0
check_eq "... gone, replaced" "$(find "$BB_STATE_DIR" -maxdepth 1 -name '*.tmp' | wc -l)" 0

# bloomblock build -o FILE, FILE a link: replaced, not written through
ln -sf "$VICTIM" "$BB_TMP/out.bbf"
run "$BB" build "$LIST" -o "$BB_TMP/out.bbf"
check_rc "build -o out.bbf with out.bbf a link" 0
check_eq "... the link's target untouched" "$(cat "$VICTIM")" precious
check "... out.bbf written" test -s "$BB_TMP/out.bbf"
check_fails "... and not a link" test -L "$BB_TMP/out.bbf"
run "$BB" info "$BB_TMP/out.bbf"
check_match "... whole: info reads it" '^file .*out\.bbf: bloomblock filter file' "$out"
run bb unload --all
tap_done
