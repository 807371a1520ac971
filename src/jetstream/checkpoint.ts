/**
 * A session's checkpoint on JetStream: the native fold state (`FoldState`, SPEC §4) of the events applied so
 * far, with the stream sequence of the last one. Stored as JSON in the `RUN_STATE` bucket under the session's
 * key; a worker applies a message only when its stream sequence is above `lastSeq`, so a redelivered message
 * is never applied twice.
 *
 * Applying a message is the `runResults()` semantics of the native format: a run closes at the root `idle`,
 * and the closed run is the `RunResult` to store as run `n` (`fold.runs` after it closed). A malformed event
 * (not JSON, no string `type`, a `turn/end` without a valid `reason`) does not stop the fold: the event is
 * skipped, its `ProtocolError` message (never the input) becomes a diagnostic of the open run, naming the
 * stream sequence where the raw event can still be read, and the run counts as having content so the next
 * root idle closes it and the diagnostic reaches `RUN_RESULTS`.
 *
 * @module
 */
import { boundedJson } from '../core/boundedJson.js'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { cloneState, initialState, NativeFolder, type FoldState } from '../core/fold.js'
import { decodeJsonWith, FoldStateCodec } from '../core/FoldStateCodec.js'
import { ProtocolError } from '../core/ProtocolError.js'
import { addDiagnostic, type RunResult } from '../core/RunResult.js'

/**
 * One session's checkpoint (the value under its key in `RUN_STATE`). Mutable while a worker applies a batch
 * to its private copy; plain JSON.
 * @since 0.1.0
 */
export interface SessionCheckpoint {
  readonly version: 1
  /** The session id (the subject's session token): the fold key. */
  readonly session: string
  /** Stream sequence of the last event applied; 0 before any. */
  lastSeq: number
  /** Messages applied so far (malformed ones included). */
  applied: number
  /** Malformed events recorded as diagnostics so far. */
  protocolErrors: number
  /**
   * The first delivery (by the durable `consumer`, an incarnation id, at its delivery sequence `seq`) that
   * carried the event at `lastSeq`, when that event was applied from it; else `null`. Lets the worker that
   * holds every delivery since then skip the stream read (docs/scale-out.md, "ordering").
   */
  delivery: { readonly consumer: string; readonly seq: number } | null
  /** The native fold's state after the last event applied. */
  fold: FoldState
}

/** io-ts codec of {@link SessionCheckpoint}; the fold state is checked with `FoldStateCodec`. @since 0.1.0 */
export const SessionCheckpointCodec: t.Type<SessionCheckpoint, unknown> = t.type({
  version: t.literal(1),
  session: t.string,
  lastSeq: t.number,
  applied: t.number,
  protocolErrors: t.number,
  delivery: t.union([t.type({ consumer: t.string, seq: t.number }), t.null]),
  fold: FoldStateCodec,
}) as unknown as t.Type<SessionCheckpoint, unknown>

/** The checkpoint of a session with no event applied. @since 0.1.0 */
export const newCheckpoint = (session: string): SessionCheckpoint => ({
  version: 1,
  session,
  lastSeq: 0,
  applied: 0,
  protocolErrors: 0,
  delivery: null,
  fold: initialState(),
})

/** A deep copy, for a worker to apply a batch to without touching its cached copy. @since 0.1.0 */
export const cloneCheckpoint = (cp: SessionCheckpoint): SessionCheckpoint => ({ ...cp, fold: cloneState(cp.fold) })

/** The JSON text of a checkpoint. @since 0.1.0 */
export const encodeCheckpoint = (cp: SessionCheckpoint): string => boundedJson(cp)

/**
 * Parses and validates a stored checkpoint.
 *
 * **Fails with** `ProtocolError` kind `json` (not JSON) or `event` (the path and expected type of the first
 * mismatch); it never echoes the stored value.
 * @since 0.1.0
 */
export const decodeCheckpoint = (text: string): E.Either<ProtocolError, SessionCheckpoint> =>
  decodeJsonWith(SessionCheckpointCodec, text, 'a session checkpoint')

/** What applying one message did. @since 0.1.0 */
export interface Applied {
  /** The run the message closed (a root `idle`), with its 1-based number in the session; else `null`. */
  readonly closed: { readonly n: number; readonly result: RunResult } | null
  /** The message's `ProtocolError` when it was malformed (recorded as a diagnostic, the event skipped). */
  readonly error: ProtocolError | null
}

const decoder = new TextDecoder('utf-8', { fatal: false })

/**
 * Applies the message at stream sequence `seq` (its payload: one native event as JSON, SPEC §4) to `cp` **in
 * place**, and moves `cp.lastSeq` to `seq` (and `cp.delivery` to `delivery`). The caller checks
 * `seq > cp.lastSeq` and applies a session's messages in stream order. Never throws.
 * @since 0.1.0
 */
export const applyMessage = (
  cp: SessionCheckpoint,
  seq: number,
  payload: Uint8Array | string,
  delivery: SessionCheckpoint['delivery'] = null,
): Applied => {
  const text = typeof payload === 'string' ? payload : decoder.decode(payload)
  let error: ProtocolError | undefined
  let value: unknown
  let parsed = true
  try {
    value = JSON.parse(text)
  } catch {
    parsed = false
    error = new ProtocolError({ kind: 'json', index: cp.fold.events, path: '', expected: 'JSON' })
  }
  if (parsed) error = new NativeFolder({}, cp.fold).push(value)
  cp.lastSeq = seq
  cp.delivery = delivery
  cp.applied++
  if (error !== undefined) {
    cp.protocolErrors++
    cp.fold.closed = null
    const draft = cp.fold.run.draft
    draft.hasContent = true
    addDiagnostic(draft, undefined, `protocol error in the event at stream sequence ${seq}, skipped: ${error.message}`)
    return { closed: null, error }
  }
  const closed = cp.fold.closed
  return { closed: closed === null ? null : { n: cp.fold.runs, result: closed }, error: null }
}
