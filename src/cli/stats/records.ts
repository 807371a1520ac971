/**
 * What `stats` keeps of each run (a few numbers and names, never the run's text), and how it reads one file (or
 * standard input) into them. Shared by the in-process path and the worker threads.
 *
 * Costs: each model request the log gives no cost for is priced on its own as it is read (the fold's
 * `estimate`, from the `--prices` table and the bundled genai-prices data), so tiered prices apply per request; a
 * reported cost is never replaced; a model without a price leaves the run's cost unknown.
 * @module
 */
import { createReadStream } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, dirname, sep } from 'node:path'
import type { CostEstimator } from '../../core/fold.js'
import { msFromIso } from '../../core/time.js'
import type { EndingKind } from '../../core/RunEnding.js'
import { isProtocolError } from '../../core/ProtocolError.js'
import type { RunResult } from '../../core/RunResult.js'
import { attachSubagents, hasSubagentFilesSync } from '../../node/claudeSubagents.js'
import { fileChunks, ReadBuffer } from '../../node/fileChunks.js'
import { mayBeOverwritten } from '../../io/reusedChunks.js'
import { SeenRecords } from '../../formats/claudeCode/seen.js'
import { decodedBytes, isGzip } from '../../node/decodedBytes.js'
import { EMPTY_INPUT_NOTE, ReplayError, replayStream } from '../../node/replay.js'
import { estimatorOf, type EstimateSettings } from '../../prices/genaiPrices.js'
import { describeEnding } from '../summary.js'
import { holdsNoRun } from '../holdsNoRun.js'
import { fileLabel, geminiProjectDirOf, projectRootFileOf, type UnitFile } from './units.js'

/** Tokens and cost of one model in one run. @since 0.1.0 */
export interface ModelRecord {
  readonly model: string
  readonly inputTokens: number
  readonly cacheReadTokens: number
  readonly cacheWriteTokens: number
  readonly outputTokens: number
  readonly reasoningTokens: number
  /** USD, or `null` when some request of this model had no cost. */
  readonly costUsd: number | null
}

/** One run, as `stats` aggregates it. @since 0.1.0 */
export interface RunRecord {
  readonly file: string
  readonly index: number
  readonly format: string
  readonly kind: EndingKind
  readonly detail: string
  readonly success: boolean
  readonly turns: number
  readonly toolCalls: number
  readonly inputTokens: number
  readonly cacheReadTokens: number
  readonly cacheWriteTokens: number
  readonly outputTokens: number
  readonly reasoningTokens: number
  /** USD, or `null` when unknown. */
  readonly costUsd: number | null
  /** Some of the cost is an estimate (the log reported none for some request). */
  readonly estimated: boolean
  readonly durationMs: number | null
  /** ISO-8601 times of the run, or `null`. */
  readonly startedAt: string | null
  readonly endedAt: string | null
  /** The session's id as the log gives it, or `null`. */
  readonly sessionId: string | null
  /** The project: the Claude Code or Codex working directory (else the Claude Code project folder), the Gemini project root, else the file's folder. */
  readonly project: string | null
  readonly models: ReadonlyArray<ModelRecord>
}

/** Why a file gave no runs. @since 0.2.0 */
export type SkipReason = 'undetected' | 'unreadable' | 'too-large' | 'not-json' | 'crashed'

/** The outcome of reading one file. @since 0.1.0 */
export type FileOutcome =
  | {
      readonly file: string
      readonly ok: true
      readonly format: string
      readonly runs: ReadonlyArray<RunRecord>
      readonly protocolError?: string
      /**
       * What the reading noted about the file, as `replay` prints it (a line over the cap skipped, a gzip stream cut
       * off, …): the runs are counted, and the report says what was not read. An empty file's note is not kept (the
       * report counts such files as files with no run).
       */
      readonly notes?: ReadonlyArray<string>
      /** Some estimate was priced at the reading's clock (a request without a time of its own): not cached. */
      readonly undated?: true
    }
  | { readonly file: string; readonly ok: false; readonly why: SkipReason; readonly message: string }

/** What every file of a `stats` job is read with (plain data: it is sent to the worker threads). @since 0.2.0 */
export interface RecordJob {
  readonly format: string
  readonly accept: ReadonlyArray<EndingKind>
  readonly estimate: EstimateSettings
}

/** Projects a run to its record. @since 0.1.0 */
export const toRecord = (run: RunResult, file: string, index: number, accept: ReadonlyArray<EndingKind>, project: string | null = null): RunRecord => {
  const u = run.usage
  return {
    file,
    index,
    format: run.format,
    kind: run.ending.kind,
    detail: describeEnding(run.ending),
    success: run.ending.kind === 'answered' || accept.includes(run.ending.kind),
    turns: run.turns,
    toolCalls: run.toolCalls,
    inputTokens: u.inputTokens,
    cacheReadTokens: u.cacheReadTokens,
    cacheWriteTokens: u.cacheWriteTokens,
    outputTokens: u.outputTokens,
    reasoningTokens: u.reasoningTokens,
    costUsd: run.cost.totalUsd,
    estimated: run.cost.estimated === true,
    durationMs: run.durationMs,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    sessionId: run.sessionId,
    project,
    models: Object.entries(u.byModel).map(([model, m]) => ({
      model,
      inputTokens: m.inputTokens,
      cacheReadTokens: m.cacheReadTokens,
      cacheWriteTokens: m.cacheWriteTokens,
      outputTokens: m.outputTokens,
      reasoningTokens: m.reasoningTokens,
      costUsd: m.costUsd,
    })),
  }
}

const HEAD_MAX = 1024 * 1024

/**
 * The lines at the head of a file (gzip too), as bytes without their newline: every complete line among its first
 * `maxBytes` bytes, and the last line of a shorter file even without a newline. Nothing when it cannot be read;
 * the file is closed when the caller stops.
 */
async function* headLines(file: string, maxBytes: number): AsyncGenerator<Buffer> {
  let raw: ReturnType<typeof createReadStream> | undefined
  try {
    raw = createReadStream(file, { highWaterMark: 64 * 1024 })
    // gzip or not by its bytes, as the replay decided (a `.gz` name on a plain log, a gzip log named `.jsonl`)
    const source = decodedBytes(raw, () => {})
    let pending: Buffer = Buffer.alloc(0)
    let size = 0
    for await (const chunk of source) {
      size += chunk.length
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      let start = 0
      for (let end = pending.indexOf(10); end !== -1; end = pending.indexOf(10, start)) {
        yield pending.subarray(start, end)
        start = end + 1
      }
      pending = pending.subarray(start)
      // past the head: a line still open there is cut, not yielded
      if (size > maxBytes) return
    }
    if (pending.length > 0) yield pending
  } catch {
    // unreadable: no lines
  } finally {
    raw?.destroy()
  }
}

/**
 * The first bytes of a file as its reader already read them (`whole`: the file ends there), so the project can
 * be found without opening the file again. `cut`: only the lines {@link cutHead} keeps. @since 0.2.0
 */
export interface FileHead {
  readonly bytes: Buffer
  readonly whole: boolean
  readonly cut?: true
}

/**
 * A copy of what {@link projectOf} reads of a first chunk that the next read overwrites (a file of several
 * chunks): its first line, and its lines through the first that names a `cwd` within the Claude Code head's reach.
 * Not the whole chunk: copying 1 MiB per large file cost more than the rest of `projectOf`.
 */
const cutHead = (chunk: Buffer): FileHead => {
  const first = chunk.indexOf(10)
  let end = first === -1 ? 0 : first + 1
  const reach = headReach(CWD_HEAD)
  const named = chunk.indexOf('"cwd"')
  if (named !== -1 && named < reach) {
    const nl = chunk.indexOf(10, named)
    if (nl !== -1 && nl < reach) end = Math.max(end, nl + 1)
  }
  return { bytes: Buffer.from(chunk.subarray(0, end)), whole: false, cut: true }
}

/** How far `headLines(file, maxBytes)` reads: to the end of the 64 KiB chunk that passes `maxBytes`. */
const headReach = (maxBytes: number): number => 65536 * (Math.floor(maxBytes / 65536) + 1)

/**
 * The lines {@link headLines} gives for `maxBytes`, out of bytes already read: every line whose newline lies within
 * its reach, and the last line of a file no longer than `maxBytes`. `undefined` when `head` does not cover that
 * reach (a longer file whose first chunk ends before it), unless `firstOnly` and its first line ends in it.
 */
const headLinesIn = (head: FileHead, maxBytes: number, firstOnly: boolean): Array<Buffer> | undefined => {
  const { bytes, whole } = head
  const reach = headReach(maxBytes)
  if (!whole && bytes.length < reach && !(firstOnly && bytes.indexOf(10) !== -1)) return undefined
  const limit = Math.min(bytes.length, reach)
  const out: Array<Buffer> = []
  let start = 0
  for (let nl = bytes.indexOf(10); nl !== -1 && nl < limit; nl = bytes.indexOf(10, start)) {
    out.push(bytes.subarray(start, nl))
    start = nl + 1
    if (firstOnly) return out
  }
  if (whole && bytes.length <= maxBytes && start < bytes.length) out.push(bytes.subarray(start))
  return out
}

/** The `cwd` of the first line among `lines` that names one, or `undefined`; only lines that name a `cwd` are parsed. */
const cwdAmong = (lines: Iterable<Buffer>): string | undefined => {
  for (const line of lines) {
    if (line.indexOf('"cwd"') === -1) continue
    try {
      const rec = JSON.parse(line.toString('utf8')) as { cwd?: unknown }
      if (typeof rec.cwd === 'string' && rec.cwd !== '') return rec.cwd
    } catch {
      // not JSON: the next line
    }
  }
  return undefined
}

/**
 * The `cwd` of the first Claude Code transcript record in the file's first 256 KiB that names one (user and
 * assistant records do; a leading `summary` does not), or `undefined`. Reading stops at that record; only lines
 * that name a `cwd` are parsed. From `head` when it covers those bytes (or, cut by {@link cutHead}, holds the
 * answer), else read from the file.
 */
const claudeCwdOf = async (file: string, head: FileHead | undefined, reopen: boolean): Promise<string | undefined> => {
  const lines = head !== undefined ? headLinesIn(head, CWD_HEAD, false) : undefined
  if (lines !== undefined) return cwdAmong(lines)
  if (head?.cut === true) {
    // the file's first lines as they are, through the first that names a `cwd` (whole lines, all within the
    // reach): a `cwd` found there is the answer
    const cwd = cwdAmong(headLinesIn({ bytes: head.bytes, whole: true }, CWD_HEAD, false) ?? [])
    if (cwd !== undefined) return cwd
  }
  if (!reopen) return undefined
  for await (const line of headLines(file, CWD_HEAD)) {
    const cwd = cwdAmong([line])
    if (cwd !== undefined) return cwd
  }
  return undefined
}

const CWD_HEAD = 256 * 1024

/** The first line of a file (gzip too), up to 1 MiB; `undefined` when it cannot be read or is longer. From `head` when it holds it. */
const firstLine = async (file: string, head: FileHead | undefined, reopen: boolean): Promise<string | undefined> => {
  const lines = head !== undefined ? headLinesIn(head, HEAD_MAX, true) : undefined
  if (lines !== undefined) return lines[0]?.toString('utf8')
  if (!reopen) return undefined
  for await (const line of headLines(file, HEAD_MAX)) return line.toString('utf8')
  return undefined
}

/**
 * The project of a log file, by its format and place: Claude Code, the folder under `projects/` (as Claude Code
 * names it, e.g. `-Users-me-app`); Codex, the `cwd` of its `session_meta` record; Gemini, the folder's
 * `.project_root` when written, else `gemini:` and the start of the project hash; any other, the file's folder.
 * `null` when nothing names one (a Codex log without `session_meta`, standard input). With `head` (the first bytes
 * the replay read), the Claude Code and Codex answers come from them when they cover what would be read; else the
 * file is read again from its start, unless `reopen` is false (a FIFO: its answer is then what `head` holds).
 * @since 0.2.0
 */
export const projectOf = async (file: string, format: string, head?: FileHead, reopen = true): Promise<string | null> => {
  if (file === '-') return null
  const parts = file.split(/[\\/]/)
  if (format === 'claude-code') {
    // the session's working directory, as Codex names its project (so one repository is one row for both);
    // else the project folder (`~/.claude/projects/<encoded cwd>`)
    const cwd = await claudeCwdOf(file, head, reopen)
    if (cwd !== undefined) return cwd
    const i = parts.lastIndexOf('projects')
    if (i >= 0 && i < parts.length - 2) return parts[i + 1] as string
    return basename(dirname(file))
  }
  if (format === 'codex') {
    const line = await firstLine(file, head, reopen)
    if (line !== undefined) {
      try {
        const rec = JSON.parse(line) as { type?: unknown; payload?: { cwd?: unknown } }
        if (rec.type === 'session_meta' && typeof rec.payload?.cwd === 'string' && rec.payload.cwd !== '') return rec.payload.cwd
      } catch {
        // not JSON: no project named
      }
    }
    return null
  }
  if (format === 'gemini') {
    const projectDir = geminiProjectDirOf(file)
    try {
      const root = (await readFile(projectRootFileOf(file), 'utf8')).trim()
      if (root !== '' && !root.includes('\n')) return root
    } catch {
      // no .project_root (older Gemini CLI): the hash names the project
    }
    const hash = basename(projectDir)
    return /^[0-9a-f]{16,}$/i.test(hash) ? `gemini:${hash.slice(0, 8)}` : hash
  }
  const d = basename(dirname(file))
  return d === '' || d === '.' || d === sep ? null : d
}

/**
 * Requests priced at the estimator's own clock so far in this thread (no usable time of their own): a file during
 * whose reading this moved is `undated` (its figures depend on when it was read). Counted, not a flag, so that
 * files read at once in one thread can only be marked too often, never too rarely.
 */
let undatedPrices = 0

/** The estimator of a job, made once per thread; it counts {@link undatedPrices}. */
const estimators = new WeakMap<EstimateSettings, CostEstimator | undefined>()
const estimatorFor = (s: EstimateSettings): CostEstimator | undefined => {
  if (!estimators.has(s)) {
    const e = estimatorOf(s)
    estimators.set(
      s,
      e === undefined
        ? undefined
        : (model, usage, at) => {
            // the bundled estimator's rule: a time that is not a finite instant leaves its own clock (read once here,
            // handed on as epoch milliseconds)
            const ms = at === undefined ? Number.NaN : typeof at === 'number' ? at : msFromIso(at)
            if (!Number.isFinite(ms)) {
              undatedPrices++
              return e(model, usage)
            }
            return e(model, usage, ms)
          },
    )
  }
  return estimators.get(s)
}

const failure = (file: string, e: unknown, runs: Array<RunRecord>, format: string): FileOutcome => {
  if (isProtocolError(e)) return { file, ok: true, format, runs, protocolError: e.message }
  if (e instanceof ReplayError) {
    const why = e.code === 'too-large' ? 'too-large' : e.code === 'not-json' ? 'not-json' : 'undetected'
    return { file, ok: false, why, message: e.message }
  }
  return { file, ok: false, why: 'unreadable', message: `cannot read ${file}` }
}

/** The chunk size `stats` reads files in (bytes): most transcripts are one chunk. */
const CHUNK_BYTES = 1024 * 1024

/** The buffer this thread reads its files into, one file after another ({@link readFileRecords} is never run twice at once in a thread). */
const readBuffer = new ReadBuffer()

/**
 * The chunks of `source`, telling `onFirst` the first one; and, for a source that is no regular file (`regular()`
 * false: a FIFO, whose first read may be short and which cannot be opened again to look at its head), telling
 * `onStreamHead` a copy of its first bytes, as many as `projectOf` reads, once they are read or the source ends.
 */
async function* watchHead(
  source: AsyncIterable<Buffer>,
  regular: () => boolean,
  onFirst: (chunk: Buffer) => void,
  onStreamHead: (head: FileHead) => void,
): AsyncGenerator<Buffer> {
  let first = true
  const held: Array<Buffer> = []
  let heldBytes = 0
  let told = false
  const reach = headReach(HEAD_MAX)
  for await (const c of source) {
    if (first) {
      first = false
      onFirst(c)
    }
    if (!told && !regular()) {
      held.push(Buffer.from(c.subarray(0, reach - heldBytes)))
      heldBytes += Math.min(c.length, reach - heldBytes)
      if (heldBytes >= reach) {
        told = true
        onStreamHead({ bytes: Buffer.concat(held), whole: false })
      }
    }
    yield c
  }
  if (!told && !regular()) onStreamHead({ bytes: Buffer.concat(held), whole: true })
}

/** The notes of a reading worth a report's mention, as the optional field of an outcome. */
const notesOf = (notes: ReadonlyArray<string>): { notes?: ReadonlyArray<string> } => {
  const kept = notes.filter((n) => n !== EMPTY_INPUT_NOTE)
  return kept.length > 0 ? { notes: kept } : {}
}

/**
 * Reads one log file into run records (a Claude Code session's subagent files with it). With `seen` (shared by
 * the files of one input read in one thread), a Claude Code transcript record an earlier file holds too counts
 * only there (K15). Never throws.
 * @since 0.1.0
 */
export const readFileRecords = async (unitFile: UnitFile, job: RecordJob, seen?: SeenRecords): Promise<FileOutcome> => {
  const file = fileLabel(unitFile)
  const path = typeof unitFile === 'string' ? unitFile : Buffer.from(unitFile.path.buffer, unitFile.path.byteOffset, unitFile.path.byteLength)
  const estimate = estimatorFor(job.estimate)
  const undatedBefore = undatedPrices
  const held: Array<RunResult> = []
  const records: Array<RunRecord> = []
  const copiesBefore = seen?.copies ?? 0
  const subagentNotes: Array<string> = []
  try {
    // a Claude Code session with subagent files: its runs wait for them (they make no runs of their own)
    const hasSubagents = typeof path === 'string' && hasSubagentFilesSync(path)
    // read synchronously (a regular file): no wait on the thread pool per read; the first chunk names the project
    let head: FileHead | undefined
    // the project is read from the first chunk of a regular file; of a FIFO, from a copy of its first bytes (it
    // cannot be opened again: that open would wait for a writer that has gone); of gzip, from the file again
    let size = -1
    const outcome = await replayStream(
      watchHead(
        fileChunks(path, { chunkBytes: CHUNK_BYTES, reuse: readBuffer, onRegularFile: (n) => (size = n) }),
        () => size >= 0,
        (c) => {
          // a file's only chunk stays as read until the next file is read (after `projectOf` below); the first of
          // several is read into again, so what `projectOf` reads of it is copied
          if (!isGzip(c) && typeof path === 'string' && size >= 0) head = mayBeOverwritten(c) ? cutHead(c) : { bytes: c, whole: c.length >= size }
        },
        (h) => {
          if (!isGzip(h.bytes)) head = h
        },
      ),
      (r) => {
        if (hasSubagents && r.format === 'claude-code') held.push(r)
        else records.push(toRecord(r, file, records.length + 1, job.accept))
      },
      { format: job.format as 'auto', file, ...(estimate !== undefined ? { estimate } : {}), ...(seen !== undefined ? { seen } : {}) },
    )
    // the project first, while the head read in this thread is as it was read
    const project = await projectOf(file, outcome.format, head, size >= 0)
    head = undefined
    if (held.length > 0) {
      // a copied session (every record read before, K15) stays the placeholder the report leaves out: its subagent
      // files are copies too, and attached they would make it a run of children
      const copy = held.length === 1 && (seen?.copies ?? 0) !== copiesBefore && holdsNoRun(held[0] as RunResult)
      const onNote = (note: string): void => void subagentNotes.push(note)
      for (const r of copy
        ? held
        : await attachSubagents(held, file, { ...(estimate !== undefined ? { estimate } : {}), onNote, ...(seen !== undefined ? { seen } : {}) }))
        records.push(toRecord(r, file, records.length + 1, job.accept))
    }
    const runs = project === null ? records : records.map((r) => ({ ...r, project }))
    const undated = undatedPrices !== undatedBefore ? ({ undated: true } as const) : {}
    const notes = notesOf([...outcome.notes, ...subagentNotes])
    return outcome.error !== undefined
      ? { file, ok: true, format: outcome.format, runs, protocolError: outcome.error.message, ...notes, ...undated }
      : { file, ok: true, format: outcome.format, runs, ...notes, ...undated }
  } catch (e) {
    const o = failure(file, e, records, job.format)
    return o.ok && undatedPrices !== undatedBefore ? { ...o, undated: true } : o
  }
}

/**
 * Reads a byte stream (`stats -`: standard input) into run records, labelled `label`. Never throws.
 * @since 0.2.0
 */
export const readStreamRecords = async (source: AsyncIterable<Uint8Array | string>, label: string, job: RecordJob): Promise<FileOutcome> => {
  const estimate = estimatorFor(job.estimate)
  const runs: Array<RunRecord> = []
  try {
    const outcome = await replayStream(source, (r) => runs.push(toRecord(r, label, runs.length + 1, job.accept)), {
      format: job.format as 'auto',
      file: null,
      ...(estimate !== undefined ? { estimate } : {}),
    })
    const notes = notesOf(outcome.notes)
    return outcome.error !== undefined
      ? { file: label, ok: true, format: outcome.format, runs, protocolError: outcome.error.message, ...notes }
      : { file: label, ok: true, format: outcome.format, runs, ...notes }
  } catch (e) {
    return failure(label, e, runs, job.format)
  }
}

/** Options of {@link readUnitRecords}. @since 0.2.0 */
export interface UnitReadOptions {
  /**
   * The first `silent` files are read only for what they claim in the shared {@link SeenRecords} (their outcomes
   * were handed out already: a unit read again after its worker died), and give no outcome.
   */
  readonly silent?: number
  /** Called after each file, silent ones too, with how many of the unit's files are done. */
  readonly onRead?: (done: number) => void
}

/**
 * Reads the files of one unit (the files of one folder, in order) with one shared {@link SeenRecords}, handing
 * out each file's outcome as it is read, so copies between the files of a Claude Code project folder (a resumed
 * or forked session) count once, as in `replay DIR` (K15). Never throws.
 * @since 0.2.0
 */
export const readUnitRecords = async (
  files: ReadonlyArray<UnitFile>,
  job: RecordJob,
  onOutcome: (o: FileOutcome) => void,
  options: UnitReadOptions = {},
): Promise<void> => {
  const seen = files.length > 1 ? new SeenRecords() : undefined
  const silent = options.silent ?? 0
  for (let i = 0; i < files.length; i++) {
    const o = await readFileRecords(files[i] as UnitFile, job, seen)
    if (i >= silent) onOutcome(o)
    options.onRead?.(i + 1)
  }
}
