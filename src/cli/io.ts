/**
 * The CLI's injected world: streams, environment, exit codes. Tests call `main(argv, io)` in-process with
 * their own streams; `bin.ts` passes the real process.
 * @module
 */
import { boundedJson } from '../core/boundedJson.js'
import { escapeC1 } from './sanitize.js'

/** A writable text sink (process.stdout/stderr or a test buffer). @since 0.1.0 */
export interface TextSink {
  write(chunk: string): unknown
  readonly isTTY?: boolean
  readonly columns?: number
  /** `true` once the reader has gone (a closed pipe: `| head`): later writes are dropped, `watch` stops following. */
  readonly closed?: boolean
}

/** The signals a command can take over (`watch` prints the open run on each). @since 0.2.0 */
export type Signal = 'SIGINT' | 'SIGTERM' | 'SIGHUP'

/** What the CLI reads and writes. @since 0.1.0 */
export interface CliIO {
  readonly stdin: AsyncIterable<Uint8Array | string> & { readonly isTTY?: boolean }
  readonly stdout: TextSink
  readonly stderr: TextSink
  readonly env: Readonly<Record<string, string | undefined>>
  /**
   * `false` when nothing can be piped in on standard input although it is no terminal: `/dev/null` or another
   * character device (`replay </dev/null` from cron or CI). Commands that read the usual places when nothing is
   * piped in treat it as a terminal. Absent: decided by `stdin.isTTY` alone.
   */
  readonly stdinPiped?: boolean
  /**
   * Registers a handler for Ctrl-C (SIGINT), SIGTERM or SIGHUP; returns a function that removes it. Absent in
   * tests. Without a handler, the executable finishes the output in flight and ends by the signal.
   */
  readonly onSignal?: (signal: Signal, handler: () => void) => () => void
}

/** Exit statuses (SPEC §1): 0 every run answered or accepted; 1 some run ended otherwise; 2 usage or input error; 3 protocol error. @since 0.1.0 */
export const EXIT = { ok: 0, notSuccess: 1, usage: 2, protocol: 3 } as const

/**
 * The width (columns) output to `sink` must fit: the terminal's, else the `COLUMNS` environment variable (a pager
 * or a script that says its width), else `undefined` (no limit). Every command sizes its output by this one rule.
 * @since 0.3.0
 */
export const outputWidth = (sink: Pick<TextSink, 'isTTY' | 'columns'>, env: CliIO['env']): number | undefined => {
  if (sink.isTTY === true && typeof sink.columns === 'number' && sink.columns > 0) return sink.columns
  const c = Number(env['COLUMNS'])
  return Number.isInteger(c) && c > 0 ? c : undefined
}

/** The highest code wins (3 > 2 > 1 > 0). @since 0.1.0 */
export const worst = (a: number, b: number): number => Math.max(a, b)

/**
 * JSON text of a value that came from input, never throwing, and safe to print (C1 controls escaped): parts nested too deep for `JSON.stringify` are
 * written as `null` at the depth cap ({@link boundedJson}); a top-level key whose text would be too long for a
 * string is replaced by `null`.
 * @since 0.1.0
 */
export const safeJson = (value: Record<string, unknown>): string => escapeC1(rawJson(value))

const rawJson = (value: Record<string, unknown>): string => {
  try {
    return boundedJson(value)
  } catch {
    const copy: Record<string, unknown> = {}
    for (const k of Object.keys(value)) {
      try {
        boundedJson(value[k])
        copy[k] = value[k]
      } catch {
        copy[k] = null
      }
    }
    return boundedJson(copy)
  }
}
