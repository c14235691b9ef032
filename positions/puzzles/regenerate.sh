#!/usr/bin/env bash
# Regenerates the curated puzzle sets in this folder (about 6 minutes on a 2-core machine).
# Usage: positions/puzzles/regenerate.sh [DB]   (default: a fresh database in a temporary folder)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
db="${1:-$(mktemp -d)/puzzles.sqlite}"
for variant in standard extended extended-unrestricted; do
  tablebase puzzles generate sparro --variant "$variant" --count 10 --min-depth 3 --max-depth 4 --seed 1 --db "$db" -s --solve
  tablebase puzzles generate sparro --variant "$variant" --count 8 --min-depth 5 --max-depth 8 --seed 2 --db "$db" -s --solve
  tablebase puzzles generate sparro --variant "$variant" --count 4 --min-depth 9 --max-depth 15 --seed 3 \
    --max-games 6000 --db "$db" -s --solve
done
tablebase puzzles export --game sparro --output "$here/sparro.tsv" --db "$db"
for ruleset in gaps-original nibbler offshore-gaps stymie hull-setbacks; do
  tablebase puzzles generate smallholder --board limping2 --ruleset "$ruleset" --count 6 --min-depth 3 --seed 1 \
    --db "$db" -s --solve
done
for ruleset in nibbler gaps-original hull-setbacks; do
  tablebase puzzles generate smallholder --board hex3 --ruleset "$ruleset" --count 4 --min-depth 3 --max-depth 4 \
    --seed 1 --db "$db" -s --solve
  tablebase puzzles generate smallholder --board hex3 --ruleset "$ruleset" --count 4 --min-depth 5 --max-depth 8 \
    --seed 2 --db "$db" -s --solve
  tablebase puzzles generate smallholder --board hex3 --ruleset "$ruleset" --count 2 --min-depth 9 --max-depth 15 \
    --seed 3 --max-games 3000 --db "$db" -s --solve
done
for ruleset in gaps-original nibbler offshore-gaps stymie hull-setbacks; do
  tablebase puzzles generate smallholder --board limping2 --ruleset "$ruleset" --count 2 --min-depth 5 --seed 4 \
    --max-games 3000 --db "$db" -s --solve
done
tablebase puzzles export --game smallholder --output "$here/smallholder.tsv" --db "$db"
# hex4 (no table): judged by the exact search within a million positions per position and no time
# bound, so that the same commands give the same puzzles (under a minute on a 2-core machine);
# a file of their own, since what the search stored before guides it
hex4db="$(mktemp -d)/hex4.sqlite"
hex4=(tablebase puzzles generate smallholder --board hex4 --ruleset nibbler --time 0 --budget 1000000 --db "$hex4db" -s)
"${hex4[@]}" --count 4 --min-depth 3 --max-depth 4 --seed 1
"${hex4[@]}" --count 4 --min-depth 5 --max-depth 8 --seed 2
"${hex4[@]}" --count 2 --min-depth 6 --max-depth 8 --seed 3 --max-games 40
tablebase puzzles export --rules nibbler@hex4 --output "$here/hex4.tsv" --db "$hex4db"
