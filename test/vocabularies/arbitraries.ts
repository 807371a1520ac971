/**
 * fast-check arbitraries of `RunEnding` for the vocabulary tests: any ending, and per system the endings
 * that system can express, with `carried(system, ending)`, the ending as the system carries it (SPEC §5 and
 * the module docs: which fields each system keeps, and how it names them).
 */
import fc from 'fast-check'
import type { PendingItem, RunEnding } from '../../src/core/RunEnding.js'
import type { VocabularySystem } from '../../src/vocabularies/index.js'
import { KNOWN_KINDS } from '../reliability/support/reasons.js'

/** Run count for every property in this folder: env `FC_NUM_RUNS`, default 200. */
export const numRuns = ((): number => {
  const n = Number.parseInt(process.env['FC_NUM_RUNS'] ?? '', 10)
  return Number.isFinite(n) && n > 0 ? n : 200
})()

/** Names that resolve on a plain object's prototype: they must behave like any other string. */
export const hostileNames = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'] as const

/** Short strings, with the hostile names mixed in. */
export const str: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom(...hostileNames) },
)

/** JSON values as they survive a JSON round trip (no `-0`). */
export const jsonArgs: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown)

const standardBy = ['caller', 'hook', 'permission', 'parent', 'delegation', 'abandoned'] as const

const pendingItem = (kind: fc.Arbitrary<string>): fc.Arbitrary<PendingItem> =>
  fc.record({ id: str, kind, toolName: str, arguments: jsonArgs, reason: str }, { requiredKeys: ['id', 'kind'], noNullPrototype: true })

const anyPendingKind = fc.oneof(fc.constantFrom('approval', 'question'), str)

/** Any `RunEnding`, every optional field present or absent. */
export const anyEnding: fc.Arbitrary<RunEnding> = fc.oneof(
  fc.constant({ kind: 'answered' } as const),
  fc.record(
    {
      kind: fc.constant('cut_off' as const),
      finishReason: fc.oneof(fc.constantFrom('max_tokens', 'context_window', 'content_filter', 'refusal'), str),
    },
    { noNullPrototype: true },
  ),
  fc.record(
    {
      kind: fc.constant('limit' as const),
      reason: fc.oneof(fc.constantFrom('max_turns', 'request_limit', 'cost_unavailable', 'tool_loop'), str),
      field: str,
      actual: fc.oneof(fc.nat(), fc.constant(null)),
      limit: fc.nat(),
    },
    { requiredKeys: ['kind', 'reason'], noNullPrototype: true },
  ),
  fc.record(
    { kind: fc.constant('stopped' as const), by: fc.oneof(fc.constantFrom(...standardBy), str), reason: str },
    { requiredKeys: ['kind', 'by'], noNullPrototype: true },
  ),
  fc.record(
    {
      kind: fc.constant('suspended' as const),
      pending: fc.array(pendingItem(anyPendingKind), { maxLength: 3 }),
    },
    { noNullPrototype: true },
  ),
  fc.record(
    {
      kind: fc.constant('blocked' as const),
      guardrail: str,
      phase: fc.constantFrom('input' as const, 'output' as const),
      reason: str,
    },
    { requiredKeys: ['kind'], noNullPrototype: true },
  ),
  fc.record(
    {
      kind: fc.constant('failed' as const),
      reason: fc.oneof(fc.constantFrom('error', 'provider_error', 'agent_failed', 'unrecognized', 'interrupted'), str),
      phase: str,
      error: fc.record({ message: str, code: fc.oneof(str, fc.integer()), name: str }, { requiredKeys: ['message'], noNullPrototype: true }),
      raw: jsonArgs,
    },
    { requiredKeys: ['kind', 'reason'], noNullPrototype: true },
  ),
  fc.record({ kind: fc.constant('unfinished' as const), lastEventType: str }, { requiredKeys: ['kind'], noNullPrototype: true }),
)

const pick = <K extends RunEnding['kind']>(...kinds: ReadonlyArray<K>) =>
  anyEnding.filter((e): e is Extract<RunEnding, { kind: K }> => (kinds as ReadonlyArray<string>).includes(e.kind))

// --- deputy -------------------------------------------------------------------------------------------

const DEPUTY_LIMIT_FIELDS: Readonly<Record<string, string | null>> = {
  request_limit: 'max_requests',
  tool_call_limit: 'max_tool_calls',
  input_token_limit: 'max_input_tokens',
  output_token_limit: 'max_output_tokens',
  total_token_limit: 'max_total_tokens',
  cost_limit: 'max_cost_usd',
  cost_unavailable: 'max_cost_usd',
  tool_loop: null,
}
const DEPUTY_DEFAULT_STOP = new Map([
  ['caller', 'interrupted'],
  ['hook', 'hook_requested_stop'],
  ['permission', 'permission_denied'],
  ['abandoned', 'abandoned'],
])

const deputyEnding: fc.Arbitrary<RunEnding> = fc.oneof(
  pick('answered'),
  fc.record(
    {
      kind: fc.constant('cut_off' as const),
      finishReason: fc.constantFrom('max_tokens', 'context_window', 'content_filter'),
    },
    { noNullPrototype: true },
  ),
  pick('limit').chain((l) => fc.constantFrom(...Object.keys(DEPUTY_LIMIT_FIELDS)).map((reason): RunEnding => ({ ...l, reason }))),
  pick('stopped').filter((s) => s.by !== 'approval'),
  pick('suspended'),
  pick('failed').chain((f) => fc.constantFrom('error', 'provider_error', 'file_checkpoint_error').map((reason): RunEnding => ({ ...f, reason }))),
)

const deputyCarried = (e: RunEnding): RunEnding => {
  switch (e.kind) {
    case 'limit': {
      const field = DEPUTY_LIMIT_FIELDS[e.reason]
      if (field === null || field === undefined) return { kind: 'limit', reason: e.reason }
      return e.reason === 'cost_unavailable' ? { kind: 'limit', reason: e.reason, field, actual: null } : { kind: 'limit', reason: e.reason, field }
    }
    case 'stopped': {
      const dflt = DEPUTY_DEFAULT_STOP.get(e.by) ?? e.by
      return e.reason === undefined || e.reason === dflt ? { kind: 'stopped', by: e.by } : { kind: 'stopped', by: e.by, reason: e.reason }
    }
    case 'suspended':
      return { kind: 'suspended', pending: [] }
    case 'failed':
      return { kind: 'failed', reason: e.reason }
    default:
      return e
  }
}

// --- dsh ----------------------------------------------------------------------------------------------

// the turn/end kinds of SPEC §4's table: one list for the reliability model and these arbitraries
const DSH_KINDS = KNOWN_KINDS
/** What the native table credits for the sub-kind `endingTo` writes for a stopper (others: the caller). */
const DSH_BY = new Map([
  ['caller', 'caller'],
  ['permission', 'permission'],
  ['delegation', 'delegation'],
  ['parent', 'parent'],
  ['hook', 'hook'],
  ['abandoned', 'abandoned'],
  ['disposed', 'abandoned'],
])

const dshEnding: fc.Arbitrary<RunEnding> = fc.oneof(
  pick('answered'),
  fc.record(
    {
      kind: fc.constant('cut_off' as const),
      finishReason: fc.constantFrom('max_tokens', 'refusal', 'context_window', 'content_filter'),
    },
    { noNullPrototype: true },
  ),
  pick('limit', 'stopped', 'suspended', 'blocked'),
  pick('failed').chain((f) =>
    fc.oneof(
      fc.constantFrom('error', 'interrupted').map((reason): RunEnding => ({ ...f, reason })),
      str.filter((raw) => !DSH_KINDS.has(raw)).map((raw): RunEnding => ({ kind: 'failed', reason: 'unrecognized', raw })),
    ),
  ),
)

const dshCarried = (e: RunEnding): RunEnding => {
  switch (e.kind) {
    case 'stopped': {
      const by = DSH_BY.get(e.by) ?? 'caller'
      return e.reason === undefined ? { kind: 'stopped', by } : { kind: 'stopped', by, reason: e.reason }
    }
    case 'failed':
      if (e.reason === 'error') {
        return { kind: 'failed', reason: 'error', error: e.error ?? { message: 'error' } }
      }
      if (e.reason === 'interrupted') return { kind: 'failed', reason: 'interrupted' }
      return e
    default:
      return e
  }
}

// --- llm4s --------------------------------------------------------------------------------------------

const LLM4S_KIND_IN = new Map([
  ['APPROVAL', 'approval'],
  ['QUESTION', 'question'],
  ['MIDDLEWARE_QUESTION', 'middleware_question'],
  ['BREAKPOINT', 'breakpoint'],
])

const llm4sEnding: fc.Arbitrary<RunEnding> = fc.oneof(
  pick('answered', 'blocked', 'limit'),
  fc.record(
    {
      kind: fc.constant('suspended' as const),
      pending: fc.array(pendingItem(fc.oneof(fc.constantFrom('approval', 'question', 'middleware_question', 'breakpoint'), str)), { maxLength: 3 }),
    },
    { noNullPrototype: true },
  ),
)

const llm4sCarried = (e: RunEnding): RunEnding => {
  switch (e.kind) {
    case 'blocked':
      return {
        kind: 'blocked',
        ...(e.guardrail !== undefined ? { guardrail: e.guardrail } : {}),
        ...(e.reason !== undefined ? { reason: e.reason } : {}),
      }
    case 'limit':
      return { kind: 'limit', reason: 'step_limit', field: 'maxSteps' }
    case 'suspended':
      return {
        kind: 'suspended',
        pending: e.pending.map((p) => ({ ...p, kind: LLM4S_KIND_IN.get(p.kind) ?? p.kind })),
      }
    default:
      return e
  }
}

// --- swiftide -----------------------------------------------------------------------------------------

const swiftideEnding: fc.Arbitrary<RunEnding> = fc.oneof(
  pick('answered', 'limit'),
  pick('failed').chain((f) =>
    fc.oneof(
      fc.constant<RunEnding>({ ...f, reason: 'error' }),
      fc.constant<RunEnding>({ ...f, reason: 'agent_failed' }),
      str.filter((raw) => raw !== 'NoNewMessages' && raw !== 'Error').map((raw): RunEnding => ({ kind: 'failed', reason: 'unrecognized', raw })),
    ),
  ),
  fc.record({ kind: fc.constant('suspended' as const), pending: fc.tuple(pendingItem(anyPendingKind)) }, { noNullPrototype: true }),
  pick('stopped'),
)

const swiftideCarried = (e: RunEnding): RunEnding => {
  switch (e.kind) {
    case 'limit':
      return { kind: 'limit', reason: 'tool_retry_limit', field: 'tool_retry_limit' }
    case 'failed':
      if (e.reason === 'agent_failed') {
        return e.error === undefined
          ? { kind: 'failed', reason: 'agent_failed' }
          : { kind: 'failed', reason: 'agent_failed', error: { message: e.error.message } }
      }
      if (e.reason === 'unrecognized') return e
      return { kind: 'failed', reason: 'error' }
    case 'suspended': {
      const p = e.pending[0]
      const item: PendingItem = {
        id: p?.id ?? '',
        kind: 'approval',
        toolName: p?.toolName ?? '',
        ...(p?.arguments !== undefined ? { arguments: p.arguments } : {}),
        ...(p?.reason !== undefined ? { reason: p.reason } : {}),
      }
      return { kind: 'suspended', pending: [item] }
    }
    case 'stopped':
      return { kind: 'stopped', by: 'hook', reason: e.reason ?? 'No reason provided' }
    default:
      return e
  }
}

// --- acp ----------------------------------------------------------------------------------------------

const acpEnding: fc.Arbitrary<RunEnding> = fc.oneof(
  pick('answered', 'limit'),
  fc.record(
    {
      kind: fc.constant('cut_off' as const),
      finishReason: fc.constantFrom('max_tokens', 'context_window', 'refusal', 'content_filter'),
    },
    { noNullPrototype: true },
  ),
  pick('stopped').chain((s) => fc.constantFrom('caller', 'abandoned').map((by): RunEnding => ({ ...s, by }))),
)

const acpCarried = (e: RunEnding): RunEnding => {
  switch (e.kind) {
    case 'cut_off':
      return {
        kind: 'cut_off',
        finishReason: e.finishReason === 'refusal' || e.finishReason === 'content_filter' ? 'refusal' : 'max_tokens',
      }
    case 'limit':
      return { kind: 'limit', reason: 'max_turn_requests' }
    case 'stopped':
      return { kind: 'stopped', by: 'caller' }
    default:
      return e
  }
}

/** Per system: the endings it can express. */
export const expressible: Readonly<Record<VocabularySystem, fc.Arbitrary<RunEnding>>> = {
  deputy: deputyEnding,
  dsh: dshEnding,
  llm4s: llm4sEnding,
  swiftide: swiftideEnding,
  acp: acpEnding,
}

/** Per system: an expressible ending reduced to the fields (and names) the system carries. */
export const carried: Readonly<Record<VocabularySystem, (e: RunEnding) => RunEnding>> = {
  deputy: deputyCarried,
  dsh: dshCarried,
  llm4s: llm4sCarried,
  swiftide: swiftideCarried,
  acp: acpCarried,
}

type KindOrNull = RunEnding['kind'] | null
/**
 * Per system and ending kind: the kinds `endingFrom(s, endingTo(s, e))` may have (`null`: written as `null`).
 * Lossy writes are documented in each module; no row lets a non-answered ending come back answered except
 * ACP's, where SPEC §5 writes blocked and stops by others than the caller as `end_turn`.
 */
export const kindsAfterRoundTrip: Readonly<Record<VocabularySystem, Readonly<Record<RunEnding['kind'], ReadonlyArray<KindOrNull>>>>> = {
  deputy: {
    answered: ['answered'],
    cut_off: ['cut_off'],
    limit: ['limit', 'stopped'],
    stopped: ['stopped', 'suspended'],
    suspended: ['suspended'],
    blocked: ['stopped'],
    failed: ['failed'],
    unfinished: ['stopped'],
  },
  dsh: {
    answered: ['answered'],
    cut_off: ['cut_off'],
    limit: ['limit'],
    stopped: ['stopped'],
    suspended: ['suspended'],
    blocked: ['blocked'],
    failed: ['failed'],
    unfinished: [null],
  },
  llm4s: {
    answered: ['answered'],
    cut_off: [null],
    limit: ['limit'],
    stopped: [null],
    suspended: ['suspended'],
    blocked: ['blocked'],
    failed: [null],
    unfinished: [null],
  },
  swiftide: {
    answered: ['answered'],
    cut_off: [null],
    limit: ['limit'],
    stopped: ['stopped'],
    suspended: ['suspended'],
    blocked: ['stopped'],
    failed: ['failed'],
    unfinished: [null],
  },
  acp: {
    answered: ['answered'],
    cut_off: ['cut_off'],
    limit: ['limit'],
    stopped: ['stopped', 'answered'],
    suspended: [null],
    blocked: ['answered'],
    failed: [null],
    unfinished: [null],
  },
}
