/**
 * llm4s (Scala, Java facade; seed 003): a `JAgentResult`'s `status`, as
 * `{ kind: 'COMPLETED' | 'BLOCKED' | 'STEP_LIMIT_REACHED' | 'SUSPENDED', answer?, guardrail?, reason?, pending? }`,
 * to and from `RunEnding`.
 *
 * llm4s has four statuses. Errors, cancellations and timeouts are not statuses there (they come back as a
 * `Left` or a failed `LlmResult`), so `failed`, `stopped`, `cut_off` and `unfinished` are written as `null`.
 *
 * @module
 */
import type * as E from 'fp-ts/lib/Either.js'
import type { ProtocolError } from '../core/ProtocolError.js'
import type { PendingItem, RunEnding } from '../core/RunEnding.js'
import { Malformed, decodeWith, invert, isRecord, join, optString, own, parseJsonText, reqString, toJsonText, unrecognized } from './shared.js'

/**
 * A `PendingInterrupt` (seed 003): `kind` is `APPROVAL`, `QUESTION`, `MIDDLEWARE_QUESTION` or `BREAKPOINT`
 * (newer facades); `argumentsJson` and `questionJson` are JSON text; `reason` says why approval is needed.
 * @since 0.1.0
 * @category Vocabularies
 */
export interface Llm4sPendingInterrupt {
  readonly id: string
  readonly kind: 'APPROVAL' | 'QUESTION' | 'MIDDLEWARE_QUESTION' | 'BREAKPOINT' | (string & { readonly __llm4sPendingKind?: never })
  readonly toolName?: string
  readonly argumentsJson?: string
  readonly reason?: string
  readonly questionJson?: string
}

/**
 * A `JAgentStatus` (seed 003): `COMPLETED` (with the `answer` text), `BLOCKED` (the first refusing
 * `guardrail` and every refusing guardrail's `reason`), `STEP_LIMIT_REACHED`, or `SUSPENDED` with `pending`
 * (approvals first, then questions).
 * @since 0.1.0
 * @category Vocabularies
 */
export type Llm4sStatus =
  | { readonly kind: 'COMPLETED'; readonly answer?: string }
  | { readonly kind: 'BLOCKED'; readonly guardrail?: string; readonly reason?: string }
  | { readonly kind: 'STEP_LIMIT_REACHED' }
  | { readonly kind: 'SUSPENDED'; readonly pending: ReadonlyArray<Llm4sPendingInterrupt> }

const PENDING_KIND_IN = new Map<string, string>([
  ['APPROVAL', 'approval'],
  ['QUESTION', 'question'],
  ['MIDDLEWARE_QUESTION', 'middleware_question'],
  ['BREAKPOINT', 'breakpoint'],
])
const PENDING_KIND_OUT = invert(PENDING_KIND_IN)
/** Pending kinds whose text is a question (`questionJson`) rather than a reason. */
const QUESTIONS = new Set(['question', 'middleware_question'])

const BASE = 'status'

/** The `limit` a `STEP_LIMIT_REACHED` status gives: the agent's `maxSteps` model calls were used up. */
const STEP_LIMIT = { kind: 'limit', reason: 'step_limit', field: 'maxSteps' } as const

const readPending = (u: unknown, path: string): PendingItem => {
  if (!isRecord(u)) throw new Malformed(path, 'object')
  const id = reqString(u, 'id', path)
  const rawKind = reqString(u, 'kind', path)
  const toolName = optString(u, 'toolName', path)
  const argumentsJson = optString(u, 'argumentsJson', path)
  const reason = optString(u, 'reason', path)
  const questionJson = optString(u, 'questionJson', path)
  const kind = PENDING_KIND_IN.get(rawKind) ?? rawKind
  const text = QUESTIONS.has(kind) ? (questionJson ?? reason) : reason
  return {
    id,
    kind,
    ...(toolName !== undefined ? { toolName } : {}),
    ...(argumentsJson !== undefined ? { arguments: parseJsonText(argumentsJson) } : {}),
    ...(text !== undefined ? { reason: text } : {}),
  }
}

const read = (value: unknown): RunEnding => {
  if (!isRecord(value)) throw new Malformed(BASE, 'object')
  const kind = reqString(value, 'kind', BASE)
  switch (kind) {
    case 'COMPLETED':
      optString(value, 'answer', BASE)
      return { kind: 'answered' }
    case 'BLOCKED': {
      const guardrail = optString(value, 'guardrail', BASE)
      const reason = optString(value, 'reason', BASE)
      return {
        kind: 'blocked',
        ...(guardrail !== undefined ? { guardrail } : {}),
        ...(reason !== undefined ? { reason } : {}),
      }
    }
    case 'STEP_LIMIT_REACHED':
      return { ...STEP_LIMIT }
    case 'SUSPENDED': {
      const pending = own(value, 'pending')
      if (pending === undefined || pending === null) return { kind: 'suspended', pending: [] }
      const path = join(BASE, 'pending')
      if (!Array.isArray(pending)) throw new Malformed(path, 'array')
      const items: Array<PendingItem> = []
      for (let i = 0; i < pending.length; i++) items.push(readPending(pending[i], join(path, i)))
      return { kind: 'suspended', pending: items }
    }
    default:
      return unrecognized(kind)
  }
}

/**
 * Reads a llm4s status (seed 003).
 *
 * `COMPLETED` → `answered` (the `answer` is the response text, not part of the ending); `BLOCKED` →
 * `blocked` with `guardrail` and `reason`; `STEP_LIMIT_REACHED` → `limit` `step_limit`, field `maxSteps`;
 * `SUSPENDED` → `suspended`, each `PendingInterrupt` as a `PendingItem`: `kind` `APPROVAL` → `approval`,
 * `QUESTION` → `question`, `MIDDLEWARE_QUESTION` → `middleware_question`, `BREAKPOINT` → `breakpoint` (an
 * unknown kind is kept as written); `argumentsJson` → `arguments`, parsed when it is JSON (else the text);
 * `reason` → `reason`, and for the question kinds `questionJson` (the text as given) → `reason`. An unknown
 * status kind → `failed` `unrecognized` with the kind in `raw`. `null` in an optional field reads as absent.
 *
 * **Fails with** `ProtocolError` kind `event`, with paths as inside `JAgentResult`: not an object (`status`),
 * `kind` not a string (`status.kind`), a field of the wrong type (`status.guardrail`, `status.pending`,
 * `status.pending.0.id`, …). `null` (no status) is malformed too: llm4s has no status for an error.
 * @since 0.1.0
 */
export const llm4sEndingFromEither: (value: unknown) => E.Either<ProtocolError, RunEnding> = decodeWith({ kind: 'vocabulary', root: BASE }, read)

const writePending = (p: PendingItem): Llm4sPendingInterrupt => {
  const argumentsJson = p.arguments !== undefined ? toJsonText(p.arguments) : undefined
  const text = p.reason === undefined ? {} : QUESTIONS.has(p.kind) ? { questionJson: p.reason } : { reason: p.reason }
  return {
    id: p.id,
    kind: PENDING_KIND_OUT.get(p.kind) ?? p.kind,
    ...(p.toolName !== undefined ? { toolName: p.toolName } : {}),
    ...(argumentsJson !== undefined ? { argumentsJson } : {}),
    ...text,
  }
}

/**
 * Writes a `RunEnding` as a llm4s status, or `null` when llm4s has no status for it.
 *
 * - `answered` → `COMPLETED` (no `answer`: the ending does not hold the text); `blocked` → `BLOCKED` with
 *   `guardrail` and `reason` (`phase` is not a status field); `limit` → `STEP_LIMIT_REACHED` (any limit);
 *   `suspended` → `SUSPENDED` with the items written back (`arguments` as JSON text, omitted when it cannot
 *   be printed; a question's `reason` as `questionJson`).
 * - `failed`, `stopped`, `cut_off`, `unfinished` → `null`: errors and cancellations are not statuses in
 *   llm4s (they are a `Left`), and truncation is not represented.
 *
 * Never throws.
 * @since 0.1.0
 */
export const llm4sEndingTo = (ending: RunEnding): Llm4sStatus | null => {
  switch (ending.kind) {
    case 'answered':
      return { kind: 'COMPLETED' }
    case 'blocked':
      return {
        kind: 'BLOCKED',
        ...(ending.guardrail !== undefined ? { guardrail: ending.guardrail } : {}),
        ...(ending.reason !== undefined ? { reason: ending.reason } : {}),
      }
    case 'limit':
      return { kind: 'STEP_LIMIT_REACHED' }
    case 'suspended':
      return { kind: 'SUSPENDED', pending: ending.pending.map(writePending) }
    case 'cut_off':
    case 'stopped':
    case 'failed':
    case 'unfinished':
      return null
  }
}
