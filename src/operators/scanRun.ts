/**
 * `scanRun()`: a `RunResult` snapshot after every event, for progress displays.
 * @module
 */
import { defer, filter, map, type Observable, type OperatorFunction } from 'rxjs'
import { currentResult, NativeFolder } from '../core/fold.js'
import type { RunResult } from '../core/RunResult.js'
import { recordFolderOf, type RunOperatorOptions } from './options.js'

/**
 * Folds native events (or, with `{ format }`, any format's records) and emits, after each one, the result of the
 * input so far (SPEC §6).
 *
 * 1. On subscribe, create a fresh fold state (state lives per subscription).
 * 2. For each value, decode (or translate) and apply it; emit the current run — `unfinished` until its terminal
 *    event (or the run the last root idle closed, when nothing followed it). With `format: 'auto'`, the values
 *    held while the format is detected give no snapshot (the first comes once the format is known).
 * 3. On a `ProtocolError` (or a `FormatError`), send it as the error notification and unsubscribe from the source.
 *
 * For native events, the i-th emission equals `foldEvents` of the first i events. Source errors pass through.
 * **Fails with** `ProtocolError` kind `event` or `turn-end`; `FormatError`.
 * @since 0.1.0
 * @category Operators
 */
export function scanRun(options: Pick<RunOperatorOptions, 'messageId' | 'format'> = {}): OperatorFunction<unknown, RunResult> {
  return (source: Observable<unknown>) =>
    defer(() => {
      const records = recordFolderOf(options, true)
      if (records !== undefined) {
        return source.pipe(
          map((value) => {
            const err = records.push(value)
            if (err !== undefined) throw err
            records.takeResults()
            const p = records.current
            return p === undefined ? null : currentResult(p.foldState)
          }),
          filter((r): r is RunResult => r !== null),
        )
      }
      const folder = new NativeFolder(options.messageId !== undefined ? { messageId: options.messageId } : {})
      return source.pipe(
        map((input) => {
          const err = folder.push(input)
          if (err !== undefined) throw err
          return currentResult(folder.state)
        }),
      )
    })
}
