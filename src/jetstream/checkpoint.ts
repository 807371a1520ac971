/**
 * One session's fold on JetStream and its checkpoint: the pipeline (translator → fold, SPEC §6) of the
 * session's format, fed one record per message, and its whole state as plain JSON — the translator's state
 * and the fold's — so any format resumes from a snapshot (docs/scale-out.md §3).
 *
 * Applying a message is the live pipeline's semantics: each run is handed out at its terminal record (a root
 * `idle` in the native format, a `result` in Claude Code stream-json, …) and is run `n` of the session
 * (`fold.runs` after it closed). A message the native format rejects (not JSON, no string `type`, a `turn/end`
 * without a valid `reason`) does not stop the fold: it is skipped, its `ProtocolError` message (never the
 * input) becomes a diagnostic of the open run naming the stream sequence where the raw message can still be
 * read, and the run counts as having content so its terminal record closes it and the diagnostic reaches
 * `RUN_RESULTS`. Vendor formats are lenient (their translators turn what they do not know into diagnostics).
 *
 * @module
 */
import type * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { boundedJson } from '../core/boundedJson.js'
import { currentResult, hasOpenRun, initialState } from '../core/fold.js'
import { decodeJsonWith } from '../core/FoldStateCodec.js'
import { Pipeline, pipelineStateCodec, type PipelineState } from '../core/pipeline.js'
import type { ProtocolError } from '../core/ProtocolError.js'
import { addDiagnostic, type RunResult } from '../core/RunResult.js'
import type { Translator } from '../core/translator.js'

/**
 * One session's checkpoint, as a line of a partition snapshot: plain JSON.
 * @since 0.1.0
 */
export interface SessionCheckpoint<S = unknown> {
  readonly version: 2
  /** The session id (the subject's session token): the fold key. */
  readonly session: string
  /** Messages applied so far (rejected ones included). */
  readonly applied: number
  /** Messages the native format rejected so far (recorded as diagnostics). */
  readonly protocolErrors: number
  /** The pipeline's whole state (format, translator state, fold state); `fold.closed`/`lastClosed` are dropped. */
  readonly state: PipelineState<S>
}

/** io-ts codec of a {@link SessionCheckpoint} of one translator's format. @since 0.3.0 */
export const sessionCheckpointCodec = <S>(translator: Translator<S>): t.Type<SessionCheckpoint<S>, unknown, unknown> =>
  t.type({
    version: t.literal(2),
    session: t.string,
    applied: t.number,
    protocolErrors: t.number,
    state: pipelineStateCodec(translator),
  }) as unknown as t.Type<SessionCheckpoint<S>, unknown, unknown>

/**
 * Parses and validates one stored session checkpoint.
 *
 * **Fails with** `ProtocolError` kind `json` (not JSON) or `event` (the path and expected type of the first
 * mismatch, e.g. a checkpoint of another format); it never echoes the stored value.
 * @since 0.1.0
 */
export const decodeCheckpoint = <S>(translator: Translator<S>, text: string): E.Either<ProtocolError, SessionCheckpoint<S>> =>
  decodeJsonWith(sessionCheckpointCodec(translator), text, 'a session checkpoint')

const decoder = new TextDecoder('utf-8', { fatal: false })

/** Receives each run a message closed: its 1-based number in the session and its result. @since 0.3.0 */
export type OnClosed = (n: number, result: RunResult) => void

/**
 * A session's live pipeline and counters. Mutable; {@link SessionFold.encode} is its checkpoint.
 * @since 0.3.0
 */
export class SessionFold<S = unknown> {
  readonly session: string
  private readonly translator: Translator<S>
  private state: PipelineState<S>
  private pipeline: Pipeline<S>
  applied: number
  protocolErrors: number

  /** A fresh session, or one resumed from its checkpoint (whose state is then used, not copied). */
  constructor(translator: Translator<S>, session: string, from?: SessionCheckpoint<S>) {
    this.translator = translator
    this.session = session
    this.applied = from?.applied ?? 0
    this.protocolErrors = from?.protocolErrors ?? 0
    this.state = from?.state ?? SessionFold.freshState(translator)
    this.pipeline = new Pipeline(translator, { live: true }, this.state)
  }

  private static freshState<S>(translator: Translator<S>, runs = 0): PipelineState<S> {
    const fold = initialState({ format: translator.format, file: null, hold: false })
    fold.runs = runs
    return { version: 1, format: translator.format, translator: translator.init({ file: null, live: true }), fold }
  }

  /** Runs closed so far. */
  get runs(): number {
    return this.state.fold.runs
  }

  /** `true` while the session's current run has content and no terminal record yet. */
  get open(): boolean {
    return hasOpenRun(this.state.fold)
  }

  /**
   * Applies the message at stream sequence `seq` (one record of the session's format); calls `onClosed` for
   * each run it closed. Returns the native format's `ProtocolError` when the message was rejected (then
   * recorded as a diagnostic). Never throws (a translator that throws has the record skipped with a diagnostic).
   */
  apply(seq: number, payload: Uint8Array | string, onClosed: OnClosed): ProtocolError | undefined {
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : decoder.decode(payload)
    const p = this.pipeline
    let error: ProtocolError | undefined
    try {
      error = p.textLine(text, undefined)
    } catch (e) {
      // a translator must not throw; if one does, the record is skipped with a diagnostic rather than retried
      // for ever (it would stall its partition)
      const draft = this.state.fold.run.draft
      draft.hasContent = true
      addDiagnostic(
        draft,
        undefined,
        `internal error on the record at stream sequence ${seq}, skipped: ${e instanceof Error ? e.message.slice(0, 200) : 'unknown error'}`,
      )
    }
    this.applied++
    if (error !== undefined) {
      this.protocolErrors++
      const draft = this.state.fold.run.draft
      draft.hasContent = true
      addDiagnostic(draft, undefined, `protocol error in the event at stream sequence ${seq}, skipped: ${error.message}`)
    }
    if (p.hasResults) {
      const closed = p.takeResults()
      const first = this.state.fold.runs - closed.length + 1
      for (let i = 0; i < closed.length; i++) onClosed(first + i, closed[i] as RunResult)
    }
    if (p.hasNotes) p.takeNotes() // late records of a run already handed out: nowhere to put them on a stream
    return error
  }

  /** The checkpoint as one line of JSON (no newline inside). */
  encode(): string {
    const fold = this.state.fold
    const closed = fold.closed
    const lastClosed = fold.lastClosed
    // transient: the run the last record closed is in RUN_RESULTS already
    fold.closed = null
    fold.lastClosed = null
    try {
      return boundedJson({ version: 2, session: this.session, applied: this.applied, protocolErrors: this.protocolErrors, state: this.state })
    } finally {
      fold.closed = closed
      fold.lastClosed = lastClosed
    }
  }

  /**
   * Checks the session bound after a message of `payloadBytes` bytes was applied — on every 256th message the
   * session applied and after any message of at least `limit / 64` bytes, points that depend only on the
   * session's own records, so a worker replaying them after a crash cuts exactly where the first one did. When
   * the checkpoint is then larger than `limit` bytes, {@link SessionFold.restart}s the session and returns its
   * size and the run it closed (`closed` `null` when none was open); else `undefined`. Between two checks a
   * session grows by at most 256 messages.
   */
  checkBound(
    limit: number,
    payloadBytes: number,
  ): { readonly bytes: number; readonly closed: { readonly n: number; readonly result: RunResult } | null } | undefined {
    if (this.applied % 256 !== 0 && payloadBytes < limit / 64) return undefined
    const line = this.encode()
    if (line.length <= limit / 4 || Buffer.byteLength(line) <= limit) return undefined
    const bytes = Buffer.byteLength(line)
    return { bytes, closed: this.restart(bytes, limit) }
  }

  /**
   * The session's checkpoint is larger than the bound (`bytes`): closes its current run here with a diagnostic
   * saying so, and restarts the session's fold (translator and fold state fresh, run numbers going on). Returns
   * the closed run as run `n`, or `null` when no run was open (only what the session keeps between runs was large:
   * it is dropped and no result is made, so no empty run is counted).
   */
  restart(bytes: number, limit: number): { readonly n: number; readonly result: RunResult } | null {
    if (!this.open) {
      this.state = SessionFold.freshState(this.translator, this.state.fold.runs)
      this.pipeline = new Pipeline(this.translator, { live: true }, this.state)
      return null
    }
    const before = currentResult(this.state.fold)
    const n = this.state.fold.runs + 1
    const message = `the session's checkpoint grew to ${bytes} bytes, past the ${limit}-byte bound: its run was closed here and its fold restarted (docs/scale-out.md §4)`
    const result: RunResult = { ...before, diagnostics: [...before.diagnostics, { message }] }
    this.state = SessionFold.freshState(this.translator, n)
    this.pipeline = new Pipeline(this.translator, { live: true }, this.state)
    return { n, result }
  }
}

/**
 * The JSON of a result that fits in `maxBytes` (a KV value under the server's `max_payload`): the result
 * itself when it fits; else, in turn, without its children, then without its usage by model (the totals stay),
 * then without its response and structured output,
 * then without its permission denials and diagnostics — each cut named in a diagnostic, so a run is never
 * dropped and its partition never stalls (issue 14). Counts, usage totals, cost and the ending are always kept.
 * @since 0.3.0
 */
export const fitResult = (result: RunResult, maxBytes: number): string => {
  const text = boundedJson(result)
  if (text.length <= maxBytes / 3 || Buffer.byteLength(text) <= maxBytes) return text
  const bytes = Buffer.byteLength(text)
  const note = (what: string) => ({
    message: `${what} left out: the result's JSON of ${bytes} bytes is larger than the ${maxBytes} bytes a value may have on this server (max_payload)`,
  })
  const steps: Array<(r: RunResult) => RunResult> = [
    (r) => ({ ...r, children: [], diagnostics: [...r.diagnostics.slice(0, 99), note(`its ${r.children.length} children were`)] }),
    (r) => ({
      ...r,
      usage: { ...r.usage, byModel: {} },
      diagnostics: [...r.diagnostics.slice(0, 99), note(`its usage by model (${Object.keys(r.usage.byModel).length} models) was`)],
    }),
    (r) => ({ ...r, response: null, structuredOutput: null, diagnostics: [...r.diagnostics.slice(0, 99), note('its response and structured output were')] }),
    (r) => ({
      ...r,
      permissionDenials: [],
      diagnostics: [note('its permission denials and diagnostics were')],
      diagnosticsDropped: r.diagnosticsDropped + r.diagnostics.length,
    }),
  ]
  let r = result
  for (const step of steps) {
    r = step(r)
    const t = boundedJson(r)
    if (Buffer.byteLength(t) <= maxBytes) return t
  }
  // an ending that alone is too large (a pending call's arguments): its kind stays
  return boundedJson({
    ...r,
    ending: {
      kind: r.ending.kind === 'suspended' ? 'suspended' : r.ending.kind,
      ...(r.ending.kind === 'suspended' ? { pending: [] } : {}),
    } as RunResult['ending'],
  })
}
