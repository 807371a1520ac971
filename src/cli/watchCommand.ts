/**
 * `run-outcome watch [FILE|-] [--format F] [--json]`: follow a live agent stream, show a status line, and print
 * each run's result the moment it ends.
 * @module
 */
import { open, stat } from 'node:fs/promises'
import { isSuccess } from '../core/RunEnding.js'
import type { RunResult } from '../core/RunResult.js'
import { formats } from '../formats/index.js'
import { QUIET_MS, type LineReader } from '../formats/types.js'
import { ReplayError, replayStream } from '../node/replay.js'
import { checkAccept, checkFormat, commonOptions, parseCommand } from './args.js'
import { EXIT, safeJson, worst, type CliIO } from './io.js'
import { colorEnabled, makeStyle } from './style.js'
import { durationText, formatRun, num, oneLine } from './summary.js'

/** Help text of `watch`. @since 0.1.0 */
export const watchHelp = (): string => `Usage: run-outcome watch [FILE|-] [options]

Follows a live agent stream and prints each run's result as soon as it ends (not at EOF).
Reads standard input by default (a pipe), or follows a growing FILE like 'tail -f'.
While it waits, a one-line status (turns, tool calls, tokens, cost, elapsed time, current
activity) is shown on stderr when stderr is a terminal. Ctrl-C prints what is known so far
as an unfinished run.

A Codex rollout's run is printed once its task_complete (or turn_aborted) has arrived and the
input pauses (${QUIET_MS} ms on a pipe, that plus two --poll intervals on a followed file);
records of it that come later are noted on stderr. Logs that write no ending record per run
(Claude Code transcripts, Codex 0.40 rollouts) show each run when the next prompt starts,
since only then is its ending known. A followed file that is truncated or replaced is read
again from its start; one that is removed is waited for.

Options:
  --format F       auto (default) or one of: ${formats.map((f) => f.name).join(', ')}
  --json           print one JSON object per run (JSONL)
  --accept KIND    also count this ending kind as success for the exit status (repeatable)
  --poll MS        how often to check a followed file for new data (default 250)
  -h, --help       show this help

Exit status: as replay (0 every run answered or accepted, 1 otherwise, 2 usage/input error,
3 protocol error).

Examples:
  claude -p "fix the failing test" --output-format stream-json --verbose | run-outcome watch
  codex exec --json "summarise the repo" | run-outcome watch --json
  run-outcome watch ~/.codex/sessions/2026/11/30/rollout-2026-11-30T09-00-00-….jsonl
`

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

/**
 * Follows a growing file like `tail -F`: yields new bytes as they are appended, until `stopped()` says so.
 * A file truncated in place, or replaced by another (a new inode under the same path, as a write-then-rename
 * does), is read again from its start; a removed file is waited for. Each such event is reported to `onNote`.
 */
async function* follow(
  path: string,
  pollMs: number,
  stopped: () => boolean,
  wake: { resolve: (() => void) | null },
  onNote: (message: string) => void,
): AsyncGenerator<Buffer> {
  let handle = await open(path, 'r')
  try {
    let ino = (await handle.stat()).ino
    let position = 0
    let missing = false
    const buf = Buffer.alloc(256 * 1024)
    while (!stopped()) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, position)
      if (bytesRead > 0) {
        position += bytesRead
        yield Buffer.from(buf.subarray(0, bytesRead))
        continue
      }
      const now = await stat(path).catch(() => null)
      if (now === null) {
        if (!missing) onNote(`${path} was removed; waiting for it to come back (Ctrl-C to stop)`)
        missing = true
      } else if (now.ino !== ino) {
        // replaced: read the new file from its start (what is left of the old one was read above)
        const next = await open(path, 'r').catch(() => null)
        if (next !== null) {
          await handle.close()
          handle = next
          ino = (await handle.stat()).ino
          position = 0
          missing = false
          onNote(`${path} was replaced by a new file; reading it from its start`)
          continue
        }
      } else if (now.size < position) {
        position = 0
        missing = false
        onNote(`${path} was truncated; reading it again from its start`)
        continue
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs)
        wake.resolve = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      wake.resolve = null
    }
  } finally {
    await handle.close()
  }
}

/** Wraps a source so that it ends as soon as `stop` is called, even while a read is pending. */
const stoppable = (source: AsyncIterable<Uint8Array | string>): { iterable: AsyncIterable<Uint8Array | string>; stop: () => void } => {
  let stopper: (() => void) | null = null
  const stopped = new Promise<IteratorResult<Uint8Array | string>>((resolve) => {
    stopper = () => resolve({ done: true, value: undefined })
  })
  const it = source[Symbol.asyncIterator]()
  return {
    iterable: {
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.race([it.next(), stopped]),
        return: async () => {
          void it.return?.()
          return { done: true, value: undefined }
        },
      }),
    },
    stop: () => stopper?.(),
  }
}

/** Runs `watch`; returns the exit status. Never throws. @since 0.1.0 */
export const watchCommand = async (argv: ReadonlyArray<string>, io: CliIO): Promise<number> => {
  const parsed = parseCommand('watch', argv, { ...commonOptions, poll: { type: 'string' as const, default: '250' } }, io)
  if (parsed === undefined) return EXIT.usage
  const v = parsed.values
  if (v.help) {
    io.stdout.write(watchHelp())
    return EXIT.ok
  }
  if (parsed.positionals.length > 1) {
    io.stderr.write(`run-outcome watch: follows one stream at a time; for several logs use 'run-outcome replay' or 'run-outcome stats'.\n`)
    return EXIT.usage
  }
  const format = v.format ?? 'auto'
  if (!checkFormat('watch', format, io)) return EXIT.usage
  const accept = checkAccept('watch', v.accept, io)
  if (accept === undefined) return EXIT.usage
  const pollMs = Number(v.poll)
  if (!Number.isFinite(pollMs) || pollMs < 10) {
    io.stderr.write('run-outcome watch: --poll takes milliseconds (10 or more)\n')
    return EXIT.usage
  }
  const input = parsed.positionals[0] ?? '-'
  if (input === '-' && io.stdin.isTTY === true) {
    io.stderr.write(`run-outcome watch: nothing is piped in. Pipe an agent's output into it, e.g.\n  claude -p "…" --output-format stream-json --verbose | run-outcome watch\nor give a log file to follow.\n`)
    return EXIT.usage
  }

  const style = makeStyle(colorEnabled(io.stdout, io.env))
  const errStyle = makeStyle(colorEnabled(io.stderr, io.env))
  const live = io.stderr.isTTY === true
  const started = Date.now()
  let count = 0
  let code: number = EXIT.ok
  let reader: LineReader | undefined
  let interrupted = false
  let statusShown = false
  const clearStatus = (): void => {
    if (statusShown) {
      io.stderr.write('\r\x1b[K')
      statusShown = false
    }
  }
  const print = (r: RunResult): void => {
    count++
    code = worst(code, isSuccess(r.ending, { accept }) ? EXIT.ok : EXIT.notSuccess)
    clearStatus()
    io.stdout.write(v.json ? `${safeJson(r as unknown as Record<string, unknown>)}\n` : formatRun(r, `run ${count}`, style))
  }
  let frame = 0
  // the prompt side in one figure, with the cached part named, so it adds up to the result's buckets
  const inTokens = (u: RunResult['usage']): string => {
    const cached = u.cacheReadTokens + u.cacheWriteTokens
    return `${num(u.inputTokens + cached)} in${cached > 0 ? ` (${num(cached)} cache)` : ''}`
  }
  const drawStatus = (): void => {
    if (!live || interrupted) return
    const snap = reader?.snapshot?.()
    const elapsed = durationText(Date.now() - started)
    const spin = SPINNER[frame++ % SPINNER.length] ?? '·'
    let text: string
    if (snap === undefined) text = `${spin} waiting for a run · ${count} finished · ${elapsed}`
    else {
      const u = snap.usage
      const activity = snap.ending.kind === 'unfinished' && snap.ending.lastEventType !== undefined ? ` · last: ${oneLine(snap.ending.lastEventType, 30)}` : ''
      const plural = (n: number, word: string): string => `${num(n)} ${word}${n === 1 ? '' : 's'}`
      text = `${spin} run ${count + 1} · ${plural(snap.turns, 'turn')} · ${plural(snap.toolCalls, 'tool call')} · ${inTokens(u)} / ${num(u.outputTokens)} out tokens · ${snap.cost.totalUsd === null ? 'cost so far unknown' : `$${snap.cost.totalUsd.toFixed(4)}`} · ${elapsed}${activity}`
    }
    const width = (io.stderr.columns ?? 100) - 1
    io.stderr.write(`\r\x1b[K${errStyle.dim(text.length > width ? `${text.slice(0, width - 1)}…` : text)}`)
    statusShown = true
  }
  const timer = live ? setInterval(drawStatus, 200) : undefined

  const wake: { resolve: (() => void) | null } = { resolve: null }
  let isFile = false
  if (input !== '-') {
    try {
      const st = await stat(input)
      if (st.isDirectory()) {
        io.stderr.write(`run-outcome watch: ${input} is a directory; watch follows one log (use 'run-outcome stats ${input}')\n`)
        if (timer) clearInterval(timer)
        return EXIT.usage
      }
      isFile = true
    } catch {
      io.stderr.write(`run-outcome watch: cannot read ${input}: no such file or directory\n`)
      if (timer) clearInterval(timer)
      return EXIT.usage
    }
  }
  const noteLine = (message: string): void => {
    clearStatus()
    io.stderr.write(`run-outcome watch: ${message}\n`)
  }
  const raw: AsyncIterable<Uint8Array | string> = isFile ? follow(input, pollMs, () => interrupted, wake, noteLine) : io.stdin
  const source = stoppable(raw)
  const onStop = (): void => {
    if (interrupted) return
    interrupted = true
    wake.resolve?.()
    source.stop()
    const destroy = (io.stdin as { destroy?: () => void }).destroy
    if (!isFile && typeof destroy === 'function') destroy.call(io.stdin)
  }
  const unhook = [io.onSignal?.('SIGINT', onStop), io.onSignal?.('SIGTERM', onStop)]

  try {
    const outcome = await replayStream(source.iterable, print, {
      format,
      file: isFile ? input : null,
      live: true,
      // a followed file arrives at poll ticks: a pause must outlast the poll interval to be one
      quietMs: isFile ? QUIET_MS + 2 * pollMs : QUIET_MS,
      note: (line, message) => {
        clearStatus()
        io.stderr.write(`run-outcome watch: ${line !== undefined ? `line ${line}: ` : ''}${message}\n`)
      },
      onReader: (r) => {
        reader = r
      },
    })
    for (const n of outcome.notes) noteLine(n)
    if (outcome.error !== undefined) {
      clearStatus()
      io.stderr.write(`run-outcome watch: protocol error: ${outcome.error.message}\n`)
      return EXIT.protocol
    }
    if (interrupted) clearStatus()
    if (count === 0 && !interrupted) {
      // nothing ended and nothing is open: the reader's end() already emitted the unfinished run
    }
    return code
  } catch (e) {
    clearStatus()
    if (e instanceof ReplayError) {
      io.stderr.write(`run-outcome watch: ${e.message}\n`)
      return worst(code, EXIT.usage)
    }
    io.stderr.write(`run-outcome watch: the stream failed: ${e instanceof Error ? oneLine(e.message, 120) : 'read error'}\n`)
    return worst(code, EXIT.usage)
  } finally {
    if (timer) clearInterval(timer)
    for (const u of unhook) u?.()
  }
}
