/**
 * Resuming a fold from a checkpoint (SPEC §4, "Checkpoints"): the state is checked against its codec first, so a
 * corrupted or hand-made checkpoint is a `ProtocolError`, never an exception deep inside the fold.
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { cloneState, type FoldState, NativeFolder, pushAll } from './fold.js'
import { FoldStateCodec } from './FoldStateCodec.js'
import { firstError } from './firstError.js'
import { ioTsPath, ProtocolError } from './ProtocolError.js'
import type { RunResult } from './RunResult.js'

/**
 * Continues a fold from a checkpointed state (see {@link FoldStateCodec}) over more events. The state passed
 * in is not changed. Returns the new state and the runs closed on the way.
 *
 * **Fails with** the first `ProtocolError` among `events` (its index counts from the events already folded), as
 * {@link foldEvents}; and with a `ProtocolError` of kind `event` at index 0 (the path of the first bad field) when
 * `state` is not a fold state `FoldStateCodec` accepts. Never throws.
 * @since 0.1.0
 * @category Fold
 */
export const resumeFold = (
  state: FoldState,
  events: Iterable<unknown>,
): E.Either<ProtocolError, { readonly state: FoldState; readonly closed: ReadonlyArray<RunResult> }> => {
  // a state that is not one (a corrupted or hand-made checkpoint) would throw deep inside the fold
  const bad = invalidState(state)
  if (bad !== undefined) return E.left(bad)
  let start: FoldState
  try {
    start = cloneState(state)
  } catch {
    return E.left(new ProtocolError({ kind: 'event', index: 0, path: '', expected: 'a fold state (decode a checkpoint with decodeFoldState)' }))
  }
  const f = new NativeFolder({}, start)
  const closed: Array<RunResult> = []
  const err = pushAll(events, f, (r) => closed.push(r))
  if (err !== undefined) return E.left(err)
  return E.right({ state: f.state, closed })
}

/** `undefined` for a value `FoldStateCodec` accepts, else the `ProtocolError` (kind `event`, index 0) naming the first bad path. */
const invalidState = (state: unknown): ProtocolError | undefined => {
  let ok: boolean
  try {
    ok = FoldStateCodec.is(state)
  } catch {
    ok = false
  }
  if (ok) return undefined
  let path = ''
  try {
    const first = firstError(FoldStateCodec, state)
    if (first !== undefined) path = ioTsPath(first.context)
  } catch {
    // a state whose fields cannot even be read: no path to name
  }
  return new ProtocolError({ kind: 'event', index: 0, path, expected: 'a fold state (decode a checkpoint with decodeFoldState)' })
}
