/**
 * `scanRun()`: a `RunResult` snapshot after every event, for progress displays.
 * @module
 */
import { defer, map, type Observable, type OperatorFunction } from 'rxjs'
import { currentResult, NativeFolder } from '../core/fold.js'
import type { RunResult } from '../core/RunResult.js'
import type { RunOperatorOptions } from './options.js'

/**
 * Folds native events and emits, after each one, the result of the input so far (SPEC §6).
 *
 * 1. On subscribe, create a fresh fold state (state lives per subscription).
 * 2. For each value, decode and apply it; emit `foldEvents(events so far)` — the current run, `unfinished`
 *    until its terminal event (or the run the last root idle closed, when nothing followed it).
 * 3. On a `ProtocolError`, send it as the error notification and unsubscribe from the source.
 *
 * The i-th emission equals `foldEvents` of the first i events. Source errors pass through.
 * **Fails with** `ProtocolError` kind `event` or `turn-end`.
 * @since 0.1.0
 */
export function scanRun(options: Pick<RunOperatorOptions, 'messageId'> = {}): OperatorFunction<unknown, RunResult> {
  return (source: Observable<unknown>) =>
    defer(() => {
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
