/**
 * `reduceRun()`: one `RunResult` when the source completes.
 * @module
 */
import { defer, map, reduce, type Observable, type OperatorFunction } from 'rxjs'
import { currentResult, hasOpenRun, NativeFolder } from '../core/fold.js'
import type { RunResult } from '../core/RunResult.js'
import { catchSourceError, failedByStream, type RunOperatorOptions } from './options.js'

/**
 * Folds native events and emits the result of the last run when the source completes (SPEC §6), like
 * `foldEvents` over the same events.
 *
 * 1. On subscribe, create a fresh fold state (per subscription).
 * 2. For each value, decode and apply it; emit nothing.
 * 3. On a `ProtocolError`, send it as the error notification and unsubscribe from the source.
 * 4. On completion, emit the last run's `RunResult` (`unfinished` when it had no terminal event; an empty
 *    source gives one `unfinished` run) and complete.
 *
 * A source error is passed on, or with `sourceError: 'fail'` becomes `failed { phase: 'stream' }`.
 * **Fails with** `ProtocolError` kind `event` or `turn-end`.
 * @since 0.1.0
 */
export function reduceRun(options: RunOperatorOptions = {}): OperatorFunction<unknown, RunResult> {
  return (source: Observable<unknown>) =>
    defer(() => {
      const folder = new NativeFolder(options.messageId !== undefined ? { messageId: options.messageId } : {})
      const { input, streamError } = catchSourceError(source, options)
      // one operator per event: the accumulator applies it (a throw inside `reduce` becomes the error
      // notification and unsubscribes from the source); on completion the last run is emitted
      return input.pipe(
        reduce((_: null, value: unknown) => {
          const err = folder.push(value)
          if (err !== undefined) throw err
          return null
        }, null),
        map(() =>
          streamError.error !== undefined && (hasOpenRun(folder.state) || folder.state.lastClosed === null)
            ? failedByStream(folder.state, streamError.error.value)
            : currentResult(folder.state),
        ),
      )
    })
}
