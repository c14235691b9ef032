#!/usr/bin/env bash
# Looks for a repetition under each of the 120 option combinations of The Smallholder on
# limping3 and hex4 (`tablebase cycle smallholder`, seeded random games) and writes one
# JSON answer per combination to repetitions-BOARD.jsonl in this folder (docs/smallholder.md,
# "Cycles and draws", sums them up; the tests replay every line found). The named rulesets
# get 5 times the games of the other combinations. One to two hours per board on
# one core. Usage: positions/smallholder/find-repetitions.sh [BOARD ...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
boards=("${@:-limping3 hex4}")
combinations=$(python -c "
from tablebase.games.smallholder import RULESETS, all_rules, parse_rules
named = {parse_rules(name).spec for name in RULESETS}
print('\n'.join(f'{r.spec} {5 if r.spec in named else 1}' for r in all_rules()))")
for board in ${boards[@]}; do
  case "$board" in
    limping3) games=500; settings=(--plies 14 --slack 3) ;;
    *) games=300; settings=(--plies 12 --slack 2) ;;
  esac
  while read -r rules times; do
    tablebase cycle smallholder --board "$board" --rules "$rules" --games $((games * times)) "${settings[@]}" --json -s
  done <<< "$combinations" > "$here/repetitions-$board.jsonl.part"
  mv "$here/repetitions-$board.jsonl.part" "$here/repetitions-$board.jsonl"
done
