/**
 * Options shared by the run operators.
 * @module
 */
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

/** @internal */
export { currentResult }
