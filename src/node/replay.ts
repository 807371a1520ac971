/**
 * Replaying recorded logs on Node: a byte stream (file, stdin, gzip) → format detection → a format reader →
 * one `RunResult` per run, handed out as each run ends.
 *
 * Line-based logs are streamed (never read whole): 256 KiB chunks, split on the newline byte. Only
 * single-document formats (a JSON object or array spread over lines) are read whole, up to 64 MB (SPEC §6).
 * `--format auto` sniffs the first 20 lines (or the document's top-level shape).
 *
 * @module
 */
import type { SessionEvent } from '../core/events.js'
import type { CostEstimator } from '../core/fold.js'
import type { ProtocolError } from '../core/ProtocolError.js'
import type { FormatName, RunResult } from '../core/RunResult.js'
import { detectDocument, detectLines, formatByName, formats } from '../formats/index.js'
import { QUIET_MS, type FormatModule, type LineReader, type ReaderOptions } from '../formats/types.js'
import type { SeenRecords } from '../formats/claudeCode/seen.js'
import { BlankLead } from '../io/blankLead.js'
import { countJsonValues, LINE_CAP_TEXT, LineSplitter, MAX_LINE_BYTES, MAX_LINE_VALUES, oversizeNote } from '../io/lines.js'
import { stabilize, stableBytes } from '../io/reusedChunks.js'
import { attachSubagents, hasSubagentFilesSync } from './claudeSubagents.js'
import { decodedBytes } from './decodedBytes.js'
import { fileChunks, ReadBuffer } from './fileChunks.js'
import type { SkimMode } from '../formats/skim/skim.js'
import { nativeSkim } from './nativeSkim.js'

/**
 * The skim mode `RUN_OUTCOME_SKIM` asks for: `1` long lines, `all` every line, `0` none; unset (or anything else):
 * long lines when the native kernel loads (`nativeSkim.ts`), else none (the skim in JavaScript saves little).
 */
const skimFromEnv = (v: string | undefined): SkimMode => {
  if (v === '0') return false
  if (v === 'all' || v === '1') return v === 'all' ? 'all' : true
  return nativeSkim() !== null
}

/** Single-document inputs are read whole up to this size (bytes). @since 0.1.0 @category Replay */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024

/**
 * Single-document inputs are parsed only when they hold at most this many JSON values (2,000,000, counted as
 * `countJsonValues` does): a 64 MB document of small objects would otherwise take gigabytes to parse.
 * @since 0.2.0
 */
export const MAX_DOCUMENT_VALUES = 2 * MAX_LINE_VALUES

/**
 * The chunk size a file path is read in (`replayFile`, `replayRuns`, the CLI's `replay` and `events`): 256 KiB, by
 * synchronous reads for a regular file (`fileChunks`: over a folder of thousands of transcripts a read through
 * the thread pool per file tripled the time), as a stream for anything else (a FIFO, a device).
 * @internal
 */
export const FILE_CHUNK_BYTES = 256 * 1024

/**
 * The note {@link replayStream} gives (in `ReplayOutcome.notes`) for an input with no non-blank line: it is read as
 * native and gives one `unfinished` run (SPEC §1). A caller that prints no runs (`events`) words it its own way.
 * @internal
 */
export const EMPTY_INPUT_NOTE = 'the input holds no records (empty or blank): one unfinished run'

const SNIFF_LINES = 20
const formatNames = (): string => formats.map((f) => f.name).join(', ')
const SNIFF_BYTES = 256 * 1024
const SNIFF_WAIT_MS = 150

/** Why a replay could not read an input at all (CLI exit 2). @since 0.1.0 @category Replay */
export type ReplayErrorCode = 'undetected' | 'too-large' | 'not-json' | 'unreadable' | 'unknown-format' | 'no-translator' | 'bad-option'

/** An input replay could not read: unreadable, of an undetectable format, or a document over the cap. @since 0.1.0 @category Replay */
export class ReplayError extends Error {
  override readonly name = 'ReplayError'
  constructor(
    readonly code: ReplayErrorCode,
    message: string,
  ) {
    super(message)
  }
}

/** Options of {@link replayStream} and {@link replayFile}. @since 0.1.0 @category Replay */
export interface ReplayOptions {
  /** A `--format` name, or `auto` (default) to detect it. */
  readonly format?: FormatName | 'auto'
  /** The name to put in `RunResult.source.file` and in messages. */
  readonly file?: string | null
  /**
   * Seed 002's owned interval: only the run that answers this message, from the `agent/inbox/spliced` event that
   * inserts it to the next root idle. Native logs only: with another format the replay rejects with `ReplayError`
   * `bad-option`.
   */
  readonly messageId?: string
  /** Cap for single-document inputs, bytes (default 64 MB): a non-negative number (else `ReplayError` `bad-option`). */
  readonly maxDocumentBytes?: number
  /** Receives diagnostics that belong to no open run (see `ReaderOptions.note`). */
  readonly note?: (line: number | undefined, message: string) => void
  /** A live stream: readers hand each run out at its terminal record (see `ReaderOptions.live`). */
  readonly live?: boolean
  /**
   * Live only: how long the input must pause before the reader is told it is quiet (`LineReader.quiet`), ms.
   * Default `QUIET_MS` (250); a source that itself polls (a followed file) needs more than its poll interval.
   */
  readonly quietMs?: number
  /**
   * Receives every native event the input's records translate to, with the line of the record
   * (`run-outcome events`). The replay fails with `ReplayError` `no-translator` for a format that has none.
   */
  readonly onEvent?: (event: SessionEvent, line: number | undefined) => void
  /** Estimates the cost of each model request whose log gives none (USD); such costs are marked estimated. */
  readonly estimate?: CostEstimator
  /** Called once with the line reader (when the input is line-based), e.g. to poll `snapshot()` for a status line. */
  readonly onReader?: (reader: LineReader, format: FormatName) => void
  /**
   * Records the files of one input share (K15, see `ReaderOptions.seen`): pass one `SeenRecords` to the replay of
   * every file of a directory, and a Claude Code transcript record another file already holds (a resumed or forked
   * session's copy) counts only in the file read first. Without it each file counts all its records.
   */
  readonly seen?: SeenRecords
  /**
   * Skim the records of formats that declare what they read (`src/formats/skim/skim.ts`): the same results, without
   * decoding the bulk of each line. `true`: lines of `SKIM_MIN_BYTES` (4,096) bytes or more; `'all'`: every line;
   * `false`: none. Default: what the environment's `RUN_OUTCOME_SKIM` says (`0` off, `1` on, `all` every line),
   * else on where the native skim kernel loads (`npm run build` compiles it) and off where it does not.
   */
  readonly skim?: SkimMode
}

/** What a replay found: the format read, and the protocol error that stopped it, if any. @since 0.1.0 @category Replay */
export interface ReplayOutcome {
  readonly format: FormatName
  readonly error?: ProtocolError
  /** Notes about the input as a whole (an oversize line, a cut document), never echoing input. */
  readonly notes: ReadonlyArray<string>
}

const firstNonSpace = (chunks: ReadonlyArray<Buffer>): number | undefined => {
  for (const c of chunks) {
    for (let i = 0; i < c.length; i++) {
      const b = c[i] as number
      if (b === 0xef || b === 0xbb || b === 0xbf) continue
      if (b !== 32 && b !== 9 && b !== 10 && b !== 13) return b
    }
  }
  return undefined
}

const parseOrUndefined = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * The byte source of one replay, read through {@link bytes}: the reads still in flight are counted, so that the
 * replay can close the source when it stops early without waiting on a read a quiet live pipe may never answer.
 */
class ReplayInput {
  /** Notes about the input as a whole (a cut gzip stream). */
  readonly notes: Array<string> = []
  private chunks: AsyncGenerator<Buffer> | undefined
  private reading = 0

  constructor(private readonly source: AsyncIterable<Uint8Array | string>) {}

  next(): Promise<IteratorResult<Buffer>> {
    this.chunks ??= decodedBytes(this.source, (m) => this.notes.push(m))
    this.reading++
    const p = this.chunks.next()
    const settled = (): void => {
      this.reading--
    }
    p.then(settled, settled)
    return p
  }

  /** Ends the source while a read of it is in flight: a stream is destroyed, an iterator told `return()`. */
  private stopSource(): void {
    const s = this.source as { destroy?: unknown; return?: unknown }
    try {
      if (typeof s.destroy === 'function') s.destroy.call(this.source)
      else if (typeof s.return === 'function') void (s.return.call(this.source) as Promise<unknown>).catch(() => {})
    } catch {
      // a source that fails while closing is closed as far as it can be
    }
  }

  /**
   * Closes the source (a file it holds open, a `Readable` destroyed): at once when no read is in flight, else the
   * source is told to stop now and the rest happens once that read settles (not waited for). Never rejects.
   */
  async close(): Promise<void> {
    try {
      if (this.chunks === undefined) {
        // never read: a stream is destroyed (returning an iterator never started runs none of its code)
        const destroy = (this.source as { destroy?: unknown }).destroy
        if (typeof destroy === 'function') destroy.call(this.source)
        else await this.source[Symbol.asyncIterator]().return?.(undefined)
        return
      }
      const closing = this.chunks.return(undefined)
      if (this.reading === 0) await closing
      else {
        closing.catch(() => {})
        // that return waits behind the read in flight, which a quiet live input may never answer: the source is
        // told now (a stream destroyed, a file of `fileChunks` closed, which ends its read)
        this.stopSource()
      }
    } catch {
      // a source that fails while closing is closed as far as it can be
    }
  }
}

/**
 * Replays one byte stream. Each run is handed to `onRun` as soon as it ends (a live pipe shows results
 * before EOF). Resolves with the format read and the `ProtocolError` that stopped a native log, if any.
 *
 * **Rejects with** `ReplayError` (`undetected`, `too-large`, `not-json`, `unknown-format`) when the input cannot
 * be read at all, `bad-option` for a `maxDocumentBytes` that is not a non-negative number (`NaN`, `-1`) or a
 * `messageId` with an input that is not a native log, or the
 * stream's own error (e.g. `ENOENT`, `EISDIR`, a socket reset), or with what `onRun` threw. Before a stream's
 * error, every run whose ending record had arrived goes to `onRun` (a Claude Code `result`, a Codex
 * `turn.completed`, a native root idle), even one the replay was holding for late records — as the records before
 * the failure show it (a late usage record it would have taken never came) —; the open run, whose end the failure
 * hides, does not. A source that fails before its format can be told rejects with its own error, not `undetected`.
 *
 * The source is the replay's: whenever the replay stops before the source's end (a rejection, a protocol error),
 * it returns the source's iterator, which closes a file the source holds open (`createReadStream`'s stream is
 * destroyed) — a folder of thousands of logs the replay cannot read holds no file open.
 *
 * A line over the line cap (`LINE_CAP_TEXT`: 64 MiB or 1,000,000 JSON values) is skipped, never parsed, with a
 * note naming its line and size; a document over `MAX_DOCUMENT_BYTES` or `MAX_DOCUMENT_VALUES` is `too-large`.
 * @since 0.1.0
 * @category Replay
 */
export const replayStream = async (
  source: AsyncIterable<Uint8Array | string>,
  onRun: (result: RunResult) => void,
  options: ReplayOptions = {},
): Promise<ReplayOutcome> => {
  const input = new ReplayInput(source)
  try {
    const outcome = await replayInput(input, onRun, options)
    if (outcome.error !== undefined) await input.close()
    return outcome
  } catch (e) {
    await input.close()
    throw e
  }
}

/** {@link replayStream} over its input; the caller closes the input when this stops early. */
const replayInput = async (input: ReplayInput, onRun: (result: RunResult) => void, options: ReplayOptions): Promise<ReplayOutcome> => {
  const fileLabel = options.file ?? null
  const readerOptions: ReaderOptions = {
    file: fileLabel,
    ...(options.messageId !== undefined ? { messageId: options.messageId } : {}),
    ...(options.note !== undefined ? { note: options.note } : {}),
    ...(options.live === true ? { live: true } : {}),
    ...(options.onEvent !== undefined ? { onEvent: options.onEvent } : {}),
    ...(options.estimate !== undefined ? { estimate: options.estimate } : {}),
    ...(options.seen !== undefined ? { seen: options.seen } : {}),
    skim: options.skim ?? skimFromEnv(process.env['RUN_OUTCOME_SKIM']),
  }
  // a skim uses the native kernel where one loads
  if (readerOptions.skim !== false) nativeSkim()
  const notes = input.notes
  const maxDoc = options.maxDocumentBytes ?? MAX_DOCUMENT_BYTES
  if (typeof maxDoc !== 'number' || !(maxDoc >= 0)) throw new ReplayError('bad-option', 'maxDocumentBytes must be a non-negative number of bytes')
  const requested = options.format ?? 'auto'
  let explicit: FormatModule | undefined
  if (requested !== 'auto') {
    explicit = formatByName(requested)
    if (explicit === undefined) throw new ReplayError('unknown-format', `unknown format "${requested}"`)
  }
  // 1. Read the head: enough lines to sniff.
  const head: Array<Buffer> = []
  let headBytes = 0
  const sniffValues: Array<unknown> = []
  let headLines = 0
  // the first line ended but was over the line cap: the input is line-based (a document would not have ended there)
  let firstOversize = false
  // the head's lines parsed to sniff, by line number: the reader is handed these values, so no line is parsed twice
  const headParsed = new Map<number, unknown>()
  const sniffer = new LineSplitter(
    (text, lineNo) => {
      headLines++
      if (sniffValues.length < SNIFF_LINES) {
        // SSE recordings (`data: {json}`) are sniffed by their payload
        const sse = text.startsWith('data:')
        const v = parseOrUndefined(sse ? text.slice(5).trim() : text)
        sniffValues.push(v)
        if (!sse && v !== undefined) headParsed.set(lineNo, v)
      }
    },
    () => {
      headLines++
      if (sniffValues.length === 0) firstOversize = true
    },
  )
  // A piece fed to the sniffer may hold many more lines than it parses (a 256 KiB piece of a Claude Code transcript
  // holds ~100): lines starting with `{` come as bytes, decoded only while the sniffer still wants a value, so a
  // line past the first SNIFF_LINES is decoded once, by the reader, not twice.
  sniffer.lineBytes = (line, lineNo) => {
    headLines++
    if (sniffValues.length >= SNIFF_LINES) return
    const v = parseOrUndefined(line.toString('utf8'))
    sniffValues.push(v)
    if (v !== undefined) headParsed.set(lineNo, v)
  }
  let eof = false
  // the source's read failed (a stream error) after some whole lines: thrown once the runs that ended are out
  let readFailure: { readonly error: unknown } | undefined
  // A live pipe may pause after a few lines: once some JSON has arrived, a pause of SNIFF_WAIT_MS ends the head.
  let pending: Promise<IteratorResult<Buffer>> | undefined
  // Read on past SNIFF_BYTES while no line has ended yet (a first line over 256 KiB), up to the document cap.
  const headCap = maxDoc
  // The sniffer is fed at most SNIFF_BYTES at a time and stops where a reader of SNIFF_BYTES chunks would stop,
  // so what decides the format does not depend on how large the source's chunks are (stats reads 1 MiB at once).
  let sniffFed = 0
  const sniffing = (): boolean => (headLines < SNIFF_LINES && sniffFed < SNIFF_BYTES) || (headLines === 0 && sniffFed < headCap)
  // blank lines before the first record are dropped as they come (counted, so lines keep their numbers): they are
  // not held in the head, and a blank input of any size is blank, not a first line over the cap (SPEC §1)
  const lead = new BlankLead(MAX_LINE_BYTES)
  const toHead = (chunk: Buffer): void => {
    if (head.length === 0) sniffer.skipLines(lead.lines)
    head.push(chunk)
    headBytes += chunk.length
    for (let at = 0; at < chunk.length && sniffing(); ) {
      const piece = chunk.subarray(at, at + SNIFF_BYTES)
      sniffer.push(piece)
      sniffFed += piece.length
      at += piece.length
    }
  }
  while (sniffing()) {
    // the head is kept past this read: a chunk the source reads into again is copied first
    if (pending === undefined) stabilize(head)
    pending ??= input.next()
    const haveJson = sniffValues.some((x) => typeof x === 'object' && x !== null)
    let timer: ReturnType<typeof setTimeout> | undefined
    let n: IteratorResult<Buffer> | 'pause'
    try {
      n = haveJson ? await Promise.race([pending, new Promise<'pause'>((res) => (timer = setTimeout(res, SNIFF_WAIT_MS, 'pause')))]) : await pending
    } catch (e) {
      // the read failed: with no whole line read, no run can have ended, and the failure is the answer; else the
      // format is decided from the lines read, and the runs that ended in them are handed out before it
      if (headLines === 0) throw e
      pending = undefined
      readFailure = { error: e }
      break
    } finally {
      // a timer left pending would hold the process (and every CLI run) open for SNIFF_WAIT_MS after the replay
      if (timer !== undefined) clearTimeout(timer)
    }
    if (n === 'pause') break
    pending = undefined
    if (n.done) {
      eof = true
      const held = lead.end()
      if (held !== undefined) toHead(held)
      else if (head.length === 0) sniffer.skipLines(lead.lines)
      sniffer.end()
      break
    }
    const chunk = lead.take(n.value)
    if (chunk !== undefined) toHead(chunk)
  }
  const next = (): Promise<IteratorResult<Buffer>> => {
    if (pending !== undefined) {
      const p = pending
      pending = undefined
      return p
    }
    return input.next()
  }
  const anyJson = sniffValues.some((v) => typeof v === 'object' && v !== null)
  const startsLikeDocument = (() => {
    const b = firstNonSpace(head)
    return b === 0x7b || b === 0x5b
  })()
  // 2. Decide: line-based reader, or whole document.
  // A JSON document spread over lines starts with `{` or `[` on a line that is not JSON by itself (a later
  // line such as `[{}]` may parse alone, so only the first line decides).
  const firstLineParses = sniffValues.length > 0 && sniffValues[0] !== undefined
  const looksLikeDocument = startsLikeDocument && !firstLineParses && !firstOversize
  let module: FormatModule | undefined = explicit
  let documentMode = false
  if (module === undefined) {
    if (looksLikeDocument) documentMode = true
    else if (anyJson) module = detectLines(sniffValues)
    // an input with no non-blank line yields no run: read it as native, which gives one unfinished run (SPEC §1)
    if (module === undefined && !documentMode && eof && headLines === 0) {
      module = formatByName('native')
      notes.push(EMPTY_INPUT_NOTE)
    }
    // the source failed before the format could be told: its failure is the answer, not "undetected"
    if (module === undefined && !documentMode && readFailure !== undefined) throw readFailure.error
    if (module === undefined && !documentMode) {
      const why = firstOversize ? ` (its first line is over the line cap of ${LINE_CAP_TEXT}, so it was not read)` : ''
      throw new ReplayError(
        'undetected',
        `could not detect the format${fileLabel ? ` of ${fileLabel}` : ''}${why}; name it with --format (one of: ${formatNames()})`,
      )
    }
  } else {
    documentMode = module.reader === undefined || (module.readDocument !== undefined && looksLikeDocument)
    // an explicit format that does not match what the first lines look like: say so, read it as asked
    if (!documentMode && anyJson && (module.sniffLines?.(sniffValues) ?? 0) === 0) {
      const likely = detectLines(sniffValues)
      notes.push(
        likely !== undefined
          ? `the first lines look like ${likely.name}, not ${module.name}; read as ${module.name} as asked (try --format auto)`
          : `the first lines do not look like ${module.name}; read as asked (try --format auto)`,
      )
    }
  }
  // seed 002's owned interval opens at the native `agent/inbox/spliced` event that inserts the message, which no
  // other format's records state: elsewhere the option could only ever give one empty unfinished run
  if (options.messageId !== undefined && (documentMode || module?.name !== 'native'))
    throw new ReplayError(
      'bad-option',
      `a message id (--message-id) selects a run of a native log only, and ${fileLabel ?? 'the input'} is ${documentMode || module === undefined ? 'a JSON document' : `a ${module.name} log`}`,
    )
  if (documentMode) {
    // a document cut by a failed read is no document: the failure is the answer
    if (readFailure !== undefined) throw readFailure.error
    const max = maxDoc
    const parts = head
    let total = headBytes
    stabilize(parts)
    while (!eof) {
      const n = await next()
      if (n.done) break
      total += n.value.length
      if (total > max) {
        throw new ReplayError(
          'too-large',
          `${fileLabel ?? 'the input'} is a single JSON document over ${Math.round(max / 1048576)} MB; split it or use a line-based export`,
        )
      }
      parts.push(stableBytes(n.value))
    }
    if (total > max) throw new ReplayError('too-large', `${fileLabel ?? 'the input'} is a single JSON document over ${Math.round(max / 1048576)} MB`)
    // one copy at a time: the chunks, then the whole, then its text (a 64 MB document is not held three times)
    let whole: Buffer | null = Buffer.concat(parts)
    parts.length = 0
    if (countJsonValues(whole, 0, whole.length, MAX_DOCUMENT_VALUES) > MAX_DOCUMENT_VALUES) {
      throw new ReplayError(
        'too-large',
        `${fileLabel ?? 'the input'} is a single JSON document of over ${MAX_DOCUMENT_VALUES.toLocaleString('en-US')} JSON values; split it or use a line-based export`,
      )
    }
    let text = whole.toString('utf8')
    whole = null
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    let doc: unknown
    try {
      doc = JSON.parse(text)
    } catch {
      throw new ReplayError('not-json', `${fileLabel ?? 'the input'} starts like a JSON document but is not valid JSON`)
    }
    text = ''
    const m = module ?? detectDocument(doc)
    if (m === undefined || m.readDocument === undefined) {
      throw new ReplayError(
        'undetected',
        `could not detect the format of the JSON document${fileLabel ? ` ${fileLabel}` : ''}; name it with --format (one of: ${formatNames()})`,
      )
    }
    if (options.onEvent !== undefined && m.translator === undefined) throw new ReplayError('no-translator', `format ${m.name} cannot print its events yet`)
    for (const r of m.readDocument(doc, readerOptions)) onRun(r)
    return { format: m.name, notes }
  }
  const m = module as FormatModule
  if (m.reader === undefined) throw new ReplayError('undetected', `format ${m.name} cannot read line-based input`)
  if (options.onEvent !== undefined && m.translator === undefined) throw new ReplayError('no-translator', `format ${m.name} cannot print its events yet`)
  const reader = m.reader(onRun, readerOptions)
  options.onReader?.(reader, m.name)
  let error: ProtocolError | undefined
  const parsed = reader.parsed?.bind(reader)
  // a head line the sniffer parsed: the reader takes its value (the same `JSON.parse` of the same text)
  const takeParsed = (lineNo: number, unterminated: boolean): boolean => {
    if (parsed === undefined || headParsed.size === 0) return false
    const v = headParsed.get(lineNo)
    if (v === undefined) return false
    headParsed.delete(lineNo)
    error = parsed(v, lineNo, unterminated)
    return true
  }
  const splitter = new LineSplitter(
    (text, lineNo, unterminated) => {
      if (error !== undefined || takeParsed(lineNo, unterminated)) return
      error = reader.line(text, lineNo, unterminated)
    },
    (lineNo, size, values) => notes.push(oversizeNote(lineNo, size, values)),
  )
  // lines that start with `{` arrive as bytes: a head line the sniffer parsed is then never decoded again
  const readerBytes = reader.lineBytes?.bind(reader)
  const bytesLine = (line: Buffer, lineNo: number, unterminated: boolean): void => {
    if (error !== undefined || takeParsed(lineNo, unterminated)) return
    error = readerBytes !== undefined ? readerBytes(line, lineNo, unterminated) : reader.line(line.toString('utf8'), lineNo, unterminated)
  }
  splitter.lineBytes = readerBytes !== undefined || (parsed !== undefined && headParsed.size > 0) ? bytesLine : undefined
  sniffValues.length = 0
  splitter.skipLines(lead.lines)
  // runs of whole lines after the ones the sniffer parsed go to a reader that reads them at once (the native skim)
  const readerRun = reader.lineRun?.bind(reader)
  if (readerRun !== undefined) {
    splitter.lineRunFrom = Math.max(0, ...headParsed.keys()) + 1
    splitter.lineRun = (buf, from, lineNo, limit) => {
      if (error !== undefined) return { next: from, lines: 0 }
      const read = readerRun(buf, from, lineNo, limit)
      if (read.error !== undefined) error = read.error
      return read
    }
  }
  for (const c of head) {
    splitter.push(c)
    if (error !== undefined) break
  }
  head.length = 0
  // a line the head ended inside was not parsed by the sniffer; the parsed ones are all taken by now (but the last
  // line of an input that ended in the head, which `end()` hands out)
  if (!eof) {
    headParsed.clear()
    if (readerBytes === undefined) splitter.lineBytes = undefined
  }
  // live: when the input pauses, tell the reader once per pause (it may hand out a run it was holding)
  const quiet = options.live === true && reader.quiet !== undefined ? () => reader.quiet?.() : undefined
  const quietMs = options.quietMs ?? QUIET_MS
  while (!eof && error === undefined && readFailure === undefined) {
    const p = next()
    let n: IteratorResult<Buffer>
    let timer: ReturnType<typeof setTimeout> | undefined
    try {
      if (quiet === undefined) n = await p
      else {
        const r = await Promise.race([p, new Promise<'quiet'>((res) => (timer = setTimeout(res, quietMs, 'quiet')))])
        clearTimeout(timer)
        if (r === 'quiet') {
          quiet()
          n = await p
        } else n = r
      }
    } catch (e) {
      clearTimeout(timer)
      readFailure = { error: e }
      break
    }
    if (n.done) break
    splitter.push(n.value)
  }
  if (readFailure !== undefined && error === undefined) {
    // the runs that ended before the failure are out first (a line cut by it is not read); then the failure
    reader.failed?.()
    throw readFailure.error
  }
  if (error === undefined) {
    splitter.end()
  }
  if (error === undefined) reader.end()
  return error === undefined ? { format: m.name, notes } : { format: m.name, error, notes }
}

/**
 * Replays one log file (any format, `.gz` too) into its runs, in order (SPEC §1). A Claude Code session's
 * subagent files (`<session>/subagents/*.jsonl`) are read with it and attached to its runs as children.
 *
 * For small inputs: it holds every run in the array it resolves with, so its memory grows with the log (a
 * million-event log of thousands of runs). For a large log, or many files, use {@link replayRuns}, which yields
 * each run as it ends with memory flat.
 *
 * **Rejects with** the `ProtocolError` of a malformed native log, a `ReplayError` for an input that cannot be
 * read (undetectable format, a document over 64 MB), or the file system's error.
 * @example const runs = await replayFile('examples/claude-code/claude.jsonl') // => [{ ending: { kind: 'answered' }, … }]
 * @since 0.1.0
 * @category Replay
 */
export const replayFile = async (path: string, options: ReplayOptions = {}): Promise<Array<RunResult>> => {
  const runs: Array<RunResult> = []
  const outcome = await replayStream(fileChunks(path, { chunkBytes: FILE_CHUNK_BYTES, reuse: new ReadBuffer() }), (r) => runs.push(r), {
    file: path,
    ...options,
  })
  if (outcome.error !== undefined) throw outcome.error
  // a Claude Code session's subagent files (`<session>/subagents/*.jsonl`) belong to its runs (SPEC §1)
  if (outcome.format === 'claude-code' && hasSubagentFilesSync(path))
    return attachSubagents(runs, path, options.estimate !== undefined ? { estimate: options.estimate } : {})
  return runs
}

/** Options of {@link replayRuns}: those of {@link replayStream}. @since 0.3.0 @category Replay */
export type ReplayRunsOptions = ReplayOptions

/**
 * Replays one log — a file path (any format, `.gz` too) or a byte stream — as an async iterable of its runs, in
 * order (SPEC §1), with memory flat in the size of the input: the input is read in 256 KiB chunks, and the next
 * chunk is read only once the caller has taken every run the last one finished, so at most the runs of one chunk
 * wait in memory (peak RSS at 1e5, 1e6 and 3e6 native events is measured in `npm run bench`). The way to read a
 * large log or a whole folder of them; {@link replayFile} collects every run in an array first.
 *
 * For a path, a Claude Code session's subagent files (`<session>/subagents/*.jsonl`) are read with it and
 * attached to its runs as children, as {@link replayFile} does (those sessions are then collected first, to
 * match each run with its subagents by time).
 *
 * **Cancellation**: leave the loop (`break`, `return`, a thrown error) and the input is closed: a file this
 * opened is closed, a stream passed in is ended (`return()` on its iterator; a Node `Readable` is destroyed).
 * Leaving never waits on a quiet input: when a read is in flight (a live pipe or FIFO with no new bytes), a
 * `Readable` is destroyed at once, another iterator is told `return()` without waiting for it, and a file this
 * opened is closed when that read returns.
 *
 * **Throws** (from the loop, after the runs before the problem were yielded) the `ProtocolError` that stopped a
 * malformed native log (its `line` and `file` set), a `ReplayError` for an input that cannot be read at all —
 * `undetected` (no format matches its first lines; name one with `format`), `too-large` (a single JSON document
 * over `maxDocumentBytes` or `MAX_DOCUMENT_VALUES`), `not-json` (it starts like a JSON document and is not one),
 * `unknown-format` (an unknown `format` name), `no-translator` (`onEvent` for a format without a translator),
 * `bad-option` (a `maxDocumentBytes` that is not a non-negative number, a `messageId` with an input that is not a
 * native log) — or the file system's or the stream's error (`ENOENT`, `EISDIR`, `EACCES`, a socket reset; the
 * runs whose ending record arrived before it are yielded first, the open run is not).
 * @example for await (const run of replayRuns('session.jsonl')) console.log(run.ending.kind) // => answered
 * @since 0.3.0
 * @category Replay
 */
export async function* replayRuns(
  input: string | AsyncIterable<Uint8Array | string>,
  options: ReplayRunsOptions = {},
): AsyncGenerator<RunResult, void, undefined> {
  if (typeof input === 'string' && hasSubagentFilesSync(input)) {
    // a session with subagent files: its runs are matched with them by time, so they are collected first
    yield* await replayFile(input, options)
    return
  }
  const opened = typeof input === 'string' ? fileChunks(input, { chunkBytes: FILE_CHUNK_BYTES, reuse: new ReadBuffer() }) : undefined
  const source = opened ?? (input as AsyncIterable<Uint8Array | string>)
  const options_: ReplayOptions = typeof input === 'string' ? { file: input, ...options } : options
  const queue: Array<RunResult> = []
  let head = 0
  let stopped = false
  let finished = false
  let failure: { readonly error: unknown } | undefined
  // wakes the loop below (a run arrived, or the replay ended) and the gate (the caller took every queued run)
  let wakeReader: (() => void) | undefined
  let wakeGate: (() => void) | undefined
  const wake = (): void => {
    const w = wakeReader
    wakeReader = undefined
    w?.()
  }
  const taken = (): boolean => head >= queue.length
  // The input, one chunk at a time, and the next chunk read only once the caller has taken the runs so far. The
  // iterator is driven by hand so that `reading` tells whether a read is in flight when the caller leaves.
  const iterator = source[Symbol.asyncIterator]()
  let reading = false
  const gated = async function* (): AsyncGenerator<Uint8Array | string> {
    for (;;) {
      while (!stopped && !taken()) await new Promise<void>((res) => (wakeGate = res))
      if (stopped) return
      reading = true
      let step: IteratorResult<Uint8Array | string>
      try {
        step = await iterator.next()
      } finally {
        reading = false
      }
      if (step.done === true || stopped) return
      yield step.value
    }
  }
  const done = replayStream(
    gated(),
    (run) => {
      if (stopped) return
      queue.push(run)
      wake()
    },
    options_,
  ).then(
    (outcome) => {
      if (outcome.error !== undefined) failure = { error: outcome.error }
    },
    (error: unknown) => {
      failure = { error }
    },
  )
  void done.finally(() => {
    finished = true
    wake()
  })
  try {
    for (;;) {
      if (!taken()) {
        const run = queue[head] as RunResult
        queue[head++] = undefined as unknown as RunResult
        if (taken()) {
          queue.length = 0
          head = 0
          const g = wakeGate
          wakeGate = undefined
          g?.()
        }
        yield run
        continue
      }
      if (finished) break
      await new Promise<void>((res) => (wakeReader = res))
    }
    if (failure !== undefined && !stopped) throw failure.error
  } finally {
    stopped = true
    const g = wakeGate
    wakeGate = undefined
    g?.()
    await leave(reading, done, opened, source, iterator)
  }
}

/**
 * Closes the input of a {@link replayRuns} loop that was left. With no read in flight the replay has ended (or
 * ends at its gate) and the input is closed before the loop is left. With a read in flight — a live stream or a
 * FIFO that is quiet — waiting for it could wait forever: a stream passed in is destroyed at once (which ends
 * its read), any other iterator is told `return()`, and a file this opened is closed (a FIFO's read ends).
 */
const leave = async (
  reading: boolean,
  done: Promise<void>,
  opened: AsyncGenerator<Buffer, void, undefined> | undefined,
  source: AsyncIterable<Uint8Array | string>,
  iterator: AsyncIterator<Uint8Array | string>,
): Promise<void> => {
  const s = source as { destroy?: unknown }
  const destroy = (): void => {
    if (typeof s.destroy === 'function') (s.destroy as () => void).call(source)
  }
  const stop = async (): Promise<void> => {
    try {
      await iterator.return?.()
    } catch {
      // the input's own error on closing: the caller left already, and nothing it could do with it
    }
  }
  if (!reading) {
    await done
    if (opened !== undefined) await opened.return(undefined)
    else {
      await stop()
      destroy()
    }
    return
  }
  if (opened !== undefined) {
    // a FIFO's read ends at once (fileChunks' return destroys its socket); a regular file's read is never waiting
    void opened.return(undefined).catch(() => {})
    return
  }
  destroy()
  void stop()
}
