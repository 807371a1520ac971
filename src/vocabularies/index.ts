/**
 * Seed vocabularies (SPEC §5): how each seed system and ACP names the way a run ended, mapped onto
 * `RunEnding` and back.
 *
 * `endingFrom(system, value)` is total: it never throws, and a value it does not know (an unknown string or
 * tag, a wrong type) is `failed` `unrecognized` with the value in `raw`, never `answered`.
 * `endingFromEither(system, value)` tells a malformed value (wrong types) apart as a `ProtocolError`.
 * `endingTo(system, ending)` writes an ending in the system's own terms, typed per system.
 * docs/compatibility.md has the table side by side.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { ProtocolError } from '../core/ProtocolError.js'
import type { RunEnding } from '../core/RunEnding.js'
import { acpEndingFromEither, acpEndingTo, type AcpStopReason } from './acp.js'
import { deputyEndingFromEither, deputyEndingTo, type DeputyStop } from './deputy.js'
import { dshEndingFromEither, dshEndingTo, type DshTurnEndReason } from './dsh.js'
import { llm4sEndingFromEither, llm4sEndingTo, type Llm4sStatus } from './llm4s.js'
import { unrecognized } from './shared.js'
import { swiftideEndingFromEither, swiftideEndingTo, swiftideStructuredOutput, type SwiftideStopReason } from './swiftide.js'

export type { AcpStopReason } from './acp.js'
export { acpStopReasons } from './acp.js'
export type { DeputyStop } from './deputy.js'
export type { DshTurnEndReason, DshAbortReason, DshPendingItem, DshOtherReason } from './dsh.js'
export type { Llm4sStatus, Llm4sPendingInterrupt } from './llm4s.js'
export type { SwiftideStopReason, SwiftideToolCall, SwiftideOtherVariant } from './swiftide.js'

/**
 * The systems whose vocabularies are mapped: `deputy` (R, seeds 000/001), `dsh` (the harness of seed 002),
 * `llm4s` (Scala/Java, seed 003), `swiftide` (Rust, seed 004) and `acp` (Agent Client Protocol).
 * @since 0.1.0
 * @category Vocabularies
 */
export const vocabularySystems = ['deputy', 'dsh', 'llm4s', 'swiftide', 'acp'] as const

/** A system name from {@link vocabularySystems}. @since 0.1.0 @category Vocabularies */
export type VocabularySystem = (typeof vocabularySystems)[number]

/** Type guard for a system name (for CLI flags and untyped callers). @since 0.1.0 @category Vocabularies */
export const isVocabularySystem = (u: unknown): u is VocabularySystem => typeof u === 'string' && (vocabularySystems as ReadonlyArray<string>).includes(u)

/**
 * What `endingTo` writes for each system. `null` means the system has no term for that ending
 * (dsh: no `turn/end`; llm4s: errors and stops are not statuses; swiftide: `stop_reason()` is `None`; ACP:
 * a JSON-RPC error or a turn still waiting).
 * @since 0.1.0
 * @category Vocabularies
 */
export interface VocabularyValues {
  readonly deputy: DeputyStop
  readonly dsh: DshTurnEndReason | null
  readonly llm4s: Llm4sStatus | null
  readonly swiftide: SwiftideStopReason | null
  readonly acp: AcpStopReason | null
}

const readers: { readonly [S in VocabularySystem]: (value: unknown) => E.Either<ProtocolError, RunEnding> } = {
  deputy: deputyEndingFromEither,
  dsh: dshEndingFromEither,
  llm4s: llm4sEndingFromEither,
  swiftide: swiftideEndingFromEither,
  acp: acpEndingFromEither,
}

const writers: { readonly [S in VocabularySystem]: (ending: RunEnding) => VocabularyValues[S] } = {
  deputy: deputyEndingTo,
  dsh: dshEndingTo,
  llm4s: llm4sEndingTo,
  swiftide: swiftideEndingTo,
  acp: acpEndingTo,
}

/**
 * Reads a system's value as a `RunEnding`, telling malformed values apart.
 *
 * Values read (each module's docs give the full table):
 * - `deputy`: `{ stopReason: string, finishReason?: string, by?: string }` (seed 000's table);
 * - `dsh`: a `turn/end` reason `{ kind, … }` (SPEC §4);
 * - `llm4s`: a status `{ kind: 'COMPLETED' | 'BLOCKED' | 'STEP_LIMIT_REACHED' | 'SUSPENDED', … }` (seed 003);
 * - `swiftide`: a `StopReason` in serde JSON (seed 004);
 * - `acp`: a `stopReason` string (SPEC §5).
 *
 * A well-typed value the system does not define (an unknown string or tag) is `Right` `failed`
 * `unrecognized` with the value kept in `raw` (deputy reads any other stop reason as `stopped`, seed 000).
 *
 * **Fails with** a `ProtocolError` (index 0, no input values in its message): kind `turn-end` for `dsh`
 * (paths as inside the event's `data`, e.g. `reason.kind`), kind `event` for the others (e.g. `stopReason`,
 * `status.pending.0.id`), when a value has the wrong type; also for an unknown `system` (empty path).
 * Never throws.
 * @example endingFromEither('acp', 'end_turn') // => right({ kind: 'answered' })
 * @example endingFromEither('acp', 42)         // => left(ProtocolError at 'stopReason', expected 'string')
 * @since 0.1.0
 * @category Vocabularies
 */
export const endingFromEither = (system: VocabularySystem, value: unknown): E.Either<ProtocolError, RunEnding> => {
  if (!isVocabularySystem(system)) {
    return E.left(new ProtocolError({ kind: 'vocabulary', index: 0, path: '', expected: 'a known vocabulary system' }))
  }
  return readers[system](value)
}

/**
 * Reads a system's value as a `RunEnding`. Total: never throws, on any input.
 *
 * Same table as {@link endingFromEither}; a malformed value (and an unknown `system`) gives `failed`
 * `unrecognized` with the value itself in `raw`. Never `answered` for a value the system does not define.
 * @example endingFrom('dsh', { kind: 'max-tokens' })     // => { kind: 'cut_off', finishReason: 'max_tokens' }
 * @example endingFrom('swiftide', { Other: 'too long' }) // => { kind: 'stopped', by: 'hook', reason: 'too long' }
 * @example endingFrom('acp', 'paused') // => { kind: 'failed', reason: 'unrecognized', raw: 'paused' }
 * @since 0.1.0
 * @category Vocabularies
 */
export const endingFrom = (system: VocabularySystem, value: unknown): RunEnding => {
  const decoded = endingFromEither(system, value)
  return E.isRight(decoded) ? decoded.right : unrecognized(value)
}

/**
 * Writes a `RunEnding` in a system's own terms, typed per system ({@link VocabularyValues}): deputy's
 * `{ stopReason, finishReason?, by? }`, a dsh `turn/end` reason, a llm4s status, a swiftide `StopReason`,
 * an ACP `stopReason`. Systems without a term for an ending give `null`, and some endings are written as the
 * closest term (each module documents which fields and kinds are lost); `endingFrom(s, endingTo(s, e))`
 * equals `e` for every ending `s` can express, up to the fields `s` carries.
 *
 * **Throws** `TypeError` only for a `system` that is not one of {@link vocabularySystems} (a programming error).
 * @example endingTo('acp', { kind: 'stopped', by: 'caller' })       // => 'cancelled'
 * @example endingTo('deputy', { kind: 'cut_off', finishReason: 'max_tokens' })
 * // => { stopReason: 'complete', finishReason: 'max_tokens' }
 * @since 0.1.0
 * @category Vocabularies
 */
export const endingTo = <S extends VocabularySystem>(system: S, ending: RunEnding): VocabularyValues[S] => {
  if (!isVocabularySystem(system)) throw new TypeError('endingTo: unknown vocabulary system')
  return (writers[system] as (ending: RunEnding) => VocabularyValues[S])(ending)
}

/**
 * The structured output a system's ending value carries (what a `RunResult`'s `structuredOutput` holds when
 * it is built from that value), or `null`.
 *
 * Only swiftide's `StopReason` carries one (seed 004): `RequestedByTool`'s payload (`null`, the
 * `StopWithArgs::default()` output string, or a custom schema's argument object), and `AgentFailed`'s payload
 * (a JSON-encoded object or array is parsed). Every other system, variant or malformed value gives `null`.
 * Never throws.
 * @example structuredOutputFrom('swiftide', { RequestedByTool: [call, { version: '1.0' }] }) // => { version: '1.0' }
 * @since 0.1.0
 * @category Vocabularies
 */
export const structuredOutputFrom = (system: VocabularySystem, value: unknown): unknown => (system === 'swiftide' ? swiftideStructuredOutput(value) : null)
