#!/bin/sh
# The house rules a script can check on every tracked C++ file (docs/testing.md, "Source rules"):
# an opening comment saying what the file is for (its first non-blank line is a // comment) and
# at most 500 lines. Prints each file that breaks one, with the rule; exits 1 if any does.
# Usage: scripts/check-sources.sh [REPOSITORY_DIR]   (default: the repository of this script)
set -eu
cd "${1:-$(dirname "$0")/..}"
limit=500
status=0
for file in $(git ls-files '*.cpp' '*.h'); do
  first=$(grep -m1 -v '^[[:space:]]*$' "$file" || true)
  case "$first" in
    //*) ;;
    *) echo "$file: no opening comment (its first line should say what the file is for)"; status=1 ;;
  esac
  lines=$(wc -l < "$file")
  if [ "$lines" -gt "$limit" ]; then
    echo "$file: $lines lines, over the $limit-line ceiling"
    status=1
  fi
done
exit $status
