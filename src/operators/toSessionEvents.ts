/**
 * `toSessionEvents(format)`: any format's records → native `SessionEvent`s, as an RxJS operator.
 * @module
 */
import { concat, defer, from, mergeMap, type Observable, type OperatorFunction } from 'rxjs'
import type { SessionEvent } from '../core/events.js'
import type { FormatName } from '../core/RunResult.js'
import { RecordFolder } from '../formats/records.js'

/**
 * Translates a format's records into the native events they state (SPEC §4 protocol 2, §6): the values a live
 * SDK stream yields (objects), or lines of its log (strings).
 *
 * 1. On subscribe, create a fresh translator state for `format` (per subscription); with `auto`, hold the first
 *    values until a format is recognised (at most 20).
 * 2. For each value, emit the events it translates to (none, one or several), in order.
 * 3. On completion, emit what the end of input implies (a run boundary the format was waiting for), then
 *    complete.
 * 4. On a `ProtocolError` (native records only) or a `FormatError` (unknown name, undetectable records), send
 *    it as the error notification and unsubscribe from the source.
 *
 * Source errors pass through. Piping the output into `runResults()` gives the same runs as
 * `runResults({ format })`.
 * **Fails with** `ProtocolError`, `FormatError`.
 * @example from(messages).pipe(toSessionEvents('claude-code')).subscribe((e) => console.log(e.type))
 * @since 0.2.0
 * @category Operators
 */
export function toSessionEvents(format: FormatName | 'auto'): OperatorFunction<unknown, SessionEvent> {
  return (source: Observable<unknown>) =>
    defer(() => {
      const out: Array<SessionEvent> = []
      const folder = new RecordFolder({ format, live: true, onEvent: (ev) => out.push(ev) })
      const drain = (): Array<SessionEvent> => out.splice(0, out.length)
      return concat(
        source.pipe(
          mergeMap((value) => {
            const err = folder.push(value)
            if (err !== undefined) throw err
            return from(drain())
          }),
        ),
        defer(() => {
          const err = folder.end()
          if (err !== undefined) throw err
          return from(drain())
        }),
      )
    })
}
