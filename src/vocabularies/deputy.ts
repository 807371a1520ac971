/**
 * deputy (R, seeds 000 and 001): the flat `stop_reason` of an `AgentResult`, the last response's finish
 * reason and who stopped the run, as `{ stopReason, finishReason?, by? }`, to and from `RunEnding`.
 *
 * Reading follows seed 000's table "Which ending a stop reason gives": `complete` is answered (cut off when
 * the finish reason is one of ellmer's three), the eight limit reasons are limits, the error reasons are
 * failures, and any other string is a stop. `by` credits the stopper whatever the reason says, so an object
 * that names `by` is always a stop (or, with `by: 'approval'`, a suspension).
 *
 * @module
 */
import type * as E from 'fp-ts/lib/Either.js'
import type { ProtocolError } from '../core/ProtocolError.js'
import type { RunEnding, Stopped } from '../core/RunEnding.js'
import { Malformed, decodeWith, invert, isRecord, optString, reqString } from './shared.js'

/**
 * deputy's stop, as read and written: `stopReason` is the flat `stop_reason` (`complete`, a limit reason,
 * an error reason or a stopper's reason), `finishReason` the last response's finish reason (ellmer's names:
 * `max_tokens`, `context_window`, `content_filter`), `by` who stopped the run (`caller`, `hook`,
 * `permission`, `approval`, `parent`, `delegation`, `abandoned`). `null` in `finishReason` or `by` reads as
 * absent (R's `NULL`).
 * @since 0.1.0
 * @category Vocabularies
 */
export interface DeputyStop {
  readonly stopReason: string
  readonly finishReason?: string
  readonly by?: string
}

/** ellmer's finish reasons that make a `complete` run cut off (seed 000). */
const CUT_OFF = new Set(['max_tokens', 'context_window', 'content_filter'])

/** The eight limit reasons and their `UsageLimits` field (`usage_limit_status()`); `tool_loop` has none. */
const LIMIT_FIELDS = new Map<string, string | undefined>([
  ['request_limit', 'max_requests'],
  ['tool_call_limit', 'max_tool_calls'],
  ['input_token_limit', 'max_input_tokens'],
  ['output_token_limit', 'max_output_tokens'],
  ['total_token_limit', 'max_total_tokens'],
  ['cost_limit', 'max_cost_usd'],
  ['cost_unavailable', 'max_cost_usd'],
  ['tool_loop', undefined],
])

/** Stop reasons that mean an error ended the run. */
const FAILED = new Set(['error', 'provider_error', 'file_checkpoint_error'])

/** deputy's own stop strings, written when the stopper gave no reason, and the stopper each one credits. */
const DEFAULT_STOP = new Map<string, string>([
  ['caller', 'interrupted'],
  ['hook', 'hook_requested_stop'],
  ['permission', 'permission_denied'],
  ['abandoned', 'abandoned'],
])
const STOP_BY = invert(DEFAULT_STOP)

/** The stop string deputy writes for a stopper that gave no reason: its own string, else the stopper's name. */
const defaultStop = (by: string): string => DEFAULT_STOP.get(by) ?? by

const stopped = (by: string, stopReason: string): Stopped =>
  stopReason === defaultStop(by) ? { kind: 'stopped', by } : { kind: 'stopped', by, reason: stopReason }

const read = (value: unknown): RunEnding => {
  if (!isRecord(value)) throw new Malformed('', 'object')
  const stopReason = reqString(value, 'stopReason', '')
  const finishReason = optString(value, 'finishReason', '')
  const by = optString(value, 'by', '')
  if (by !== undefined) {
    return by === 'approval' ? { kind: 'suspended', pending: [] } : stopped(by, stopReason)
  }
  if (stopReason === 'complete') {
    return finishReason !== undefined && CUT_OFF.has(finishReason) ? { kind: 'cut_off', finishReason } : { kind: 'answered' }
  }
  if (LIMIT_FIELDS.has(stopReason)) {
    const field = LIMIT_FIELDS.get(stopReason)
    if (field === undefined) return { kind: 'limit', reason: stopReason }
    return stopReason === 'cost_unavailable' ? { kind: 'limit', reason: stopReason, field, actual: null } : { kind: 'limit', reason: stopReason, field }
  }
  if (FAILED.has(stopReason)) return { kind: 'failed', reason: stopReason }
  if (stopReason === 'approval_pending') return { kind: 'suspended', pending: [] }
  const oldBy = STOP_BY.get(stopReason)
  if (oldBy !== undefined) return { kind: 'stopped', by: oldBy }
  return { kind: 'stopped', by: 'caller', reason: stopReason }
}

/**
 * Reads a deputy stop (seed 000's table).
 *
 * 1. `by` set: `approval` → `suspended` with no pending items (deputy does not list them); any other
 *    stopper → `stopped` by it, with `stopReason` kept in `reason` unless it is deputy's own string for
 *    that stopper (`interrupted` for `caller`, `hook_requested_stop`, `permission_denied`, `abandoned`;
 *    the stopper's name for `parent`, `delegation` and others). `$interrupt("request_limit")` is a stop.
 * 2. `complete` → `answered`, or `cut_off` when `finishReason` is `max_tokens`, `context_window` or
 *    `content_filter` (any other finish reason is an ordinary end).
 * 3. A limit reason → `limit` with its `UsageLimits` field (`request_limit` ↔ `max_requests`, …,
 *    `cost_unavailable` ↔ `max_cost_usd` with `actual: null`; `tool_loop` has no field).
 * 4. `error`, `provider_error`, `file_checkpoint_error` → `failed` with that reason.
 * 5. `approval_pending` → `suspended`; `interrupted`, `hook_requested_stop`, `permission_denied`,
 *    `abandoned` → `stopped` by `caller`, `hook`, `permission`, `abandoned`.
 * 6. Anything else → `stopped` by `caller`, the string kept in `reason` (seed 000's "anything else").
 *
 * **Fails with** `ProtocolError` kind `event`: not an object (empty path), `stopReason` not a string
 * (`stopReason`), `finishReason` or `by` neither a string nor absent/`null` (`finishReason`, `by`).
 * @since 0.1.0
 */
export const deputyEndingFromEither: (value: unknown) => E.Either<ProtocolError, RunEnding> = decodeWith({ kind: 'vocabulary', root: '' }, read)

/** ellmer's name for a cut-off reason: its own three as they are, `refusal` as `content_filter`, others `max_tokens`. */
const ellmerFinish = (finishReason: string): string => (CUT_OFF.has(finishReason) ? finishReason : finishReason === 'refusal' ? 'content_filter' : 'max_tokens')

/**
 * Writes a `RunEnding` as a deputy stop (the same object shape `deputyEndingFromEither` reads).
 *
 * - `answered` → `{ stopReason: 'complete' }`; `cut_off` → `{ stopReason: 'complete', finishReason }`
 *   with ellmer's name (`refusal` becomes `content_filter`, a provider string ellmer has no name for
 *   becomes `max_tokens`, so the run still reads as cut off).
 * - `limit` → `{ stopReason: reason }` (`field`, `actual` and `limit` are not in the flat string; a reason
 *   deputy does not know reads back as a stop).
 * - `stopped` → `{ stopReason: reason ?? deputy's own string for the stopper, by }` (a stop `by: 'approval'`
 *   reads back as `suspended`: seed 000's approval stop is our suspension).
 * - `suspended` → `{ stopReason: 'approval_pending', by: 'approval' }` (pending items are not carried).
 * - `blocked` → `{ stopReason: reason ?? 'permission_denied', by: 'permission' }` (deputy's policy stop).
 * - `failed` → `{ stopReason: reason }` for `error`, `provider_error`, `file_checkpoint_error`, else
 *   `{ stopReason: 'error' }`; `phase`, `error` and `raw` are not carried.
 * - `unfinished` → `{ stopReason: 'abandoned', by: 'abandoned' }` (a stream nobody read to its end).
 *
 * Never throws.
 * @since 0.1.0
 */
export const deputyEndingTo = (ending: RunEnding): DeputyStop => {
  switch (ending.kind) {
    case 'answered':
      return { stopReason: 'complete' }
    case 'cut_off':
      return { stopReason: 'complete', finishReason: ellmerFinish(ending.finishReason) }
    case 'limit':
      return { stopReason: ending.reason }
    case 'stopped':
      return { stopReason: ending.reason ?? defaultStop(ending.by), by: ending.by }
    case 'suspended':
      return { stopReason: 'approval_pending', by: 'approval' }
    case 'blocked':
      return { stopReason: ending.reason ?? 'permission_denied', by: 'permission' }
    case 'failed':
      return { stopReason: FAILED.has(ending.reason) ? ending.reason : 'error' }
    case 'unfinished':
      return { stopReason: 'abandoned', by: 'abandoned' }
  }
}
