/**
 * `decodeEvents()`: raw values → native `SessionEvent`s, as an RxJS operator.
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { map, type OperatorFunction } from 'rxjs'
import { decodeEvent } from '../core/decodeEvent.js'
import type { SessionEvent } from '../core/events.js'

/**
 * Decodes each value with {@link decodeEvent} (SPEC §4, §6).
 *
 * 1. For each value, decode it with its 0-based index (counted per subscription, valid or not).
 * 2. On success, emit the `SessionEvent` (unknown types and malformed non-terminal events arrive as
 *    `run-outcome/ignored` events, so nothing is lost).
 * 3. On a `ProtocolError`, send it as the error notification and unsubscribe from the source.
 *
 * Source errors and completion pass through unchanged.
 * **Fails with** `ProtocolError` kind `event` or `turn-end`.
 * @since 0.1.0
 * @category Operators
 */
export function decodeEvents(): OperatorFunction<unknown, SessionEvent> {
  return map((input: unknown, index: number) => {
    const decoded = decodeEvent(input, index)
    if (E.isLeft(decoded)) throw decoded.left
    return decoded.right
  })
}
