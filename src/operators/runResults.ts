/**
 * `runResults()`: one `RunResult` per run of a live stream, emitted as each run ends.
 * @module
 */
import { concat, defer, EMPTY, filter, from, map, mergeMap, of, takeWhile, type Observable, type OperatorFunction } from 'rxjs'
import { currentResult, hasOpenRun, NativeFolder } from '../core/fold.js'
import type { RunResult } from '../core/RunResult.js'
import type { RecordFolder } from '../formats/records.js'
import { catchSourceError, failedByStream, recordFolderOf, type RunOperatorOptions } from './options.js'

/**
 * Emits each run of a live stream as soon as it ends (SPEC §4 owned interval, §6): native events by default,
 * or any format's records with `{ format }` (the objects an SDK stream yields, or log lines as strings).
 *
 * 1. On subscribe, create a fresh state (per subscription): the fold, and with `format` that format's translator.
 * 2. For each value, decode (or translate) and apply it. When a run ends (a root `idle`; a format's terminal
 *    record), emit its `RunResult` at once (a stream that never completes still gets each result on time).
 * 3. With `messageId`, events before the `agent/inbox/spliced` that inserted it are dropped; the run closes at
 *    the next root idle, is emitted, and the operator completes (unsubscribing from the source).
 * 4. On completion, emit the open run if it has content (`unfinished` without a terminal event), then complete;
 *    with `format`, as a replay of the same records would (records with no run at all give one `unfinished` run).
 * 5. On a `ProtocolError` (or a `FormatError` for records whose format cannot be told), send it as the error
 *    notification and unsubscribe from the source.
 *
 * A source error is passed on, or with `sourceError: 'fail'` ends the open run as `failed { phase: 'stream' }`.
 * **Fails with** `ProtocolError` kind `event` or `turn-end`; `FormatError`.
 * @example from(query({ prompt })).pipe(runResults({ format: 'claude-code' })).subscribe((r) => console.log(r.ending))
 * @since 0.1.0
 * @category Operators
 */
export function runResults(options: RunOperatorOptions = {}): OperatorFunction<unknown, RunResult> {
  return (source: Observable<unknown>) =>
    defer(() => {
      const records = recordFolderOf(options, true)
      if (records !== undefined) return formatResults(source, records, options)
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

/** `runResults` over a format's records: the translator's runs as they end, then the rest at completion. */
const formatResults = (source: Observable<unknown>, records: RecordFolder, options: RunOperatorOptions): Observable<RunResult> => {
  const { input, streamError } = catchSourceError(source, options)
  return concat(
    input.pipe(
      mergeMap((value) => {
        const err = records.push(value)
        if (err !== undefined) throw err
        return from(records.takeResults())
      }),
      takeWhile(() => records.current?.foldState.done !== true, true),
    ),
    defer(() => {
      if (records.current?.foldState.done === true) return EMPTY
      if (streamError.error !== undefined) {
        // a run whose ending record arrived before the failure is handed out as it ended; only an open run fails
        const err = records.failed()
        if (err !== undefined) throw err
        const ended = records.takeResults()
        const p = records.current
        if (p === undefined || !hasOpenRun(p.foldState)) return from(ended)
        return from([...ended, failedByStream(p.foldState, streamError.error.value)])
      }
      const err = records.end()
      if (err !== undefined) throw err
      // as a replay of the same records: an input with no run at all is one unfinished run (SPEC §1)
      return from(records.takeResults())
    }),
  )
}
