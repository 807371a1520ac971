#!/usr/bin/env bash
# capture.sh: regenerate the terminal screens in docs/screens/ that README.md links to:
#   replay.txt/.ansi, watch-running.txt/.ansi, watch.txt/.ansi, stats.txt/.ansi (120 columns), and at 80 columns,
#   over the fixture home test/fixtures/homes/basic (HOME points there, TZ=UTC; npm's cache goes to the temporary
#   directory): stats-80.txt/.ansi (`stats` with no path), stats-session-80.txt/.ansi (`stats --by session
#   --breakdown`), replay-brief-80.txt/.ansi (`replay --brief` with no input)
#
# Needs: tmux (3.0 or later), bash, node and npm (npx), and a built CLI: run `npm run build` first so that
# dist/cli/run-outcome.js exists (the screens run it as `npx run-outcome`, which is this repository's own bin).
# Run it from the repository root (it changes there itself, so any directory works):
#   bash docs/screens/capture.sh
#
# How: each screen is a fresh interactive bash (no rc files, prompt '$ ', NO_COLOR and FORCE_COLOR unset, so the
# colours come from the terminal being a TTY) in a detached 120x40 tmux session on a private tmux server (its
# socket in a temporary directory), which is removed at the end. The command is typed in, so the screen shows it.
# The script waits for the expected text instead of sleeping (with a timeout: CAPTURE_TIMEOUT seconds, default 60),
# then saves `tmux capture-pane -p -J` (.txt) and `tmux capture-pane -p -J -e` (.ansi, with colours: `cat` it in a
# terminal). -J joins lines that the terminal only wrapped, so long command lines stay one line. Trailing blanks
# and trailing blank lines are trimmed. watch-running and watch are the same run: watch-running while the status
# line is up, watch after the result. The files in docs/screens/ are replaced only when all four were captured.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
out=docs/screens
cols=120
rows=40
timeout=${CAPTURE_TIMEOUT:-60}
if [[ ! $timeout =~ ^[1-9][0-9]*$ ]]; then
  echo "capture.sh: CAPTURE_TIMEOUT must be whole seconds, not '$timeout'" >&2
  exit 2
fi

# the commands, as typed; the same as in the screens before this script
replay_cmd='npx run-outcome replay examples/claude-code/claude.jsonl examples/claude-code/claude-error.jsonl examples/codex/stream-output-2.jsonl examples/native/session.jsonl'
watch_cmd="$out/slowfeed.sh examples/claude-code/claude.jsonl 0.7 | npx run-outcome watch"
stats_cmd='npx run-outcome stats test/fixtures/claude-code-stream-json test/fixtures/codex-exec-json test/fixtures/gemini-stream-json test/fixtures/claude-code-transcript test/fixtures/codex-rollout'
# watch-running is taken when the status line shows this: the run's 3rd tool result is in, the 4th turn not yet
# (the line then fits in 120 columns without being cut). That lasts about 0.7 s; a missed one is run again.
watch_running_re='^[^ ]+ run 1 · 3 turns · 3 tool calls · .* out tokens · .* · last: user$'

die() {
  echo "capture.sh: $*" >&2
  exit 1
}
command -v tmux >/dev/null || die "tmux is not installed"
command -v npx >/dev/null || die "npx is not on PATH (install node and npm)"
[[ -f dist/cli/bin.js ]] || die "dist/cli/bin.js is missing: run 'npm run build' first"
[[ -x $out/slowfeed.sh ]] || die "$out/slowfeed.sh is missing or not executable (chmod +x $out/slowfeed.sh)"

work=$(mktemp -d)
printf 'set -g status off\nset -g history-limit 1000\n' >"$work/tmux.conf"
# a private tmux server, its socket in $work, so no other tmux session is touched
tm() { tmux -f "$work/tmux.conf" -S "$work/tmux.sock" "$@"; }
cleanup() {
  tm kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# trim: drop trailing blanks on each line, then trailing blank lines (a line of only colour codes counts as blank)
trim() {
  sed -E 's/[[:space:]]+$//' | awk '
    { line[NR] = $0; bare = $0; gsub(/\033\[[0-9;:]*m/, "", bare); if (bare ~ /[^[:space:]]/) last = NR }
    END { for (i = 1; i <= last; i++) print line[i] }'
}
esc=$'\033'
strip_colour() { sed -E "s/${esc}\\[[0-9;:]*m//g"; }
pane_text() { tm capture-pane -p -J -t "$1" | trim; }

# new_shell NAME [COLS ROWS [VAR=VALUE...]]: a fresh session with an interactive bash, ready at its first prompt
new_shell() {
  local name=$1 w=${2:-$cols} h=${3:-$rows}
  shift $(($# < 3 ? $# : 3))
  tm kill-session -t "=$name" 2>/dev/null || true
  tm new-session -d -s "$name" -x "$w" -y "$h" -c "$root" \
    env -u NO_COLOR -u FORCE_COLOR -u PROMPT_COMMAND -u COLUMNS -u LINES \
    'PS1=$ ' 'PS2=> ' HISTFILE=/dev/null NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false "$@" \
    bash --noprofile --norc -i
  local size
  size=$(tm display-message -p -t "$name" '#{pane_width}x#{pane_height}')
  [[ $size == "${w}x${h}" ]] || die "$name: the pane is $size, not ${w}x${h}"
  wait_for "$name" "the first prompt" is_prompt_only
}

# wait_for NAME WHAT TEST [ARG]: poll the pane every 0.1 s until `TEST TEXT [ARG]` returns 0; it returns 2 to give
# up at once (wait_for then returns 2 too); after CAPTURE_TIMEOUT seconds it stops the script
wait_for() {
  local name=$1 what=$2 test=$3 arg=${4-} text rc deadline=$((SECONDS + timeout))
  while :; do
    text=$(pane_text "$name")
    rc=0
    "$test" "$text" "$arg" || rc=$?
    [[ $rc -eq 0 ]] && return 0
    [[ $rc -eq 2 ]] && return 2
    if ((SECONDS >= deadline)); then
      printf 'capture.sh: %s: no %s after %ss; the pane shows:\n%s\n' "$name" "$what" "$timeout" "$text" >&2
      exit 1
    fi
    sleep 0.1
  done
}
is_prompt_only() { [[ $1 == '$' ]]; }
# the command has finished: the last line is an empty prompt again (the first line holds the command)
is_finished() { [[ $1 == *$'\n$' ]]; }
# the last line is the watch status line we want; 2 (give up) when the run ended before it was seen
is_watch_running() {
  local last=${1##*$'\n'}
  [[ $last =~ $watch_running_re ]] && return 0
  [[ $1 == *'answered  run 1'* || $1 == *$'\n$' ]] && return 2
  return 1
}

# run_cmd NAME COMMAND: type the command at the prompt and press Enter
run_cmd() {
  tm send-keys -t "$1" -l -- "$2"
  tm send-keys -t "$1" Enter
}

# snap NAME FILE: save the pane as $work/FILE.txt and $work/FILE.ansi. The two are taken one after the other, so
# they are retaken until they show the same thing (a live status line may be redrawn in between).
snap() {
  local name=$1 file=$2 try
  for try in 1 2 3 4 5 6 7 8 9 10; do
    tm capture-pane -p -J -e -t "$name" | trim >"$work/$file.ansi"
    tm capture-pane -p -J -t "$name" | trim >"$work/$file.txt"
    if strip_colour <"$work/$file.ansi" | trim | cmp -s - "$work/$file.txt"; then
      # end with a reset, so that `cat`-ing the .ansi does not leave the terminal dim or coloured
      awk -v reset="${esc}[0m" 'NR > 1 { print prev } { prev = $0 } END { print prev reset }' \
        "$work/$file.ansi" >"$work/$file.ansi.new"
      mv "$work/$file.ansi.new" "$work/$file.ansi"
      return 0
    fi
    sleep 0.05
  done
  die "$file: the plain and the coloured capture kept differing"
}

# expect FILE TEXT...: the capture must hold each TEXT (a fixed string), to catch a wrong or broken screen
expect() {
  local file=$1 want
  shift
  for want in "$@"; do
    grep -qF -- "$want" "$work/$file.txt" || die "$file: the capture lacks '$want'; it reads:
$(cat "$work/$file.txt")"
  done
  grep -q $'\x1b\\[' "$work/$file.ansi" || die "$file: the .ansi capture has no colours (is NO_COLOR set somewhere?)"
}

echo "capture.sh: replay"
new_shell replay
run_cmd replay "$replay_cmd"
wait_for replay "end of the replay" is_finished
snap replay replay
expect replay "\$ $replay_cmd" 'recorded as' '✂ cut off: max_tokens'

echo "capture.sh: watch (takes about 10 s)"
for attempt in 1 2 3; do
  new_shell watch
  run_cmd watch "$watch_cmd"
  rc=0
  wait_for watch "status line" is_watch_running || rc=$?
  if [[ $rc -eq 0 ]]; then
    snap watch watch-running
    # the status line may have moved on between seeing it and taking the capture
    [[ $(tail -n 1 "$work/watch-running.txt") =~ $watch_running_re ]] && break
  fi
  [[ $attempt -eq 3 ]] && die "watch: could not catch the status line in 3 runs"
  echo "capture.sh: watch: missed the status line (attempt $attempt); running it again" >&2
done
expect watch-running "\$ $watch_cmd" 'out tokens'
wait_for watch "end of the watch" is_finished
snap watch watch
expect watch "\$ $watch_cmd" '✔ answered  run 1' 'recorded as' 'duration'

echo "capture.sh: stats"
new_shell stats
run_cmd stats "$stats_cmd"
wait_for stats "end of the stats" is_finished
snap stats stats
expect stats "\$ $stats_cmd" 'cache write' 'most expensive runs'

# at 80 columns over the fixture home: no line may wrap (the capture without -J must equal the one with it)
# npm's cache and the stats result cache go to the temporary directory, never into the fixture home
home_env=("HOME=$root/test/fixtures/homes/basic" TZ=UTC "NPM_CONFIG_CACHE=$work/npm-cache" "XDG_CACHE_HOME=$work/cache")
no_wrap() {
  local name=$1
  cmp -s <(tm capture-pane -p -t "$name" | trim) <(tm capture-pane -p -J -t "$name" | trim) || die "$name: a line wrapped at 80 columns"
}
for screen in 'stats-80|npx run-outcome stats|cost ~$' 'stats-session-80|npx run-outcome stats --by session --breakdown|└ gemini-2.5-pro' 'replay-brief-80|npx run-outcome replay --brief|c736db82a7c5 #1'; do
  IFS='|' read -r file cmd want <<<"$screen"
  echo "capture.sh: $file"
  new_shell "$file" 80 60 "${home_env[@]}"
  run_cmd "$file" "$cmd"
  wait_for "$file" "end of the command" is_finished
  no_wrap "$file"
  snap "$file" "$file"
  expect "$file" "\$ $cmd" "$want"
done

for f in replay watch-running watch stats stats-80 stats-session-80 replay-brief-80; do
  cp "$work/$f.txt" "$out/$f.txt"
  cp "$work/$f.ansi" "$out/$f.ansi"
done
echo "capture.sh: wrote $out/{replay,watch-running,watch,stats,stats-80,stats-session-80,replay-brief-80}.{txt,ansi}"
