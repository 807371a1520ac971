/**
 * Agent Client Protocol (ACP): the `stopReason` of a `session/prompt` response (`end_turn`, `max_tokens`,
 * `max_turn_requests`, `refusal`, `cancelled`), to and from `RunEnding`, as SPEC §5's table says.
 *
 * ACP reports errors as JSON-RPC error responses and asks for permission inside the turn, so `failed`,
 * `suspended` and `unfinished` have no stop reason (`null`). SPEC §5 deliberately differs from the harness's
 * own ACP codec (seed 002, `turnEndToStopReason`), which writes aborted and error turns as `end_turn`.
 *
 * @module
 */
import type * as E from 'fp-ts/lib/Either.js'
import type { ProtocolError } from '../core/ProtocolError.js'
import type { RunEnding } from '../core/RunEnding.js'
import { Malformed, decodeWith, unrecognized } from './shared.js'

/** ACP's `StopReason`. @since 0.1.0 @category Vocabularies */
export type AcpStopReason = 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled'

/** Every ACP stop reason, in the schema's order. @since 0.1.0 @category Vocabularies */
export const acpStopReasons = ['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled'] as const satisfies ReadonlyArray<AcpStopReason>

const read = (value: unknown): RunEnding => {
  if (typeof value !== 'string') throw new Malformed('stopReason', 'string')
  switch (value) {
    case 'end_turn':
      return { kind: 'answered' }
    case 'max_tokens':
      return { kind: 'cut_off', finishReason: 'max_tokens' }
    case 'max_turn_requests':
      return { kind: 'limit', reason: 'max_turn_requests' }
    case 'refusal':
      return { kind: 'cut_off', finishReason: 'refusal' }
    case 'cancelled':
      return { kind: 'stopped', by: 'caller' }
    default:
      return unrecognized(value)
  }
}

/**
 * Reads an ACP `stopReason` (SPEC §5).
 *
 * `end_turn` → `answered`; `max_tokens` → `cut_off` `max_tokens`; `refusal` → `cut_off` `refusal`;
 * `max_turn_requests` → `limit` `max_turn_requests`; `cancelled` → `stopped` by `caller` (the client's
 * `session/cancel`); any other string → `failed` `unrecognized` with the string in `raw`.
 *
 * **Fails with** `ProtocolError` kind `vocabulary` at path `stopReason` when the value is not a string
 * (including `null`: a prompt that ended in a JSON-RPC error has no stop reason to read).
 * @since 0.1.0
 */
export const acpEndingFromEither: (value: unknown) => E.Either<ProtocolError, RunEnding> = decodeWith({ kind: 'vocabulary', root: 'stopReason' }, read)

/**
 * Writes a `RunEnding` as an ACP `stopReason` (SPEC §5), or `null` when ACP has none.
 *
 * `answered` → `end_turn`; `cut_off` `max_tokens` or `context_window` → `max_tokens`, `refusal` or
 * `content_filter` → `refusal` (another provider string → `max_tokens`); `limit` → `max_turn_requests`;
 * `stopped` by `caller` or `abandoned` → `cancelled`, by anyone else → `end_turn`; `blocked` → `end_turn`;
 * `failed`, `suspended`, `unfinished` → `null` (ACP answers errors with a JSON-RPC error and waits for
 * permission inside the turn). Never throws.
 * @since 0.1.0
 */
export const acpEndingTo = (ending: RunEnding): AcpStopReason | null => {
  switch (ending.kind) {
    case 'answered':
      return 'end_turn'
    case 'cut_off':
      return ending.finishReason === 'refusal' || ending.finishReason === 'content_filter' ? 'refusal' : 'max_tokens'
    case 'limit':
      return 'max_turn_requests'
    case 'stopped':
      return ending.by === 'caller' || ending.by === 'abandoned' ? 'cancelled' : 'end_turn'
    case 'blocked':
      return 'end_turn'
    case 'failed':
    case 'suspended':
    case 'unfinished':
      return null
  }
}
