/**
 * Options shared by the run operators.
 * @module
 */
import { catchError, EMPTY, type Observable } from 'rxjs'
import { finishRun, type RunResult } from '../core/RunResult.js'
import { currentResult, type FoldState } from '../core/fold.js'

/** Options of `scanRun()`, `reduceRun()` and `runResults()`. @since 0.1.0 */
export interface RunOperatorOptions {
  /** Seed 002's owned interval: open at the receipt that inserted this message id, close at the root idle. */
  readonly messageId?: string
  /**
   * What a source error does: `'error'` (default) passes it on untouched; `'fail'` ends the open run as
   * `failed { reason: 'error', phase: 'stream' }` with the error's message, emits it, and completes.
   * A `ProtocolError` from the input itself is always an error notification.
   */
  readonly sourceError?: 'error' | 'fail'
}

const messageOf = (e: unknown): string => {
  if (e instanceof Error) return e.message
  return typeof e === 'string' ? e : 'the source stream failed'
}

/** The open run, ended as `failed` in phase `stream` by a source error. @internal */
export const failedByStream = (s: FoldState, error: unknown): RunResult => {
  const r = s.run
  const name = error instanceof Error ? error.name : undefined
  return finishRun(r.draft, {
    format: 'native',
    sessionId: s.root,
    ending: {
      kind: 'failed',
      reason: 'error',
      phase: 'stream',
      error: { message: messageOf(error), ...(name !== undefined ? { name } : {}) },
    },
    finishReason: r.finishReason,
    response: null,
    file: s.file,
  })
}

/**
 * The source as the run operators read it: with `sourceError: 'fail'`, a source error completes the input
 * and is kept in `streamError.error` (as `{ value }`) for the operator to end the open run with; otherwise the
 * source unchanged, so its error passes on.
 * @internal
 */
export const catchSourceError = (
  source: Observable<unknown>,
  options: RunOperatorOptions,
): { readonly input: Observable<unknown>; readonly streamError: { error: { readonly value: unknown } | undefined } } => {
  const streamError: { error: { readonly value: unknown } | undefined } = { error: undefined }
  if (options.sourceError !== 'fail') return { input: source, streamError }
  const input = source.pipe(
    catchError((value: unknown) => {
      streamError.error = { value }
      return EMPTY
    }),
  )
  return { input, streamError }
}

/** @internal */
export { currentResult }
