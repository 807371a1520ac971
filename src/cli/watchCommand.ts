/**
 * `run-outcome watch [FILE|-] [--format F] [--json]`: follow a live agent stream, show a status line, and print
 * each run's result the moment it ends.
 * @module
 */
import { constants, createReadStream, open as openFd } from 'node:fs'
import { open, stat } from 'node:fs/promises'
import { Socket } from 'node:net'
import { isSuccess } from '../core/RunEnding.js'
import type { ProtocolError } from '../core/ProtocolError.js'
import type { RunResult } from '../core/RunResult.js'
import { formats } from '../formats/index.js'
import { QUIET_MS, type LineReader } from '../formats/types.js'
import { EMPTY_INPUT_NOTE, ReplayError, replayStream } from '../node/replay.js'
import { checkAccept, checkFormat, commonOptions, parseCommand } from './args.js'
import { LINE_CAP_TEXT } from '../io/lines.js'
import { estimatorOf, PRICE_PACKAGE, priceDataOf } from '../prices/genaiPrices.js'
import { estimateSettings } from './estimates.js'
import { EXIT, outputWidth, safeJson, worst, type CliIO } from './io.js'
import { escapeC1, forTerminal } from './sanitize.js'
import { isJson, startsAsDocument, watchDocument } from './watchDocument.js'
import { colorEnabled, makeStyle } from './style.js'
import { durationText, formatRun, num, oneLine, shortNumber } from './summary.js'
import { fitHelp, helpWidth } from './helpText.js'

/** `--poll` range, ms: often enough to feel live, rarely enough not to busy-poll. @since 0.2.0 */
export const POLL_RANGE = { min: 10, max: 60_000 } as const

/** Help text of `watch`. @since 0.1.0 */
export const watchHelp = (): string => `Usage: run-outcome watch [FILE|-] [options]

Follows a live agent stream and prints each run's result as soon as it ends (not at EOF).
Reads standard input by default (a pipe), or follows a growing FILE like 'tail -F'; a named
pipe, /dev/stdin or <(command) is read as a stream, to its end.
While it waits, a one-line status (turns, tool calls, tokens, cost, elapsed time, current
activity) is shown on stderr when stderr is a terminal, and erased when watch ends.

Cost: a cost the log reports is shown as is; every other model request is priced from
the prices bundled with ${PRICE_PACKAGE} (offline), as replay and stats do, and
marked ~ (estimated) in the status line and the result; --json adds cost.priceData.

Ctrl-C (or SIGTERM, SIGHUP) stops reading and prints the run still open as the records so far
show it, as replay would print the same records: unfinished when they hold no ending, or, for
logs that write no ending record (Claude Code transcripts), the ending inferred from the last
records, marked (inferred). A second Ctrl-C ends at once. watch also ends when the reader of
its output has gone (| head), which it learns at its next write (a pipe tells no sooner).

A Codex rollout's run is printed once its task_complete (or turn_aborted) has arrived and the
input pauses (${QUIET_MS} ms on a pipe, that plus two --poll intervals on a followed file);
records of it that come later are noted on stderr. Logs that write no ending record per run
(Claude Code transcripts, Codex 0.40 rollouts) show each run when the next prompt starts,
since only then is its ending known. A file holding one JSON document (a Gemini CLI session
file, which is written whole again after each message) is read whole each time it changes:
each run is printed once a later prompt has begun, the last at Ctrl-C. A followed file that is truncated or replaced is read
again from its start as a new input (the old content's open run is printed first, as
replay would print it; the new content's lines count from 1); one that is removed is
waited for; one
replaced by a directory ends
watch (the open run is printed, exit 2). A line over ${LINE_CAP_TEXT} is skipped
with a note naming its line and size.

Options:
  --format F       auto (default) or one of: ${formats.map((f) => f.name).join(', ')}
  --json           print one JSON object per run (JSONL)
  --accept KIND    also count this ending kind as success for the exit status (repeatable)
  --poll MS        how often to check a followed file for new data (default 250,
                   ${POLL_RANGE.min} to ${POLL_RANGE.max.toLocaleString('en-US')})
  --prices FILE    a JSON price table (USD per million tokens: input, output,
                   cachedInput, cacheWrite per model) over the bundled prices of
                   ${PRICE_PACKAGE} (see stats --help)
  --no-estimate    no estimates, only the costs the logs report
  --color, --no-color  force colours on or off (default: on a terminal, unless NO_COLOR)
  -h, --help       show this help

Exit status: as replay (0 every run answered or accepted, 1 otherwise, 2 usage/input error,
3 protocol error).

Examples:
  claude -p "fix the failing test" --output-format stream-json --verbose | run-outcome watch
  codex exec --json "summarise the repo" | run-outcome watch --json
  run-outcome watch "$(ls -t ~/.codex/sessions/*/*/*/rollout-*.jsonl | head -1)"
`

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

/** Names of this process's standard input. */
const STDIN_PATH = /^\/(?:dev\/stdin|dev\/fd\/0|proc\/self\/fd\/0)$/

/** A path as it may be printed: control characters shown as escapes (cli/sanitize.ts). */
const display = (p: string): string => forTerminal(p)

/** The followed path is no longer a regular file (replaced by a directory, a pipe, …): following it ends. */
class NotAFile extends Error {
  override readonly name = 'NotAFile'
}

/** What {@link follow} yields between a file's old content and its new one (compared by identity). */
const RESET: Buffer = Buffer.alloc(0)

/**
 * One generation of a followed file: the chunks of `source` up to the next {@link RESET} (then `reset()` is true)
 * or its end. Each generation is replayed as an input of its own, so a file truncated or replaced and written
 * again starts from fresh state (its seqs, lines and runs are its own). `return()` is passed on to `source` only
 * when the generation did not end at a reset (the replay stopped early: nothing more is read).
 */
const generation = (source: AsyncIterator<Uint8Array | string>): { iterable: AsyncIterable<Uint8Array | string>; reset: () => boolean } => {
  let reset = false
  let ended = false
  const done: IteratorResult<Uint8Array | string> = { done: true, value: undefined }
  return {
    iterable: {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          if (ended) return done
          const r = await source.next()
          if (r.done === true || r.value === RESET) {
            ended = true
            reset = r.done !== true
            return done
          }
          return r
        },
        return: async () => {
          ended = true
          if (!reset) await source.return?.()
          return done
        },
      }),
    },
    reset: () => reset,
  }
}

/**
 * Follows a growing file like `tail -F`: yields new bytes as they are appended, until `stopped()` says so.
 * A file truncated in place, or replaced by another (a new inode under the same path, as a write-then-rename
 * does), is read again from its start, after {@link RESET} (the new content is a new input); a removed file is
 * waited for. Each such event is reported to `onNote`.
 * A path replaced by something that is not a regular file (a directory) ends the iteration with `NotAFile`.
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
        if (!missing) onNote(`${display(path)} was removed; waiting for it to come back (Ctrl-C to stop)`)
        missing = true
      } else if (now.ino !== ino) {
        // replaced: read the new file from its start (what is left of the old one was read above); a path that
        // is now a directory or a pipe cannot be followed (opening a pipe would block until a writer comes)
        if (!now.isFile())
          throw new NotAFile(`it was replaced by ${now.isDirectory() ? 'a directory' : 'something that is not a regular file'}; watch follows a file`)
        const next = await open(path, 'r').catch(() => null)
        if (next !== null) {
          await handle.close()
          handle = next
          ino = (await handle.stat()).ino
          position = 0
          missing = false
          onNote(`${display(path)} was replaced by a new file; reading it from its start`)
          yield RESET
          continue
        }
      } else if (now.size < position) {
        position = 0
        missing = false
        onNote(`${display(path)} was truncated; reading it again from its start`)
        yield RESET
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

/**
 * A named pipe, `/dev/stdin` or `<(…)` read as a stream, to its end (no positional reads: they fail with
 * `ESPIPE` on a pipe). A FIFO is opened without blocking, so Ctrl-C works before any writer has come.
 */
const streamOf = async (path: string, fifo: boolean): Promise<{ readonly source: AsyncIterable<Uint8Array | string>; readonly close: () => void }> => {
  if (fifo) {
    // a raw descriptor, not a FileHandle: the socket owns and closes it (a FileHandle would close it again when
    // collected, and that EBADF ends the process)
    const fd = await new Promise<number>((resolve, reject) => {
      openFd(path, constants.O_RDONLY | constants.O_NONBLOCK, (err, n) => (err === null ? resolve(n) : reject(err)))
    })
    const socket = new Socket({ fd, readable: true, writable: false })
    return { source: socket, close: () => socket.destroy() }
  }
  const stream = createReadStream(path, { highWaterMark: 256 * 1024 })
  return { source: stream, close: () => stream.destroy() }
}

/**
 * Wraps a source so that it ends as soon as `stop` is called, even while a read is pending, and so that a
 * read error after some input ends it too (kept in `failure`, for the caller to report once the open run is
 * printed; an error before any input is passed on: there is no run to print). Each read races only with its own
 * stop (a never-settling promise raced per read would keep every chunk alive).
 */
const stoppable = (
  source: AsyncIterable<Uint8Array | string>,
): { iterable: AsyncIterable<Uint8Array | string>; stop: () => void; readonly failure: () => unknown; readonly stopRequested: () => boolean } => {
  let stopNow: (() => void) | null = null
  let stopped = false
  let failure: unknown
  let any = false
  // a read that fails because we stopped (stdin destroyed: "Premature close") is no failure
  let stopRequested = false
  const it = source[Symbol.asyncIterator]()
  const done: IteratorResult<Uint8Array | string> = { done: true, value: undefined }
  return {
    iterable: {
      [Symbol.asyncIterator]: () => ({
        next: () =>
          stopped
            ? Promise.resolve(done)
            : new Promise<IteratorResult<Uint8Array | string>>((resolve, reject) => {
                stopNow = () => resolve(done)
                it.next().then(
                  (r) => {
                    stopNow = null
                    if (r.done !== true) any = true
                    resolve(r)
                  },
                  (e: unknown) => {
                    stopNow = null
                    stopped = true
                    if (stopRequested) {
                      resolve(done)
                      return
                    }
                    if (!any) {
                      reject(e)
                      return
                    }
                    failure ??= e
                    resolve(done)
                  },
                )
              }),
        return: async () => {
          stopped = true
          void Promise.resolve(it.return?.()).catch(() => {})
          return done
        },
      }),
    },
    stop: () => {
      stopRequested = true
      stopped = true
      stopNow?.()
      stopNow = null
    },
    failure: () => failure,
    stopRequested: () => stopRequested,
  }
}

/** The longest start of a line {@link wholeLines} holds back (bytes); a longer one passes on as it comes. */
const HOLD_MAX = 1024 * 1024

/**
 * The chunks of `source` cut after their last newline: the start of a line still being written is held back and
 * put before the next chunk, so a watch stopped between two reads (Ctrl-C, its reader gone) leaves a line it has
 * only half read unread, instead of reading it as a last line cut off (a false diagnostic). At the input's own end
 * what is held is passed on (a last line without a newline is read as one); when `stopped()` it is dropped, unless
 * it is whole JSON by itself (a last record only its newline is missing from) or the input is a JSON document spread
 * over lines (what is held is its closing bracket: a Gemini CLI session file ends without a newline). A line
 * start over {@link HOLD_MAX} passes on as it comes (memory stays bounded; the line cap applies downstream), and
 * so does a gzip input (its bytes hold no lines; the replay inflates them).
 * `return()` is passed on at once, never queued behind a pending read.
 */
const wholeLines = (source: AsyncIterable<Uint8Array | string>, stopped: () => boolean): AsyncIterable<Uint8Array> => ({
  [Symbol.asyncIterator]: () => {
    const it = source[Symbol.asyncIterator]()
    let carry: Buffer | null = null
    let passing = false
    let ended = false
    /** The input is gzip (its first byte is the magic's 0x1f): decided at the first bytes. */
    let gzip: boolean | undefined
    const done: IteratorResult<Uint8Array> = { done: true, value: undefined }
    /**
     * The input is a JSON document spread over lines (a Gemini CLI session file): its first non-blank line starts
     * with `{` or `[` and is not JSON by itself, as the replay decides it. Its last line is its closing bracket.
     */
    let document: boolean | undefined
    const next = async (): Promise<IteratorResult<Uint8Array>> => {
      while (!ended) {
        const r = await it.next()
        if (r.done === true) {
          ended = true
          break
        }
        const c = r.value
        let chunk = typeof c === 'string' ? Buffer.from(c) : Buffer.from(c.buffer, c.byteOffset, c.byteLength)
        // gzip bytes (the replay inflates them) have no lines to keep whole: they pass on as they come
        if (gzip === undefined && chunk.length > 0) gzip = chunk[0] === 0x1f
        if (gzip === true) return { done: false, value: chunk }
        if (carry !== null) {
          chunk = Buffer.concat([carry, chunk])
          carry = null
        }
        const nl = chunk.lastIndexOf(10)
        if (nl === -1) {
          if (passing || chunk.length > HOLD_MAX) {
            passing = true
            return { done: false, value: chunk }
          }
          carry = chunk
          continue
        }
        passing = false
        document ??= startsAsDocument(chunk)
        if (nl + 1 < chunk.length) carry = Buffer.from(chunk.subarray(nl + 1))
        return { done: false, value: nl + 1 === chunk.length ? chunk : chunk.subarray(0, nl + 1) }
      }
      const rest = carry
      carry = null
      // stopped: a line still being written is dropped, but not a document's closing bracket, nor a last record
      // that is whole JSON and only lacks its newline
      return rest !== null && (!stopped() || document === true || isJson(rest)) ? { done: false, value: rest } : done
    }
    return {
      next,
      return: async () => {
        ended = true
        carry = null
        await it.return?.()
        return done
      },
    }
  },
})

/** Whether the file at `path` starts as a JSON document spread over lines (its first 64 KiB decide, if they can). */
const documentFile = async (path: string): Promise<boolean> => {
  const handle = await open(path, 'r').catch(() => null)
  if (handle === null) return false
  try {
    const b = Buffer.alloc(64 * 1024)
    const { bytesRead } = await handle.read(b, 0, b.length, 0)
    return startsAsDocument(b.subarray(0, bytesRead)) === true
  } catch {
    return false
  } finally {
    await handle.close()
  }
}

/** Why reading failed, in words (never an echo of input). */
const readFailure = (e: unknown): string => {
  if (e instanceof NotAFile) return e.message
  const code = (e as { code?: unknown } | null)?.code
  if (code === 'EISDIR') return 'cannot read it: is a directory'
  if (code === 'EACCES') return 'cannot read it: permission denied'
  if (code === 'ENOENT') return 'cannot read it: it was removed'
  return `the stream failed: ${e instanceof Error ? oneLine(e.message, 120) : 'read error'}`
}

/** Runs `watch`; returns the exit status. Never throws. @since 0.1.0 */
export const watchCommand = async (argv: ReadonlyArray<string>, io: CliIO): Promise<number> => {
  const parsed = parseCommand(
    'watch',
    argv,
    {
      ...commonOptions,
      poll: { type: 'string' as const, default: '250' },
      prices: { type: 'string' as const },
      estimate: { type: 'boolean' as const },
    },
    io,
  )
  if (parsed === undefined) return EXIT.usage
  const v = parsed.values
  if (v.help) {
    io.stdout.write(fitHelp(watchHelp(), helpWidth(io.stdout, io.env)))
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
  if (!Number.isFinite(pollMs) || pollMs < POLL_RANGE.min || pollMs > POLL_RANGE.max) {
    io.stderr.write(`run-outcome watch: --poll takes milliseconds, from ${POLL_RANGE.min} to ${POLL_RANGE.max}\n`)
    return EXIT.usage
  }
  const settings = await estimateSettings('watch', v.prices, v.estimate, io)
  if (settings === undefined) return EXIT.usage
  const estimate = estimatorOf(settings)
  const priceData = priceDataOf(settings)
  const input = parsed.positionals[0] ?? '-'
  if (input === '-' && io.stdin.isTTY === true) {
    io.stderr.write(
      `run-outcome watch: nothing is piped in. Pipe an agent's output into it, e.g.\n  claude -p "…" --output-format stream-json --verbose | run-outcome watch\nor give a log file to follow.\n`,
    )
    return EXIT.usage
  }

  // a path: a regular file is followed; a named pipe, /dev/stdin or <(…) is read as a stream
  let kind: 'stdin' | 'file' | 'fifo' | 'stream' = 'stdin'
  if (input !== '-') {
    try {
      const st = await stat(input)
      if (st.isDirectory()) {
        io.stderr.write(`run-outcome watch: ${display(input)} is a directory; watch follows one log (use 'run-outcome stats ${display(input)}')\n`)
        return EXIT.usage
      }
      // our own standard input named as a path (/dev/stdin, /dev/fd/0): read as stdin unless it is a file to follow
      // (a socket on fd 0 cannot be opened again through its name)
      kind = st.isFile() ? 'file' : STDIN_PATH.test(input) ? 'stdin' : st.isFIFO() ? 'fifo' : 'stream'
    } catch (e) {
      const code = (e as { code?: unknown }).code
      io.stderr.write(`run-outcome watch: cannot read ${display(input)}: ${code === 'EACCES' ? 'permission denied' : 'no such file or directory'}\n`)
      return EXIT.usage
    }
  }

  const style = makeStyle(colorEnabled(io.stdout, io.env))
  const errStyle = makeStyle(colorEnabled(io.stderr, io.env))
  const live = io.stderr.isTTY === true
  const started = Date.now()
  let count = 0
  let code: number = EXIT.ok
  let reader: LineReader | undefined
  /** A followed JSON document's last run (cli/watchDocument.ts): what the status line shows of it. */
  let openRun: RunResult | undefined
  let interrupted = false
  let statusShown = false
  const clearStatus = (): void => {
    if (statusShown) {
      io.stderr.write('\r\x1b[K')
      statusShown = false
    }
  }
  /** The reader of our output has gone (`| head`): nothing more can be shown, so stop following. */
  const outputGone = (): boolean => io.stdout.closed === true
  let onStop: () => void = () => {}
  const print = (r: RunResult): void => {
    count++
    code = worst(code, isSuccess(r.ending, { accept }) ? EXIT.ok : EXIT.notSuccess)
    clearStatus()
    // an estimated cost says what it was estimated with, as replay --json does
    const shown = r.cost.estimated === true && priceData !== null ? { ...r, cost: { ...r.cost, priceData } } : r
    io.stdout.write(v.json ? `${safeJson(shown as unknown as Record<string, unknown>)}\n` : formatRun(r, `run ${count}`, style, outputWidth(io.stdout, io.env)))
    if (outputGone()) onStop()
  }
  let frame = 0
  // "in" means what it means in the result block: input not served from cache; the cache is named beside it
  const inTokens = (u: RunResult['usage']): string => {
    const cached = u.cacheReadTokens + u.cacheWriteTokens
    return `${num(u.inputTokens)} in${cached > 0 ? ` + ${num(cached)} cache` : ''}`
  }
  const drawStatus = (): void => {
    if (outputGone()) {
      onStop()
      return
    }
    if (!live || interrupted) return
    const snap = reader?.snapshot?.() ?? openRun
    const elapsed = durationText(Date.now() - started)
    const spin = SPINNER[frame++ % SPINNER.length] ?? '·'
    let text: string
    if (snap === undefined) text = `${spin} waiting for a run · ${count} finished · ${elapsed}`
    else {
      const u = snap.usage
      const activity = snap.ending.kind === 'unfinished' && snap.ending.lastEventType !== undefined ? ` · last: ${oneLine(snap.ending.lastEventType, 30)}` : ''
      const plural = (n: number, word: string): string => `${num(n)} ${word}${n === 1 ? '' : 's'}`
      const cost = snap.cost.totalUsd === null ? 'cost so far unknown' : `${snap.cost.estimated === true ? '~' : ''}$${snap.cost.totalUsd.toFixed(4)}`
      const full = `${spin} run ${count + 1} · ${plural(snap.turns, 'turn')} · ${plural(snap.toolCalls, 'tool call')} · ${inTokens(u)} / ${num(u.outputTokens)} out tokens · ${cost} · ${elapsed}${activity}`
      // narrower terminals: the same figures shorter, then only what matters most (cost and time stay visible)
      const shortCost = snap.cost.totalUsd === null ? 'cost ?' : cost
      // "in" means what it means in the result (input not read from or written to the cache); cache tokens apart
      const cached = u.cacheReadTokens + u.cacheWriteTokens
      const tokens = `${shortNumber(u.inputTokens)} in${cached > 0 ? ` + ${shortNumber(cached)} cache` : ''} / ${shortNumber(u.outputTokens)} out`
      const compact = `${spin} run ${count + 1} · ${num(snap.turns)}t ${snap.toolCalls === 1 ? '1 tool' : `${num(snap.toolCalls)} tools`} · ${tokens} · ${shortCost} · ${elapsed}`
      const width = (io.stderr.columns ?? 100) - 1
      text = [full, `${compact}${activity}`, compact, `${spin} run ${count + 1} · ${shortCost} · ${elapsed}`].find((t) => t.length <= width) ?? full
    }
    const width = (io.stderr.columns ?? 100) - 1
    io.stderr.write(`\r\x1b[K${errStyle.dim(text.length > width ? `${text.slice(0, width - 1)}…` : text)}`)
    statusShown = true
  }
  // the status line on a terminal; otherwise a slower check that the output's reader is still there
  const timer = setInterval(drawStatus, live ? 200 : 1000)

  const wake: { resolve: (() => void) | null } = { resolve: null }
  const noteLine = (message: string): void => {
    clearStatus()
    io.stderr.write(`run-outcome watch: ${forTerminal(message)}\n`)
  }
  /** A protocol error as replay reports it (SPEC §1): one line, and with --json the error as JSON too; exit 3. */
  const protocolError = (e: ProtocolError): number => {
    noteLine(`protocol error: ${e.message}`)
    if (v.json) io.stderr.write(`${escapeC1(JSON.stringify(e.toJSON()))}\n`)
    return EXIT.protocol
  }
  if (kind === 'file' && (await documentFile(input))) {
    // a JSON document is written whole again as its session goes on: read whole at each change (cli/watchDocument.ts)
    onStop = (): void => {
      if (interrupted) return
      interrupted = true
      wake.resolve?.()
    }
    const unhookDocument = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => io.onSignal?.(sig, onStop))
    try {
      const r = await watchDocument({
        path: input,
        pollMs,
        options: { format, file: input, ...(estimate !== undefined ? { estimate } : {}) },
        stopped: () => interrupted,
        wake,
        print,
        onOpenRun: (r) => {
          openRun = r
        },
        note: noteLine,
      })
      if (r.error !== undefined) return protocolError(r.error)
      if (r.failure === undefined) return code
      noteLine(r.failure)
      return worst(code, EXIT.usage)
    } finally {
      wake.resolve?.()
      clearInterval(timer)
      clearStatus()
      for (const u of unhookDocument) u?.()
    }
  }
  let closeStream: (() => void) | undefined
  /** The replay has ended (whatever way): a followed file stops being polled. */
  let finished = false
  let raw: AsyncIterable<Uint8Array | string>
  try {
    if (kind === 'file') raw = follow(input, pollMs, () => interrupted || finished, wake, noteLine)
    else if (kind === 'fifo' || kind === 'stream') {
      const s = await streamOf(input, kind === 'fifo')
      raw = s.source
      closeStream = s.close
    } else raw = io.stdin
  } catch (e) {
    clearInterval(timer)
    const why = (e as { code?: unknown }).code === 'EACCES' ? 'permission denied' : 'not readable'
    io.stderr.write(`run-outcome watch: cannot read ${display(input)}: ${why}\n`)
    return EXIT.usage
  }
  const source = stoppable(raw)
  /** Standard input is let go (a pipe whose writer lives on would keep the process waiting for its next bytes). */
  const releaseStdin = (): void => {
    const destroy = (io.stdin as { destroy?: () => void }).destroy
    if (kind === 'stdin' && typeof destroy === 'function') destroy.call(io.stdin)
  }
  onStop = (): void => {
    if (interrupted) return
    interrupted = true
    wake.resolve?.()
    source.stop()
    closeStream?.()
    releaseStdin()
  }
  const unhook = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => io.onSignal?.(sig, onStop))

  try {
    // one replay per generation of the input: a followed file truncated or replaced starts a new one
    const shared = source.iterable[Symbol.asyncIterator]()
    for (;;) {
      const gen = generation(shared)
      const outcome = await replayStream(wholeLines(gen.iterable, source.stopRequested), print, {
        format,
        file: kind === 'stdin' ? null : input,
        live: true,
        ...(estimate !== undefined ? { estimate } : {}),
        // a followed file arrives at poll ticks: a pause must outlast the poll interval to be one
        quietMs: kind === 'file' ? QUIET_MS + 2 * pollMs : QUIET_MS,
        note: (line, message) => noteLine(`${line !== undefined ? `line ${line}: ` : ''}${message}`),
        onReader: (r) => {
          reader = r
        },
      })
      // stopped before a record came: the input was not found empty, it was not read to its end
      for (const n of outcome.notes) noteLine(n === EMPTY_INPUT_NOTE && interrupted ? 'stopped before any record was read' : n)
      if (outcome.error !== undefined) return protocolError(outcome.error)
      if (!gen.reset() || interrupted) break
      reader = undefined
    }
    const failure = source.failure()
    if (failure !== undefined) {
      // the open run was printed as the records so far show it; the read error is an input error
      noteLine(`${kind === 'stdin' ? 'standard input' : input}: ${readFailure(failure)}`)
      return worst(code, EXIT.usage)
    }
    return code
  } catch (e) {
    if (e instanceof ReplayError) {
      noteLine(e.message)
      return worst(code, EXIT.usage)
    }
    noteLine(`${kind === 'stdin' ? 'standard input' : input}: ${readFailure(e)}`)
    return worst(code, EXIT.usage)
  } finally {
    // a followed file's poll ends too (after a protocol error the replay stops reading while a poll waits, and a
    // generator's return() would wait for a next yield that a file no longer growing never reaches)
    finished = true
    wake.resolve?.()
    clearInterval(timer)
    // the status line never stays on screen, however watch ends
    clearStatus()
    closeStream?.()
    // after a protocol error or a read failure nothing more is read: a pipe's writer must not hold watch open
    releaseStdin()
    for (const u of unhook) u?.()
  }
}
