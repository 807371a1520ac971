/**
 * The harness of seed 002 (deepseek-harness, "dsh"): a `turn/end` event's `data.reason`, the
 * `TurnEndReason` object `{ kind, … }` of SPEC §4, to and from `RunEnding`.
 *
 * The table is SPEC §4's (the native protocol is modelled on this harness): `completed` is answered, the
 * four provider cut-offs are `cut_off`, `aborted` is a stop credited by its sub-kind, `interrupted` (written
 * by crash repair) is a failure, and an unknown kind is `failed` `unrecognized` with the kind kept. Reading
 * uses the native protocol's own check and table (`core/events.ts`, `core/turnEnd.ts`), so a reason gives
 * the same ending, and the same `ProtocolError`, here as in a native log.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { validateTurnEndReason } from '../core/decodeEvent.js'
import { ProtocolError } from '../core/ProtocolError.js'
import type { EndingError, PendingItem, RunEnding } from '../core/RunEnding.js'
import { endingFromTurnEndReason } from '../core/turnEnd.js'
import { copyError, isRecord } from './shared.js'

/**
 * `aborted`'s `reason`: who cancelled the turn (`user`, `parent`, `hook`, `disposed`, `legacy` for imported
 * records, or a plugin's own word) and the text a hook gave.
 * @since 0.1.0
 * @category Vocabularies
 */
export interface DshAbortReason {
  readonly kind: 'user' | 'parent' | 'hook' | 'disposed' | 'legacy' | (string & { readonly __dshAbort?: never })
  readonly reason?: string
}

/** One item a `suspended` turn waits on (the shape of `PendingItem`). @since 0.1.0 @category Vocabularies */
export interface DshPendingItem {
  readonly id: string
  readonly kind: string
  readonly toolName?: string
  readonly arguments?: unknown
  readonly reason?: string
}

/** A `TurnEndReason` kind this library does not know, kept as written (plugins may add kinds). @since 0.1.0 @category Vocabularies */
export interface DshOtherReason {
  readonly kind: string & { readonly __dshOther?: never }
}

/**
 * A `turn/end` reason (SPEC §4): `completed`, `max-tokens`, `refusal`, `context-window`, `content-filter`,
 * `aborted { reason? }`, `blocked { guardrail?, phase?, message? }`, `limit { reason, field?, actual?, limit? }`,
 * `suspended { pending }`, `error { error: { message, code?, name? } }`, `interrupted`, or another kind.
 * @since 0.1.0
 * @category Vocabularies
 */
export type DshTurnEndReason =
  | { readonly kind: 'completed' }
  | { readonly kind: 'max-tokens' }
  | { readonly kind: 'refusal' }
  | { readonly kind: 'context-window' }
  | { readonly kind: 'content-filter' }
  | { readonly kind: 'aborted'; readonly reason?: DshAbortReason }
  | {
      readonly kind: 'blocked'
      readonly guardrail?: string
      readonly phase?: 'input' | 'output'
      readonly message?: string
    }
  | {
      readonly kind: 'limit'
      readonly reason: string
      readonly field?: string
      readonly actual?: number | null
      readonly limit?: number
    }
  | { readonly kind: 'suspended'; readonly pending: ReadonlyArray<DshPendingItem> }
  | { readonly kind: 'error'; readonly error: EndingError }
  | { readonly kind: 'interrupted' }
  | DshOtherReason

/** Provider cut-off finish reasons and the kind the harness writes for each. */
const CUT_OFF_KIND = new Map<string, string>([
  ['max_tokens', 'max-tokens'],
  ['refusal', 'refusal'],
  ['context_window', 'context-window'],
  ['content_filter', 'content-filter'],
])

/** Stoppers and the `aborted` sub-kind the harness writes for each. */
const BY_ABORT = new Map<string, string>([
  ['caller', 'user'],
  ['parent', 'parent'],
  ['hook', 'hook'],
  ['abandoned', 'disposed'],
])

/** Every kind the native table reads, so that an unknown kind written back cannot be taken for one of them. */
const KNOWN_KINDS = new Set([
  'completed',
  ...CUT_OFF_KIND.values(),
  'aborted',
  'blocked',
  'limit',
  'suspended',
  'error',
  'interrupted',
  // protocol 2's kinds (SPEC §4), which the native table reads too
  'cut-off',
  'failed',
  'unfinished',
])

/** The native protocol's `turn/end` reason check (SPEC §4), on a copy of the value's own fields. */
const decode = (value: unknown): E.Either<ProtocolError, RunEnding> => {
  // own enumerable fields only: an inherited `kind` is not the reason's kind
  const reason = isRecord(value) ? (Object.fromEntries(Object.entries(value)) as Record<string, unknown>) : value
  const bad = validateTurnEndReason(reason, 0)
  return bad !== undefined ? E.left(bad) : E.right(endingFromTurnEndReason(reason as Record<string, unknown>))
}

/**
 * Reads a `turn/end` reason (SPEC §4's table; seed 002), with the native protocol's own rules, so that it
 * gives the ending the native fold gives for a `turn/end` carrying this reason.
 *
 * `completed` → `answered`; `max-tokens`, `refusal`, `context-window`, `content-filter` → `cut_off`
 * `max_tokens`, `refusal`, `context_window`, `content_filter`; `aborted` → `stopped` by `caller` (`user`,
 * `legacy`, a sub-kind the table does not name, or no `reason`), `parent`, `hook`, `abandoned` (`disposed`),
 * with `reason.reason` kept; `blocked` → `blocked` (`message` becomes `reason`; a `phase` other than `input`
 * or `output` is dropped); `limit` → `limit` as given (`actual: null` is an unknown figure); `suspended` →
 * `suspended` with its items as given; `error` → `failed` `error` with `error`; `interrupted` → `failed`
 * `interrupted`; any other string kind → `failed` `unrecognized` with the kind in `raw`.
 *
 * **Fails with** `ProtocolError` kind `turn-end` (event type `turn/end`, index 0, the io-ts errors attached),
 * with paths as inside the event's `data`: not an object (`reason`), `kind` not a string (`reason.kind`), or a
 * known kind whose fields have the wrong type or are missing (`reason.reason.kind`, `reason.pending.0.id`,
 * `reason.error`, `reason.error.message`, `reason.actual`, …). As in the native protocol, `null` is not an
 * absent field (only `limit.actual` may be `null`). Never throws.
 * @since 0.1.0
 */
export const dshEndingFromEither = (value: unknown): E.Either<ProtocolError, RunEnding> => {
  try {
    return decode(value)
  } catch {
    // a getter or proxy that throws while its fields are read
    return E.left(new ProtocolError({ kind: 'turn-end', index: 0, path: 'reason', expected: 'a readable value', eventType: 'turn/end' }))
  }
}

const writePending = (p: PendingItem): DshPendingItem => ({
  id: p.id,
  kind: p.kind,
  ...(p.toolName !== undefined ? { toolName: p.toolName } : {}),
  ...(p.arguments !== undefined ? { arguments: p.arguments } : {}),
  ...(p.reason !== undefined ? { reason: p.reason } : {}),
})

/**
 * Writes a `RunEnding` as a `turn/end` reason, or `null` for `unfinished` (no `turn/end`: the SDK's
 * `finish_reason` is `None`).
 *
 * - `answered` → `completed`; `cut_off` → `max-tokens`, `refusal`, `context-window`, `content-filter`
 *   (a provider string the harness has no kind for becomes `max-tokens`).
 * - `stopped` → `aborted` with sub-kind `user` (caller), `parent`, `hook`, `disposed` (abandoned), or the
 *   stopper's own name (`permission` and `delegation`, which the native table reads back as those stoppers
 *   since protocol 2; any other name is read as the caller's), and `reason` kept.
 * - `limit`, `suspended`, `blocked` (`reason` as `message`) carry every field.
 * - `failed` → `interrupted` for `interrupted`; the raw kind for `unrecognized` with a string `raw` that is
 *   not a known kind; otherwise `error` with `error` (the `error` object is required: without one, the
 *   failure's `reason` is its message; `phase` and `raw` are not carried).
 *
 * Never throws.
 * @since 0.1.0
 */
export const dshEndingTo = (ending: RunEnding): DshTurnEndReason | null => {
  switch (ending.kind) {
    case 'answered':
      return { kind: 'completed' }
    case 'cut_off':
      return { kind: (CUT_OFF_KIND.get(ending.finishReason) ?? 'max-tokens') as 'max-tokens' }
    case 'limit':
      return {
        kind: 'limit',
        reason: ending.reason,
        ...(ending.field !== undefined ? { field: ending.field } : {}),
        ...(ending.actual !== undefined ? { actual: ending.actual } : {}),
        ...(ending.limit !== undefined ? { limit: ending.limit } : {}),
      }
    case 'stopped':
      return {
        kind: 'aborted',
        reason: {
          kind: BY_ABORT.get(ending.by) ?? ending.by,
          ...(ending.reason !== undefined ? { reason: ending.reason } : {}),
        },
      }
    case 'suspended':
      return { kind: 'suspended', pending: ending.pending.map(writePending) }
    case 'blocked':
      return {
        kind: 'blocked',
        ...(ending.guardrail !== undefined ? { guardrail: ending.guardrail } : {}),
        ...(ending.phase !== undefined ? { phase: ending.phase } : {}),
        ...(ending.reason !== undefined ? { message: ending.reason } : {}),
      }
    case 'failed':
      if (ending.reason === 'interrupted') return { kind: 'interrupted' }
      if (ending.reason === 'unrecognized' && typeof ending.raw === 'string' && !KNOWN_KINDS.has(ending.raw)) {
        return { kind: ending.raw }
      }
      return { kind: 'error', error: ending.error !== undefined ? copyError(ending.error) : { message: ending.reason } }
    case 'unfinished':
      return null
  }
}
