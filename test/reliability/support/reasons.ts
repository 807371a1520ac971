/**
 * `turn/end` reasons paired with the ending SPEC §4's table gives them: the oracle the model-based and
 * property tests compare the fold against. Written from the table, not from `turnEnd.ts`.
 */
import fc from 'fast-check'
import type { RunEnding } from '../../../src/core/RunEnding.js'

export interface ReasonCase {
  readonly reason: Record<string, unknown>
  readonly ending: RunEnding
}

/** Kinds SPEC §4 names; any other string is an unknown kind (failed/unrecognized). */
export const KNOWN_KINDS = new Set([
  'completed',
  'max-tokens',
  'refusal',
  'context-window',
  'content-filter',
  'aborted',
  'blocked',
  'limit',
  'suspended',
  'error',
  'interrupted',
  // protocol 2
  'cut-off',
  'failed',
  'unfinished',
])

const text = fc.string({ maxLength: 6, unit: 'grapheme' })
const hostileWord = fc.constantFrom('__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty')

const opt = <K extends string, V>(key: K, v: V | undefined): Partial<Record<K, V>> => (v === undefined ? {} : ({ [key]: v } as Record<K, V>))

/** Every row of the SPEC §4 table, with optional fields present or absent. */
export const reasonCaseArb: fc.Arbitrary<ReasonCase> = fc.oneof(
  fc.constant<ReasonCase>({ reason: { kind: 'completed' }, ending: { kind: 'answered' } }),
  fc
    .constantFrom(['max-tokens', 'max_tokens'], ['refusal', 'refusal'], ['context-window', 'context_window'], ['content-filter', 'content_filter'])
    .map(([kind, finishReason]): ReasonCase => ({ reason: { kind: kind as string }, ending: { kind: 'cut_off', finishReason: finishReason as string } })),
  fc
    .tuple(
      fc.option(
        fc.constantFrom(
          ['user', 'caller'],
          ['parent', 'parent'],
          ['hook', 'hook'],
          ['disposed', 'abandoned'],
          ['legacy', 'caller'],
          ['permission', 'permission'],
          ['delegation', 'delegation'],
        ),
        { nil: undefined },
      ),
      fc.option(text, { nil: undefined }),
    )
    .map(
      ([sub, why]): ReasonCase => ({
        reason: { kind: 'aborted', ...(sub !== undefined ? { reason: { kind: sub[0], ...opt('reason', why) } } : {}) },
        ending: { kind: 'stopped', by: sub?.[1] ?? 'caller', ...(sub !== undefined ? opt('reason', why) : {}) },
      }),
    ),
  fc
    .tuple(
      fc.option(text, { nil: undefined }),
      fc.option(fc.constantFrom('input', 'output', 'middle'), { nil: undefined }),
      fc.option(text, { nil: undefined }),
    )
    .map(
      ([guardrail, phase, message]): ReasonCase => ({
        reason: { kind: 'blocked', ...opt('guardrail', guardrail), ...opt('phase', phase), ...opt('message', message) },
        ending: {
          kind: 'blocked',
          ...opt('guardrail', guardrail),
          ...(phase === 'input' || phase === 'output' ? { phase } : {}),
          ...opt('reason', message),
        },
      }),
    ),
  fc
    .tuple(
      fc.constantFrom('max_turns', 'request_limit', 'cost_limit', 'cost_unavailable'),
      fc.option(text, { nil: undefined }),
      fc.option(fc.oneof(fc.nat(1000), fc.constant(null)), { nil: undefined }),
      fc.option(fc.nat(1000), { nil: undefined }),
    )
    .map(
      ([reason, field, actual, limit]): ReasonCase => ({
        reason: { kind: 'limit', reason, ...opt('field', field), ...opt('actual', actual), ...opt('limit', limit) },
        ending: { kind: 'limit', reason, ...opt('field', field), ...opt('actual', actual), ...opt('limit', limit) },
      }),
    ),
  fc
    .array(
      fc.record(
        {
          id: fc.oneof(text, hostileWord),
          kind: fc.constantFrom('approval', 'question', 'elicitation'),
          toolName: text,
          arguments: fc.jsonValue({ maxDepth: 2 }),
          reason: text,
        },
        { requiredKeys: ['id', 'kind'] },
      ),
      { maxLength: 3 },
    )
    .map((pending): ReasonCase => {
      // an explicit `arguments: undefined` cannot come from JSON: drop it
      const clean = pending.map((p) => Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)))
      return { reason: { kind: 'suspended', pending: clean }, ending: { kind: 'suspended', pending: clean as never } }
    }),
  fc.tuple(text, fc.option(fc.oneof(text, fc.integer({ min: -500, max: 500 })), { nil: undefined })).map(
    ([message, code]): ReasonCase => ({
      reason: { kind: 'error', error: { message, ...opt('code', code) } },
      ending: { kind: 'failed', reason: 'error', error: { message, ...opt('code', code) } },
    }),
  ),
  fc.constant<ReasonCase>({ reason: { kind: 'interrupted' }, ending: { kind: 'failed', reason: 'interrupted' } }),
  // protocol 2: a provider's own cut-off word, a failure with its fields, a turn that ended unfinished
  fc
    .oneof(text, fc.constantFrom('pause_turn', 'max_tokens'))
    .map((finishReason): ReasonCase => ({ reason: { kind: 'cut-off', finishReason }, ending: { kind: 'cut_off', finishReason } })),
  fc
    .tuple(
      fc.constantFrom('error', 'provider_error', 'unrecognized'),
      fc.option(fc.constantFrom('stream', 'tool', 'startup'), { nil: undefined }),
      fc.option(
        text.map((message) => ({ message })),
        { nil: undefined },
      ),
      fc.option(text, { nil: undefined }),
    )
    .map(
      ([reason, phase, error, raw]): ReasonCase => ({
        reason: { kind: 'failed', reason, ...opt('phase', phase), ...opt('error', error), ...opt('raw', raw) },
        ending: { kind: 'failed', reason, ...opt('phase', phase), ...opt('error', error), ...opt('raw', raw) },
      }),
    ),
  fc
    .option(text, { nil: undefined })
    .map(
      (last): ReasonCase => ({ reason: { kind: 'unfinished', ...opt('lastEventType', last) }, ending: { kind: 'unfinished', ...opt('lastEventType', last) } }),
    ),
  fc
    .oneof(fc.string({ maxLength: 8 }), hostileWord, fc.constantFrom('max_tokens', 'end_turn', 'success', 'Completed'))
    .filter((k) => !KNOWN_KINDS.has(k))
    .map((kind): ReasonCase => ({ reason: { kind }, ending: { kind: 'failed', reason: 'unrecognized', raw: kind } })),
)

/** A bad `turn/end` and the data path its `ProtocolError` must name (SPEC §4). */
export interface BadTurnEnd {
  readonly data: unknown
  readonly path: string
  readonly label: string
}

/** Every way a `turn/end` can break the protocol, with the path the error must name. */
export const badTurnEndArb: fc.Arbitrary<BadTurnEnd> = fc.oneof(
  fc.constantFrom<BadTurnEnd>(
    { data: undefined, path: 'data', label: 'no data' },
    { data: 5, path: 'data', label: 'data is a number' },
    { data: [], path: 'data', label: 'data is an array' },
    { data: null, path: 'data', label: 'data is null' },
    { data: { turn: 1 }, path: 'reason', label: 'no reason' },
    { data: { reason: 'completed' }, path: 'reason', label: 'reason is a string' },
    { data: { reason: null }, path: 'reason', label: 'reason is null' },
    { data: { reason: [] }, path: 'reason', label: 'reason is an array' },
    { data: { reason: {} }, path: 'reason.kind', label: 'reason without kind' },
    { data: { reason: { kind: 7 } }, path: 'reason.kind', label: 'kind is a number' },
    { data: { reason: { kind: null } }, path: 'reason.kind', label: 'kind is null' },
    { data: { reason: { kind: ['completed'] } }, path: 'reason.kind', label: 'kind is an array' },
    { data: { reason: { kind: 'error' } }, path: 'reason.error', label: 'error without error' },
    { data: { reason: { kind: 'error', error: { message: 5 } } }, path: 'reason.error.message', label: 'error message not a string' },
    { data: { reason: { kind: 'error', error: { message: 'x', code: true } } }, path: 'reason.error.code', label: 'error code a boolean' },
    { data: { reason: { kind: 'limit' } }, path: 'reason.reason', label: 'limit without reason' },
    { data: { reason: { kind: 'limit', reason: 'x', actual: 'many' } }, path: 'reason.actual', label: 'limit actual a string' },
    { data: { reason: { kind: 'limit', reason: 'x', limit: null } }, path: 'reason.limit', label: 'limit limit null' },
    { data: { reason: { kind: 'suspended' } }, path: 'reason.pending', label: 'suspended without pending' },
    { data: { reason: { kind: 'suspended', pending: 'x' } }, path: 'reason.pending', label: 'pending a string' },
    { data: { reason: { kind: 'suspended', pending: [{ id: 1, kind: 'approval' }] } }, path: 'reason.pending.0.id', label: 'pending id a number' },
    { data: { reason: { kind: 'aborted', reason: { kind: 5 } } }, path: 'reason.reason.kind', label: 'aborted sub-kind a number' },
    { data: { reason: { kind: 'blocked', guardrail: 5 } }, path: 'reason.guardrail', label: 'guardrail a number' },
  ),
)
