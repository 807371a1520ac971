/**
 * Folding records of any format that are already in memory — the objects a live SDK stream yields (a Claude
 * Agent SDK `query()`, an AI SDK `fullStream`, a Codex SDK `runStreamed()`, an OpenAI Agents streamed run, ACP
 * messages) or the lines of a log as strings — through the one pipeline (translator → fold).
 *
 * A string is one line of a log (parsed as JSON; a line that is not JSON is the translator's to judge). An array
 * is a whole document for formats that read one (a JSON array of chunks), otherwise its elements are records.
 * Anything else is one record. With `format: 'auto'`, the first records are held until a format is recognised
 * (a strong marker, or {@link SNIFF_RECORDS} records, or the end).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { Pipeline, type PipelineOptions } from '../core/pipeline.js'
import type { ProtocolError } from '../core/ProtocolError.js'
import type { Diagnostic, FormatName, RunResult } from '../core/RunResult.js'
import type { SessionEvent } from '../core/events.js'
import type { Translator } from '../core/translator.js'
import { detectDocument, detectLines, formatByName, formats } from './index.js'

/** How many records `auto` looks at, at most, before it decides. @since 0.2.0 @category Pipeline */
export const SNIFF_RECORDS = 20

/** A detection score that decides at once (a format's own unmistakable marker). */
const CERTAIN = 0.95

/** The input's format could not be told, or a `format` name is unknown. @since 0.2.0 @category Pipeline */
export class FormatError extends Error {
  override readonly name = 'FormatError'
}

/** Options of {@link RecordFolder}, {@link foldRecords} and {@link runsFrom}. @since 0.2.0 @category Pipeline */
export interface RecordOptions extends PipelineOptions {
  /** A `--format` name, or `auto` (default: `native`). */
  readonly format?: FormatName | 'auto'
}

const parseLine = (s: string): unknown => {
  try {
    return JSON.parse(s)
  } catch {
    return undefined
  }
}

const translatorOf = (name: string): Translator<unknown> => {
  const m = formatByName(name)
  if (m === undefined) throw new FormatError(`unknown format "${name.slice(0, 40)}" (one of: ${formats.map((f) => f.name).join(', ')})`)
  if (m.translator === undefined) throw new FormatError(`format ${m.name} has no translator`)
  return m.translator as Translator<unknown>
}

/**
 * A stateful fold of one input's records: push each record, take the finished runs after each push, call
 * `end` once. Mutable; not reusable across inputs.
 * @since 0.2.0
 * @category Pipeline
 */
export class RecordFolder {
  private pipeline: Pipeline | undefined
  private readonly held: Array<unknown> = []
  private readonly options: RecordOptions

  /** **Throws** `FormatError` for an unknown format name. */
  constructor(options: RecordOptions = {}) {
    this.options = options
    const f = options.format ?? 'native'
    if (f !== 'auto') this.pipeline = new Pipeline(translatorOf(f), options)
  }

  /** The format read (`undefined` while `auto` is still looking). */
  get format(): FormatName | undefined {
    return this.pipeline?.format
  }

  /** The pipeline, once the format is known. */
  get current(): Pipeline | undefined {
    return this.pipeline
  }

  /**
   * One record (an object, a line as a string, or a document). A `ProtocolError` only from the native format.
   * **Throws** `FormatError` when `auto` has held {@link SNIFF_RECORDS} records no format recognises.
   */
  push(value: unknown): ProtocolError | undefined {
    if (this.pipeline === undefined) {
      this.held.push(value)
      const chosen = this.sniff(false)
      if (chosen !== undefined) return this.start(chosen)
      if (this.held.length >= SNIFF_RECORDS) throw new FormatError(`could not detect the format of the first ${SNIFF_RECORDS} records; pass { format }`)
      return undefined
    }
    return this.feed(this.pipeline, value)
  }

  /** The input ended. **Throws** `FormatError` when `auto` found no format in what it held. */
  end(): ProtocolError | undefined {
    if (this.pipeline === undefined) {
      const chosen = this.sniff(true)
      if (chosen === undefined) throw new FormatError('could not detect the format of the records; pass { format }')
      const err = this.start(chosen)
      if (err !== undefined) return err
    }
    ;(this.pipeline as Pipeline).end()
    return undefined
  }

  /**
   * The source failed and no more records will come: a run whose ending record had arrived is final (see
   * `Pipeline.failed`); the open run stays open, for the caller to end as it reports the failure. A format `auto`
   * is still looking for is decided from the records held, when they name one. A `ProtocolError` only from the
   * native format (a held record fed on being decided).
   */
  failed(): ProtocolError | undefined {
    if (this.pipeline === undefined) {
      const chosen = this.sniff(true)
      if (chosen === undefined) return undefined
      const err = this.start(chosen)
      if (err !== undefined) return err
    }
    this.pipeline?.failed()
    return undefined
  }

  /** The runs finished since the last call. */
  takeResults(): Array<RunResult> {
    return this.pipeline?.takeResults() ?? []
  }

  /** Notes that belong to no run (live), emptied. */
  takeNotes(): Array<Diagnostic> {
    return this.pipeline?.takeNotes() ?? []
  }

  private feed(p: Pipeline, value: unknown): ProtocolError | undefined {
    if (typeof value === 'string') return p.textLine(value, undefined)
    if (Array.isArray(value)) {
      if (p.document(value)) return undefined
      for (const v of value) {
        const err = typeof v === 'string' ? p.textLine(v, undefined) : p.record(v)
        if (err !== undefined) return err
      }
      return undefined
    }
    return p.record(value)
  }

  private start(name: string): ProtocolError | undefined {
    const p = new Pipeline(translatorOf(name), this.options)
    this.pipeline = p
    for (const v of this.held.splice(0, this.held.length)) {
      const err = this.feed(p, v)
      if (err !== undefined) return err
    }
    return undefined
  }

  /** The format of the records held so far: when certain, after {@link SNIFF_RECORDS}, or at the end. */
  private sniff(atEnd: boolean): string | undefined {
    const values = this.held.map((v) => (typeof v === 'string' ? parseLine(v) : v))
    const first = values[0]
    if (values.length === 1 && (Array.isArray(first) || (atEnd && typeof first === 'object' && first !== null))) {
      const doc = detectDocument(first)
      if (doc !== undefined) return doc.name
    }
    const best = detectLines(values)
    // nothing at all is native (one unfinished run, SPEC §1); records no format recognises stay undecided
    if (best === undefined) return atEnd && this.held.length === 0 ? 'native' : undefined
    const score = best.sniffLines?.(values) ?? 0
    if (atEnd || score >= CERTAIN || values.length >= SNIFF_RECORDS) return best.name
    return undefined
  }
}

/**
 * Folds in-memory records of one input (any format) into its runs, in order.
 *
 * **Fails with** the `ProtocolError` of a malformed native record. **Throws** `FormatError` for an unknown
 * format name or records whose format `auto` cannot tell.
 * @example foldRecords(messagesFromQuery, { format: 'claude-code' }) // => right([{ ending: { kind: 'answered' }, … }])
 * @since 0.2.0
 * @category Pipeline
 */
export const foldRecords = (records: Iterable<unknown>, options: RecordOptions = {}): E.Either<ProtocolError, Array<RunResult>> => {
  const f = new RecordFolder(options)
  const out: Array<RunResult> = []
  for (const r of records) {
    const err = f.push(r)
    if (err !== undefined) return E.left(err)
    out.push(...f.takeResults())
  }
  const err = f.end()
  if (err !== undefined) return E.left(err)
  out.push(...f.takeResults())
  return E.right(out)
}

/**
 * The runs of a stream of records (an async iterable — a live SDK stream — or a plain iterable), each yielded
 * as soon as it ends. The RxJS-free counterpart of `runResults({ format })`; memory stays flat.
 *
 * **Throws** (rejects the iteration with) the `ProtocolError` of a malformed native record, a `FormatError`,
 * or the source's own error.
 * @example for await (const run of runsFrom(query({ prompt }), { format: 'claude-code', live: true })) console.log(run.ending)
 * @since 0.2.0
 * @category Pipeline
 */
export async function* runsFrom(records: AsyncIterable<unknown> | Iterable<unknown>, options: RecordOptions = {}): AsyncGenerator<RunResult> {
  const f = new RecordFolder(options)
  for await (const r of records as AsyncIterable<unknown>) {
    const err = f.push(r)
    if (err !== undefined) throw err
    yield* f.takeResults()
  }
  const err = f.end()
  if (err !== undefined) throw err
  yield* f.takeResults()
}

/**
 * The native events a format's records translate to, in order (what `run-outcome events` prints), for records
 * in memory.
 * @since 0.2.0
 * @category Pipeline
 */
export const eventsOf = (records: Iterable<unknown>, options: RecordOptions = {}): E.Either<ProtocolError, Array<SessionEvent>> => {
  const out: Array<SessionEvent> = []
  const f = new RecordFolder({ ...options, onEvent: (ev) => out.push(ev) })
  for (const r of records) {
    const err = f.push(r)
    if (err !== undefined) return E.left(err)
  }
  const err = f.end()
  return err !== undefined ? E.left(err) : E.right(out)
}
