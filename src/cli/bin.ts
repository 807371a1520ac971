#!/usr/bin/env node
/**
 * The `run-outcome` executable: runs `main` against the real process, and makes the process keep SPEC §1's exit
 * codes whatever happens around it:
 *
 * - **Closed pipes.** A reader that closes stdout early (`| head`) ends our output, not the run: later writes are
 *   dropped and the exit status still says how the runs ended (`watch` stops following). A closed stderr
 *   (`2>&1 | head -1`) drops messages; neither is an unhandled `EPIPE`. Any other stdout write error (a full disk)
 *   is reported on stderr and exits 2 — output is never lost silently.
 * - **Signals.** SIGINT, SIGTERM and SIGHUP go to the command that asked for them (`watch` prints the open run);
 *   otherwise no new output starts, what is already being written is finished (for up to 5 s), and the process
 *   then ends by that signal, as an interrupted command does. Into a pipe whose reader has stalled, output goes in
 *   pieces the kernel writes whole (gatheredOutput.ts), so the reader is left whole lines (a line over 4 KiB
 *   alone can be cut). A second signal while a command is stopping does the same at once.
 * - **Standard input that is a directory** (`replay - < /`) is a read error (`EISDIR`, exit 2), not empty input.
 * - **Anything unexpected** (an exception no command caught) is one line on stderr and exit 2, never a stack trace.
 *
 * @module
 */
import { fstatSync } from 'node:fs'
import type { CliIO, Signal } from './io.js'
import { FILE_PIECE_BYTES, GatheredOutput, PIPE_PIECE_BYTES } from './gatheredOutput.js'
import { main } from './main.js'
import { forTerminal } from './sanitize.js'

let stdoutClosed = false
let stdoutFailure: string | undefined
let stderrClosed = false
/** Set by a signal nobody handles: no new output starts. */
let stopping = false

process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  stdoutClosed = true
  gathered?.stop()
  if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED' && stdoutFailure === undefined) stdoutFailure = e.code ?? 'write error'
})
process.stderr.on('error', () => {
  stderrClosed = true
})

// output to a file or pipe is gathered into fewer writes (gatheredOutput.ts), except for the live commands, whose
// reader leaving (`| head`) shows only when a write of theirs fails
const LIVE_COMMANDS = new Set(['watch', 'consume'])
const gathered: GatheredOutput | undefined = (() => {
  if (process.stdout.isTTY === true || LIVE_COMMANDS.has(process.argv[2] ?? '')) return undefined
  let pipe = false
  try {
    const st = fstatSync(1)
    pipe = st.isFIFO() || st.isSocket()
  } catch {
    return undefined
  }
  const target = {
    write: (piece: string, done: () => void): void => {
      if (stdoutClosed) done()
      else process.stdout.write(piece, () => done())
    },
    get backlog(): number {
      return process.stdout.writableLength
    },
  }
  return new GatheredOutput(target, pipe ? PIPE_PIECE_BYTES : FILE_PIECE_BYTES)
})()
/** Hands on what stdout has gathered (at the end). */
const writeGathered = (): void => gathered?.flush()

const stdout = {
  write: (s: string): boolean => {
    if (stdoutClosed || stopping) return true
    if (gathered === undefined) return process.stdout.write(s)
    gathered.write(s)
    return true
  },
  get isTTY(): boolean {
    return process.stdout.isTTY === true
  },
  get columns(): number {
    return process.stdout.columns ?? 80
  },
  get closed(): boolean {
    return stdoutClosed
  },
}

const writeStderr = (s: string): void => {
  if (!stderrClosed) process.stderr.write(s)
}

const stderr = {
  // after what stdout was given before it has left: under `2>&1` a note stays after the runs it follows
  write: (s: string): boolean => {
    if (gathered === undefined) writeStderr(s)
    else gathered.aside(() => writeStderr(s))
    return true
  },
  get isTTY(): boolean {
    return process.stderr.isTTY === true
  },
  get columns(): number {
    return process.stderr.columns ?? 80
  },
}

/** An input whose first read fails with the error a read of fd 0 gives (`EISDIR` for a directory). */
const failingInput = (code: string, message: string): AsyncIterable<Uint8Array> & { isTTY: boolean } => ({
  isTTY: false,
  [Symbol.asyncIterator]: () => ({
    next: () => Promise.reject(Object.assign(new Error(message), { code })),
  }),
})

// /dev/null (or another character device that is no terminal) on fd 0: nothing can be piped in
const stdinIsDevice = (() => {
  try {
    return process.stdin.isTTY !== true && fstatSync(0).isCharacterDevice()
  } catch {
    return false
  }
})()

// Node hands a directory on fd 0 to the program as an empty stream: say what it is instead
const stdinIsDirectory = (() => {
  try {
    return fstatSync(0).isDirectory()
  } catch {
    return false
  }
})()

/**
 * Resolves once what the command wrote to stdout has left the process (gathered pieces and Node's queue), the
 * reader has gone, or `ms` milliseconds have passed (never, without `ms`).
 */
const flushed = (ms?: number): Promise<void> =>
  new Promise((resolve) => {
    writeGathered()
    const deadline = ms === undefined ? Number.POSITIVE_INFINITY : Date.now() + ms
    const check = (): void => {
      if (stdoutClosed || ((gathered?.idle ?? true) && process.stdout.writableLength === 0)) resolve()
      else if (Date.now() >= deadline) {
        // the process ends with stdout still queued: the notes waiting behind it are written now
        gathered?.stop()
        resolve()
      } else setTimeout(check, 10)
    }
    check()
  })

const SIGNALS: ReadonlyArray<Signal> = ['SIGINT', 'SIGTERM', 'SIGHUP']
const handlers = new Map<Signal, Array<() => void>>(SIGNALS.map((s) => [s, []]))
let handled = false

/** Ends the process by `signal` now, as the signal itself would. */
const endBy = (signal: Signal): void => {
  for (const s of SIGNALS) process.removeAllListeners(s)
  process.kill(process.pid, signal)
}

/**
 * The default for a signal no command takes: finish the output in flight, then end by the signal. A second
 * signal while stopping ends the process at once (it used to wait out the first one's 5 s like the first).
 */
const dieBy = (signal: Signal): void => {
  if (stopping) {
    endBy(signal)
    return
  }
  stopping = true
  void flushed(5000).then(() => endBy(signal))
}

for (const signal of SIGNALS) {
  process.on(signal, () => {
    const list = handlers.get(signal) ?? []
    const top = list[list.length - 1]
    // a second signal after a command took the first (watch printing its open run): at once, as documented
    if (handled) {
      endBy(signal)
      return
    }
    if (top === undefined) {
      dieBy(signal)
      return
    }
    handled = true
    top()
  })
}

const internalError = (e: unknown): void => {
  const message = e instanceof Error ? e.message : 'unknown'
  stderr.write(`run-outcome: internal error: ${forTerminal(message.slice(0, 200))}\n`)
  process.exitCode = 2
  void flushed(2000).then(() => process.exit(2))
}
process.on('uncaughtException', internalError)
process.on('unhandledRejection', internalError)

const io: CliIO = {
  stdin: stdinIsDirectory ? failingInput('EISDIR', 'standard input is a directory') : process.stdin,
  stdout,
  stderr,
  env: process.env,
  ...(stdinIsDevice ? { stdinPiped: false } : {}),
  onSignal: (signal: Signal, handler: () => void) => {
    const list = handlers.get(signal) as Array<() => void>
    list.push(handler)
    return () => {
      const i = list.lastIndexOf(handler)
      if (i >= 0) list.splice(i, 1)
    }
  },
}

/** The command's exit status, once its last output has been written (a write error may arrive a tick later). */
const finish = (code: number): void => {
  if (stdoutFailure !== undefined) {
    stderr.write(`run-outcome: could not write the output (${stdoutFailure}); it is incomplete\n`)
    process.exitCode = Math.max(code, 2)
    return
  }
  process.exitCode = code
}

main(process.argv.slice(2), io).then(
  // the status once the output has left (a write error may arrive a turn or a drain later)
  (code) => void flushed().then(() => setImmediate(() => finish(code))),
  () => {
    process.exitCode = 2
  },
)
