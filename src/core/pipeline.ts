/**
 * The pipeline: records of any format → its `Translator` → native `SessionEvent`s → the one fold → `RunResult`s
 * (SPEC §6). What `replay`, `watch`, `stats`, the run operators with `{ format }` and `events` all run.
 *
 * Its whole state — the translator's and the fold's — is one plain JSON value ({@link PipelineState}) with a
 * codec per format ({@link pipelineStateCodec}): fold a prefix, checkpoint through JSON, fold the rest, and the
 * results are those of folding the whole.
 *
 * @module
 */
import * as t from 'io-ts'
import type { SessionEvent } from './events.js'
import {
  applyEvent,
  cloneState,
  currentResult,
  endFold,
  hasOpenRun,
  initialState,
  releaseHeldRun,
  type CostEstimator,
  type FoldState,
  type SeqCache,
} from './fold.js'
import { FoldStateCodec } from './FoldStateCodec.js'
import type { ProtocolError } from './ProtocolError.js'
import type { Diagnostic, FormatName, RunResult } from './RunResult.js'
import type { Emit, Translator } from './translator.js'

/**
 * The state of one replay: the format, the translator's state and the fold's. Plain JSON.
 * @since 0.2.0
 * @category Pipeline
 */
export interface PipelineState<S = unknown> {
  readonly version: 1
  readonly format: FormatName
  readonly translator: S
  readonly fold: FoldState
}

/** io-ts codec of a pipeline state for one translator (its state codec inside). @since 0.2.0 @category Pipeline */
export const pipelineStateCodec = <S>(translator: Translator<S>): t.Type<PipelineState<S>, unknown, unknown> =>
  t.type({
    version: t.literal(1),
    format: t.literal(translator.format),
    translator: translator.stateCodec,
    fold: FoldStateCodec,
  }) as unknown as t.Type<PipelineState<S>, unknown, unknown>

/** `true` when `text` can start a JSON value (its first non-blank character is one that a JSON text starts with). */
const mayBeJson = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xfeff) continue
    // { [ " - 0-9 t f n
    return c === 123 || c === 91 || c === 34 || c === 45 || (c >= 48 && c <= 57) || c === 116 || c === 102 || c === 110
  }
  return false
}

/** Options of a {@link Pipeline}. @since 0.2.0 @category Pipeline */
export interface PipelineOptions {
  /** The file read, for `RunResult.source` and for formats that read meaning from a path. */
  readonly file?: string | null
  /**
   * A live stream: each run is handed out at its terminal record (late records of it become notes), and
   * `quiet` may be called when the input pauses. Default: a recorded log, where a run is handed out when the
   * next one begins or the input ends, so late records still join it (SPEC §1, K7).
   */
  readonly live?: boolean
  /** Seed 002's owned interval (native events only make sense with it). */
  readonly messageId?: string
  /**
   * Estimates the cost of each model request whose source gives none (USD, from its model and usage), e.g. from
   * a price table; estimated costs are marked (`cost.estimated`). Without it such costs stay unknown.
   */
  readonly estimate?: CostEstimator
  /** Receives every event the translator produces, before the fold applies it (the `events` command). */
  readonly onEvent?: (event: SessionEvent, line: number | undefined) => void
}

/**
 * A stateful pipeline over one input: feed it records (or non-JSON lines, or a document), take the finished
 * runs with {@link Pipeline.takeResults} after each call, and call {@link Pipeline.end} once at the end.
 * Mutable for speed; {@link Pipeline.checkpoint} gives a JSON copy of its whole state.
 * @since 0.2.0
 * @category Pipeline
 */
export class Pipeline<S = unknown> {
  private readonly t: Translator<S>
  private tstate: S
  private readonly fold: FoldState
  private readonly cache: SeqCache
  private readonly out: Array<RunResult> = []
  private line: number | undefined = undefined
  private readonly emitFn: Emit
  private readonly onEvent: ((event: SessionEvent, line: number | undefined) => void) | undefined

  constructor(translator: Translator<S>, options: PipelineOptions = {}, state?: PipelineState<S>) {
    this.t = translator
    this.onEvent = options.onEvent
    this.cache = { id: null, mem: undefined, estimate: options.estimate }
    if (state !== undefined) {
      this.tstate = state.translator
      this.fold = state.fold
    } else {
      this.tstate = translator.init({ file: options.file ?? null, live: options.live === true })
      this.fold = initialState({
        format: translator.format,
        file: options.file ?? null,
        hold: options.live !== true,
        ...(options.messageId !== undefined ? { messageId: options.messageId } : {}),
      })
    }
    this.emitFn = (ev) => {
      this.onEvent?.(ev, this.line)
      applyEvent(this.fold, ev, this.line, this.cache)
      const closed = this.fold.closed
      if (closed !== null) this.out.push(closed)
    }
  }

  /** The format read. */
  get format(): FormatName {
    return this.t.format
  }

  /** One parsed record at `line` (1-based, or `undefined` for objects). A `ProtocolError` only in the native format. */
  record(value: unknown, line?: number): ProtocolError | undefined {
    this.line = line
    return this.t.record(this.tstate, value, line, this.emitFn)
  }

  /** One line of text: parsed as JSON, else handed to the translator as text. */
  textLine(text: string, line: number | undefined, unterminated = false): ProtocolError | undefined {
    let value: unknown
    try {
      // a line that cannot start a JSON value (an SSE `data:` line, log noise) is text without a failed parse
      if (!mayBeJson(text)) throw text
      value = JSON.parse(text)
    } catch {
      this.line = line
      return this.t.text(this.tstate, text, line, unterminated, this.emitFn)
    }
    this.line = line
    return this.t.record(this.tstate, value, line, this.emitFn)
  }

  /** A whole JSON document (formats that read one). Returns `false` when the format reads no documents. */
  document(doc: unknown): boolean {
    if (this.t.document === undefined) return false
    this.line = undefined
    this.t.document(this.tstate, doc, this.emitFn)
    return true
  }

  /** Live: the input has paused (a format holding a run boundary may emit it). */
  quiet(): void {
    this.line = undefined
    this.t.quiet?.(this.tstate, this.emitFn)
  }

  /**
   * The input failed while being read (a stream error; no more records will come): a run whose ending record has
   * arrived is final, as a pause would make it final (the translator's boundary, then the fold's held run); the
   * open run is left as it is, for the caller to report the failure instead.
   */
  failed(): void {
    this.line = undefined
    this.t.failed?.(this.tstate, this.emitFn)
    const held = releaseHeldRun(this.fold)
    if (held !== undefined) this.out.push(held)
  }

  /** The input ended: the translator's last events, then every run still open or held. */
  end(): void {
    this.line = undefined
    this.t.end(this.tstate, this.emitFn)
    for (const r of endFold(this.fold)) this.out.push(r)
  }

  /** `true` when runs finished since the last {@link Pipeline.takeResults} (cheap: no allocation). */
  get hasResults(): boolean {
    return this.out.length > 0
  }

  /** `true` when notes arrived since the last {@link Pipeline.takeNotes}. */
  get hasNotes(): boolean {
    return this.fold.notes.length > 0
  }

  /** The runs finished since the last call, in order (emptied). */
  takeResults(): Array<RunResult> {
    if (this.out.length === 0) return []
    return this.out.splice(0, this.out.length)
  }

  /** Notes that belong to no run (late records of a run already handed out, live), emptied. */
  takeNotes(): Array<Diagnostic> {
    const n = this.fold.notes
    if (n.length === 0) return n
    this.fold.notes = []
    return n
  }

  /** The open run as it stands (`undefined` when none is open), for live status lines. */
  snapshot(): RunResult | undefined {
    return hasOpenRun(this.fold) ? currentResult(this.fold) : undefined
  }

  /** The translator's state (read-only use: a reader that skims lines asks the translator what it reads now). */
  get translatorState(): Readonly<S> {
    return this.tstate
  }

  /** The fold state (read-only use: counters for progress displays). */
  get foldState(): Readonly<FoldState> {
    return this.fold
  }

  /** A deep copy of the whole state, for a checkpoint (`JSON.stringify` it; decode with {@link pipelineStateCodec}). */
  checkpoint(): PipelineState<S> {
    return {
      version: 1,
      format: this.t.format,
      translator: JSON.parse(JSON.stringify(this.tstate)) as S,
      fold: cloneState(this.fold),
    }
  }
}
