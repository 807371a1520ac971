/**
 * `runResults()`: one `RunResult` per run of a live stream, emitted as each run ends.
 * @module
 */
import { concat, defer, EMPTY, filter, map, of, takeWhile, type Observable, type OperatorFunction } from 'rxjs'
import { currentResult, hasOpenRun, NativeFolder } from '../core/fold.js'
import type { RunResult } from '../core/RunResult.js'
import { catchSourceError, failedByStream, type RunOperatorOptions } from './options.js'

/**
 * Emits each run of a native event stream as soon as it ends (SPEC §4 owned interval, §6).
 *
 * 1. On subscribe, create a fresh fold state (per subscription).
 * 2. For each value, decode and apply it. When a root `idle` closes a run, emit its `RunResult` at once
 *    (a stream that never completes still gets each result on time).
 * 3. With `messageId`, events before the `agent/inbox/spliced` that inserted it are dropped; the run closes at
 *    the next root idle, is emitted, and the operator completes (unsubscribing from the source).
 * 4. On completion, emit the open run if it has content (`unfinished` without a terminal event), then complete.
 * 5. On a `ProtocolError`, send it as the error notification and unsubscribe from the source.
 *
 * A source error is passed on, or with `sourceError: 'fail'` ends the open run as `failed { phase: 'stream' }`.
 * **Fails with** `ProtocolError` kind `event` or `turn-end`.
 * @since 0.1.0
 */
export function runResults(options: RunOperatorOptions = {}): OperatorFunction<unknown, RunResult> {
  return (source: Observable<unknown>) =>
    defer(() => {
      const folder = new NativeFolder(options.messageId !== undefined ? { messageId: options.messageId } : {})
      const { input, streamError } = catchSourceError(source, options)
      return concat(
        input.pipe(
          map((value) => {
            const err = folder.push(value)
            if (err !== undefined) throw err
            return folder.state.closed
          }),
          filter((r): r is RunResult => r !== null),
          takeWhile(() => !folder.state.done, true),
        ),
        defer(() => {
          if (folder.state.done) return EMPTY
          // a source error ends the open run; between runs there is nothing to end
          if (streamError.error !== undefined) return hasOpenRun(folder.state) ? of(failedByStream(folder.state, streamError.error.value)) : EMPTY
          return hasOpenRun(folder.state) ? of(currentResult(folder.state)) : EMPTY
        }),
      )
    })
}
