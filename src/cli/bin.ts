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
 *   otherwise no new output starts, what is already being written is finished (a `--json` line is never cut),
 *   and the process then ends by that signal, as an interrupted command does. A second signal while a command is
 *   stopping does the same at once.
 * - **Standard input that is a directory** (`replay - < /`) is a read error (`EISDIR`, exit 2), not empty input.
 * - **Anything unexpected** (an exception no command caught) is one line on stderr and exit 2, never a stack trace.
 *
 * @module
 */
import { fstatSync } from 'node:fs'
import type { CliIO, Signal } from './io.js'
import { main } from './main.js'
import { forTerminal } from './sanitize.js'

let stdoutClosed = false
let stdoutFailure: string | undefined
let stderrClosed = false
/** Set by a signal nobody handles: no new output starts. */
let stopping = false

process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  stdoutClosed = true
  if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED' && stdoutFailure === undefined) stdoutFailure = e.code ?? 'write error'
})
process.stderr.on('error', () => {
  stderrClosed = true
})

/**
 * Output to a file or pipe is gathered and written once per turn of the event loop (or per 64 KiB): a write to
 * fd 1 is a system call, and `replay --json` of a log of 9,000 runs spent ~80 ms making one per run. Commands
 * write whole lines, so what is gathered is whole lines; a terminal gets each write at once (its lines
 * interleave with stderr's as they were written).
 */
let gathered = ''
let flushQueued = false
const GATHER_BYTES = 64 * 1024
const writeGathered = (): void => {
  flushQueued = false
  if (gathered === '') return
  const s = gathered
  gathered = ''
  if (!stdoutClosed) process.stdout.write(s)
}
const gather = (s: string): boolean => {
  if (process.stdout.isTTY === true) return process.stdout.write(s)
  gathered += s
  if (gathered.length >= GATHER_BYTES) writeGathered()
  else if (!flushQueued) {
    flushQueued = true
    setImmediate(writeGathered)
  }
  return true
}

const stdout = {
  write: (s: string): boolean => (stdoutClosed || stopping ? true : gather(s)),
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

const stderr = {
  write: (s: string): boolean => (stderrClosed ? true : process.stderr.write(s)),
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

/** Waits (at most `ms`) until what was written to stdout has gone out. */
const flushed = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    writeGathered()
    if (stdoutClosed || process.stdout.writableLength === 0) {
      resolve()
      return
    }
    const done = (): void => {
      clearTimeout(timer)
      resolve()
    }
    const timer = setTimeout(done, ms)
    process.stdout.once('drain', done)
    process.stdout.once('error', done)
    process.stdout.once('close', done)
  })

const SIGNALS: ReadonlyArray<Signal> = ['SIGINT', 'SIGTERM', 'SIGHUP']
const handlers = new Map<Signal, Array<() => void>>(SIGNALS.map((s) => [s, []]))
let handled = false

/** The default for a signal no command takes: finish the output in flight, then end by the signal. */
const dieBy = (signal: Signal): void => {
  if (stopping) return
  stopping = true
  void flushed(5000).then(() => {
    for (const s of SIGNALS) process.removeAllListeners(s)
    process.kill(process.pid, signal)
  })
}

for (const signal of SIGNALS) {
  process.on(signal, () => {
    const list = handlers.get(signal) ?? []
    const top = list[list.length - 1]
    if (top === undefined || handled) {
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
  (code) => {
    writeGathered()
    setImmediate(() => finish(code))
  },
  () => {
    process.exitCode = 2
  },
)
