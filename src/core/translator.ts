/**
 * The contract between an input format and the fold: a `Translator` turns one format's records into native
 * `SessionEvent`s (SPEC §4, protocol 2) — the front end of the pipeline, the fold being its one back end.
 *
 * A translator keeps only what it must remember across records (a root session id, a flag that a terminal
 * record was seen, ids it already counted), as a small **plain JSON** state with an io-ts codec, so a replay of
 * any format can be checkpointed and resumed. It never builds results, never decides how usage adds up or
 * what a missing terminal record means: it states what its records say, in the native vocabulary.
 *
 * Vendor translators are lenient: a record they do not know, or whose fields have unexpected types, becomes a
 * `source/diagnostic` event and is skipped; only the native translator returns a `ProtocolError`.
 *
 * @module
 */
import type * as t from 'io-ts'
import type { SessionEvent } from './events.js'
import type { ProtocolError } from './ProtocolError.js'
import type { FormatName } from './RunResult.js'

/** Receives each event a translator produces, in order. @since 0.2.0 @category Pipeline */
export type Emit = (event: SessionEvent) => void

/** What a translator is told when it starts. @since 0.2.0 @category Pipeline */
export interface TranslatorOptions {
  /** The file being read (some formats read meaning from its path, e.g. a Claude Code subagent file), or `null`. */
  readonly file?: string | null
  /** A live stream (`watch`, a piped SDK stream): the input can pause, and `quiet` may be called. */
  readonly live?: boolean
}

/**
 * One input format's front end. `S` is its state: a plain JSON value (no classes, Maps or Sets; id-keyed
 * records use `#`-prefixed keys), changed in place by the methods and valid for `stateCodec` after any call.
 * @since 0.2.0
 * @category Pipeline
 */
export interface Translator<S = unknown> {
  readonly format: FormatName
  /** io-ts codec of the state, for checkpoints (`JSON.stringify(state)` is its encoding). */
  readonly stateCodec: t.Type<S, unknown, unknown>
  /** A fresh state for one input. */
  init(options: TranslatorOptions): S
  /**
   * One record: a parsed JSON value (a line of a line-based log, or an object a live SDK stream yields).
   * `line` is its 1-based line in the log, or `undefined` for objects. Returns a `ProtocolError` only in the
   * native format (the caller then stops feeding this input).
   */
  record(state: S, value: unknown, line: number | undefined, emit: Emit): ProtocolError | undefined
  /**
   * A line that is not JSON (`unterminated`: the log's last line, without a newline — a log cut while being
   * written). Vendor formats keep it as a diagnostic (some read meaning from such noise); native returns a
   * `ProtocolError` unless it is unterminated.
   */
  text(state: S, text: string, line: number | undefined, unterminated: boolean, emit: Emit): ProtocolError | undefined
  /** A whole JSON document (a session file, a serialized run state, a JSON array of records). */
  document?(state: S, doc: unknown, emit: Emit): void
  /** The input ended: emit what the format's last records imply (a run boundary it was waiting for). */
  end(state: S, emit: Emit): void
  /** Live only: the input has paused. A format that holds a run boundary until the next record may emit it now. */
  quiet?(state: S, emit: Emit): void
  /**
   * The input failed while being read (a stream error) and nothing more will come. A format that holds the
   * boundary of a run whose ending record has arrived emits it, as `quiet` would live; the open run's end is not
   * known, so nothing is inferred for it.
   */
  failed?(state: S, emit: Emit): void
}
