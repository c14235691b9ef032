#!/usr/bin/env bash
# Looks for a repetition under each of the 120 option combinations of The Smallholder on
# limping3 and hex4 (`tablebase cycle smallholder`, seeded random games) and writes one
# JSON answer per combination to repetitions-BOARD.jsonl in this folder (docs/smallholder.md,
# "Cycles and draws", summarises them; the tests replay every line found). About an hour per
# board on one core. Usage: positions/smallholder/find-repetitions.sh [BOARD ...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
boards=("${@:-limping3 hex4}")
combinations=$(python -c "from tablebase.games.smallholder import all_rules; print('\n'.join(r.spec for r in all_rules()))")
for board in ${boards[@]}; do
  case "$board" in
    limping3) settings=(--games 500 --plies 14 --slack 3) ;;
    *) settings=(--games 300 --plies 12 --slack 2) ;;
  esac
  while read -r rules; do
    tablebase cycle smallholder --board "$board" --rules "$rules" "${settings[@]}" --json -s
  done <<< "$combinations" > "$here/repetitions-$board.jsonl.part"
  mv "$here/repetitions-$board.jsonl.part" "$here/repetitions-$board.jsonl"
done
