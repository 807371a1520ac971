/**
 * `watch` on a file that holds one JSON document spread over lines: a Gemini CLI session file, an AI SDK message
 * array, an OpenAI Agents run state. Such a file is written whole again as its session goes on (Gemini CLI
 * rewrites its session file in place after each message), so following its new bytes, as `tail -F` follows a log,
 * would read the old document's start glued to pieces of the new one. Instead the file is read whole whenever it
 * changes and replayed as `replay` reads it: every run but the last is final (a later prompt has begun), so each
 * is printed once, as it becomes so; the last is printed when watch stops, as the document then shows it.
 *
 * @module
 */
import { readFile, stat } from 'node:fs/promises'
import type { RunResult } from '../core/RunResult.js'
import { MAX_DOCUMENT_BYTES, ReplayError, replayStream, type ReplayOptions } from '../node/replay.js'

/**
 * Whether the input whose first bytes are `b` is a JSON document spread over lines, as the replay decides it: its
 * first non-blank line starts with `{` or `[` and is not JSON by itself. `undefined` while `b` holds no whole
 * first non-blank line (nothing can be told yet).
 */
export const startsAsDocument = (b: Buffer): boolean | undefined => {
  let from = 0
  for (;;) {
    const nl = b.indexOf(10, from)
    if (nl === -1) return undefined
    let at = from
    while (at < nl && (b[at] === 0x20 || b[at] === 0x09 || b[at] === 0x0d)) at++
    if (at < nl) {
      const first = b[at]
      return (first === 0x7b || first === 0x5b) && !isJson(b.subarray(at, nl))
    }
    // a blank line before the first record: the next line decides
    from = nl + 1
  }
}

/** Whether bytes are one whole JSON value. */
export const isJson = (b: Buffer): boolean => {
  try {
    JSON.parse(b.toString('utf8'))
    return true
  } catch {
    return false
  }
}

/** What {@link watchDocument} is given. */
export interface DocumentWatch {
  /** The followed file. */
  readonly path: string
  /** How often its `stat` is checked (ms). */
  readonly pollMs: number
  /** The replay's options (format, file label, estimate). */
  readonly options: ReplayOptions
  /** Watch has been told to stop (Ctrl-C, its reader gone). */
  readonly stopped: () => boolean
  /** Where a stop wakes the poll's wait. */
  readonly wake: { resolve: (() => void) | null }
  /** Prints one run. */
  readonly print: (r: RunResult) => void
  /** The run still open (the document's last), or `undefined`: for the status line. */
  readonly onOpenRun: (r: RunResult | undefined) => void
  /** A note for stderr (never echoing the input). */
  readonly note: (message: string) => void
}

/** The version of the file last read: a new one is read whole. */
const versionOf = (st: { ino: number; size: number; mtimeMs: number; ctimeMs: number }): string => `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`

/**
 * Follows a JSON document file until `stopped()`, printing each run once it is final, then the last run as the
 * document shows it at the stop. Resolves with `failure` (a sentence naming the file; watch exits 2) when the file cannot be read
 * as a document at the end (still not valid JSON, over the 64 MB cap, of no format, replaced by a folder), with
 * the runs printed so far kept. Never rejects.
 */
export const watchDocument = async (w: DocumentWatch): Promise<{ readonly failure?: string }> => {
  let printed = 0
  let seen = ''
  let runs: ReadonlyArray<RunResult> = []
  // the last read gave no document (written while read, or not JSON at all): the reason, if it stays so
  let unreadable: string | undefined
  let missing = false
  const read = async (): Promise<string | undefined> => {
    const st = await stat(w.path).catch(() => null)
    if (st === null) {
      if (!missing) w.note(`${w.path} was removed; waiting for it to come back (Ctrl-C to stop)`)
      missing = true
      return undefined
    }
    missing = false
    if (!st.isFile()) return `${w.path}: it was replaced by ${st.isDirectory() ? 'a directory' : 'something that is not a regular file'}; watch follows a file`
    const version = versionOf(st)
    if (version === seen) return undefined
    seen = version
    if (st.size > MAX_DOCUMENT_BYTES) return `${w.path} is a single JSON document over ${Math.round(MAX_DOCUMENT_BYTES / 1048576)} MB`
    const bytes = await readFile(w.path).catch(() => null)
    if (bytes === null) {
      // removed or replaced between the stat and the read: the next poll sees what it is now
      seen = ''
      return undefined
    }
    const got: Array<RunResult> = []
    try {
      await replayStream(
        (async function* () {
          yield bytes
        })(),
        (r) => got.push(r),
        w.options,
      )
    } catch (e) {
      // caught while being written: read again at the next poll, whatever its stat says then
      seen = ''
      unreadable = e instanceof ReplayError ? e.message : `${w.path} could not be read`
      return undefined
    }
    unreadable = undefined
    if (got.length - 1 < printed) {
      w.note(`${w.path} was written again with fewer runs; reading it from its start`)
      printed = 0
    }
    for (; printed < got.length - 1; printed++) w.print(got[printed] as RunResult)
    runs = got
    w.onOpenRun(got.at(-1))
    return undefined
  }
  while (!w.stopped()) {
    const failure = await read()
    if (failure !== undefined) return finish(failure)
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, w.pollMs)
      w.wake.resolve = () => {
        clearTimeout(timer)
        resolve()
      }
    })
    w.wake.resolve = null
  }
  // stopped: the document as it is now, its last run printed as replay would print it
  const failure = await read()
  if (failure === undefined && unreadable !== undefined && runs.length > 0) {
    // caught while being written at the stop: the runs as its last whole version showed them
    w.note(`${unreadable}; its runs are printed as the last version read showed them`)
    return finish(undefined)
  }
  return finish(failure ?? unreadable)

  function finish(failure: string | undefined): { readonly failure?: string } {
    for (; printed < runs.length; printed++) w.print(runs[printed] as RunResult)
    w.onOpenRun(undefined)
    return failure !== undefined ? { failure } : {}
  }
}
