/**
 * `reduceRun()`: one `RunResult` when the source completes.
 * @module
 */
import { defer, map, reduce, type Observable, type OperatorFunction } from 'rxjs'
import { currentResult, hasOpenRun, initialState, NativeFolder } from '../core/fold.js'
import type { RunResult } from '../core/RunResult.js'
import type { RecordFolder } from '../formats/records.js'
import { catchSourceError, failedByStream, recordFolderOf, type RunOperatorOptions } from './options.js'

/**
 * Folds native events (or, with `{ format }`, any format's records) and emits the result of the last run when
 * the source completes (SPEC §6), like `foldEvents` over the same events (or the last run of a replay of the
 * same records).
 *
 * 1. On subscribe, create a fresh fold state (per subscription).
 * 2. For each value, decode (or translate) and apply it; emit nothing.
 * 3. On a `ProtocolError` (or a `FormatError`), send it as the error notification and unsubscribe from the source.
 * 4. On completion, emit the last run's `RunResult` (`unfinished` when it had no terminal event; an empty
 *    source gives one `unfinished` run) and complete.
 *
 * A source error is passed on, or with `sourceError: 'fail'` becomes `failed { phase: 'stream' }`.
 * **Fails with** `ProtocolError` kind `event` or `turn-end`; `FormatError`.
 * @since 0.1.0
 * @category Operators
 */
export function reduceRun(options: RunOperatorOptions = {}): OperatorFunction<unknown, RunResult> {
  return (source: Observable<unknown>) =>
    defer(() => {
      const records = recordFolderOf(options, false)
      if (records !== undefined) return formatLast(source, records, options)
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

/** `reduceRun` over a format's records: the last run of the replay of those records. */
const formatLast = (source: Observable<unknown>, records: RecordFolder, options: RunOperatorOptions): Observable<RunResult> => {
  const { input, streamError } = catchSourceError(source, options)
  let last: RunResult | undefined
  return input.pipe(
    reduce((_: null, value: unknown) => {
      const err = records.push(value)
      if (err !== undefined) throw err
      last = records.takeResults().at(-1) ?? last
      return null
    }, null),
    map(() => {
      if (streamError.error !== undefined) {
        // a run whose ending record arrived before the failure stands as it ended; only an open run fails
        const err = records.failed()
        if (err !== undefined) throw err
        last = records.takeResults().at(-1) ?? last
        const p = records.current
        if (p !== undefined && (hasOpenRun(p.foldState) || last === undefined)) return failedByStream(p.foldState, streamError.error.value)
        if (last !== undefined) return last
        // the source failed before its format could be told: the one result is that failure
        if (p === undefined) return failedByStream(initialState(), streamError.error.value)
      }
      const err = records.end()
      if (err !== undefined) throw err
      return records.takeResults().at(-1) ?? (last as RunResult)
    }),
  )
}
