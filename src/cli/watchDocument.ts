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
import type { ProtocolError } from '../core/ProtocolError.js'
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

/** How {@link watchDocument} ended: `failure` says why the file could not be read as a document (exit 2). */
export interface DocumentWatchEnd {
  readonly failure?: string
  /** The protocol error of a native document (`--format native`): watch reports it as replay does, exit 3. */
  readonly error?: ProtocolError
}

/**
 * Follows a JSON document file until `stopped()`, printing each run once it is final, then the last run as the
 * document shows it at the stop. A version of the file that is no whole document (empty or cut while being
 * written, over the 64 MB cap, of no format) is waited past; at the stop, the runs of the last whole version are
 * printed with a note, or, when there was none, the reason is the `failure` (exit 2). A file replaced by a folder
 * ends it at once; a protocol error (`--format native`) is its `error` (exit 3). Never rejects.
 */
export const watchDocument = async (w: DocumentWatch): Promise<DocumentWatchEnd> => {
  let printed = 0
  let seen = ''
  let runs: ReadonlyArray<RunResult> = []
  // the session the printed runs belong to: a document that names another one is read from its start
  let session: string | null | undefined
  // the last version read gave no document (written while read, too large, of no format): why, if it stays so
  let unreadable: string | undefined
  // a version that gave no document is read once more (a write may have ended between the stat and the read)
  let retried = ''
  let missing = false
  const noted = new Set<string>()
  const read = async (): Promise<DocumentWatchEnd | undefined> => {
    const st = await stat(w.path).catch(() => null)
    if (st === null) {
      if (!missing) w.note(`${w.path} was removed; waiting for it to come back (Ctrl-C to stop)`)
      missing = true
      return undefined
    }
    missing = false
    if (!st.isFile())
      return { failure: `${w.path}: it was replaced by ${st.isDirectory() ? 'a directory' : 'something that is not a regular file'}; watch follows a file` }
    const version = versionOf(st)
    if (version === seen) return undefined
    seen = version
    if (st.size > MAX_DOCUMENT_BYTES) {
      unreadable = `${w.path} is a single JSON document over ${Math.round(MAX_DOCUMENT_BYTES / 1048576)} MB`
      return undefined
    }
    const bytes = await readFile(w.path).catch(() => null)
    if (bytes === null) {
      // removed or replaced between the stat and the read: the next poll sees what it is now
      seen = ''
      return undefined
    }
    const again = (why: string): undefined => {
      unreadable = why
      if (retried !== version) {
        retried = version
        seen = ''
      }
      return undefined
    }
    // emptied for a rewrite, or caught before its first line ended: not a document yet, and no other input
    if (startsAsDocument(bytes) !== true) return again(`${w.path} is not a whole JSON document`)
    const got: Array<RunResult> = []
    let outcome: Awaited<ReturnType<typeof replayStream>>
    try {
      outcome = await replayStream(
        (async function* () {
          yield bytes
        })(),
        (r) => got.push(r),
        w.options,
      )
    } catch (e) {
      return again(e instanceof ReplayError ? e.message : `${w.path} could not be read`)
    }
    if (outcome.error !== undefined) return { error: outcome.error }
    for (const n of outcome.notes) {
      if (!noted.has(n)) w.note(n)
      noted.add(n)
    }
    unreadable = undefined
    const named = got[0]?.sessionId ?? null
    if (session !== undefined && named !== session && printed > 0) {
      w.note(`${w.path} now holds another session; reading it from its start`)
      printed = 0
    } else if (got.length - 1 < printed) {
      // rewound (messages taken back): the runs printed stay printed; the ones after them print as they end
      w.note(`${w.path} now holds fewer runs than were printed; the runs after run ${got.length} print as they end`)
      printed = got.length
    }
    session = named
    for (; printed < got.length - 1; printed++) w.print(got[printed] as RunResult)
    runs = got
    w.onOpenRun(got.at(-1))
    return undefined
  }
  while (!w.stopped()) {
    const end = await read()
    if (end !== undefined) return finish(end)
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
  const end = await read()
  if (end === undefined && unreadable !== undefined && runs.length > 0) {
    // caught while being written at the stop: the runs as its last whole version showed them
    w.note(`${unreadable}; its runs are printed as the last whole version showed them`)
    return finish({})
  }
  return finish(end ?? (unreadable !== undefined ? { failure: unreadable } : {}))

  function finish(e: DocumentWatchEnd): DocumentWatchEnd {
    if (e.error === undefined) for (; printed < runs.length; printed++) w.print(runs[printed] as RunResult)
    w.onOpenRun(undefined)
    return e
  }
}
