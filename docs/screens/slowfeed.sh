#!/usr/bin/env bash
# slowfeed.sh: write a file's lines to stdout one at a time, pausing between them, so a recorded agent log
# can stand in for an agent that is still running. The `watch` screens use it (see capture.sh), e.g.
#   docs/screens/slowfeed.sh examples/claude-code/claude.jsonl 0.7 | npx run-outcome watch
# The first line is written at once, then each next line after DELAY seconds (fractions allowed).
set -euo pipefail

usage="usage: slowfeed.sh FILE DELAY_SECONDS"
if [[ $# -ne 2 ]]; then
  echo "$usage" >&2
  exit 2
fi
file=$1
delay=$2
if [[ ! $delay =~ ^([0-9]+([.][0-9]*)?|[.][0-9]+)$ ]]; then
  echo "slowfeed.sh: DELAY_SECONDS must be a number of seconds, e.g. 0.7 (got '$delay')" >&2
  echo "$usage" >&2
  exit 2
fi
if [[ ! -r $file ]]; then
  echo "slowfeed.sh: cannot read $file" >&2
  exit 2
fi

first=1
# `|| [[ -n $line ]]` keeps a last line that has no newline at the end
while IFS= read -r line || [[ -n $line ]]; do
  if [[ $first -eq 0 ]]; then sleep "$delay"; fi
  first=0
  printf '%s\n' "$line"
done <"$file"
