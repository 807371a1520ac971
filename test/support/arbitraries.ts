/** fast-check arbitraries of native events and traces. */
import fc from 'fast-check'

export const numRuns = (): number => {
  const n = Number(process.env['FC_NUM_RUNS'] ?? '100')
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 100
}

/** Session ids, hostile ones included on purpose (style §3 P6). */
export const sessionIdArb = fc.oneof(fc.constantFrom('root', 'kid', '__proto__', 'constructor', 'toString'), fc.string({ maxLength: 6 }))

const reasonArb = fc.oneof(
  fc.constantFrom('completed', 'max-tokens', 'refusal', 'context-window', 'content-filter', 'interrupted', 'weird-kind').map((kind) => ({ kind })),
  fc.record({ kind: fc.constant('aborted'), reason: fc.record({ kind: fc.constantFrom('user', 'parent', 'hook', 'disposed', 'legacy') }) }),
  fc.record({ kind: fc.constant('error'), error: fc.record({ message: fc.string({ maxLength: 10 }) }) }),
  fc.record({ kind: fc.constant('limit'), reason: fc.constantFrom('max_turns', 'cost_limit'), limit: fc.nat(50) }),
  fc.record({ kind: fc.constant('blocked'), guardrail: fc.string({ maxLength: 5 }) }),
  fc.record({
    kind: fc.constant('suspended'),
    pending: fc.array(fc.record({ id: fc.string({ maxLength: 4 }), kind: fc.constantFrom('approval', 'question') }), { maxLength: 2 }),
  }),
)

const usageArb = fc.record(
  { inputTokens: fc.nat(1000), outputTokens: fc.nat(1000), cacheReadTokens: fc.nat(1000), reasoningTokens: fc.nat(100) },
  { requiredKeys: ['inputTokens', 'outputTokens'] },
)

/** One valid native event (any session of a small set). */
export const validEventArb = (sessions: fc.Arbitrary<string> = fc.constantFrom('root', 'kid')): fc.Arbitrary<Record<string, unknown>> =>
  fc
    .tuple(
      sessions,
      fc.oneof(
        fc.nat(5).map((turn) => ({ type: 'turn/start', data: { turn } })),
        fc.tuple(fc.nat(5), reasonArb).map(([turn, reason]) => ({ type: 'turn/end', data: { turn, reason } })),
        fc
          .tuple(
            fc.string({ maxLength: 8 }),
            fc.option(usageArb, { nil: undefined }),
            fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
            fc.constantFrom('m1', 'm2', '__proto__'),
          )
          .map(([text, usage, costUsd, model]) => ({
            type: 'assistant/message',
            data: {
              turn: 1,
              step: 1,
              message: { content: [{ type: 'text', text }] },
              model,
              ...(usage ? { usage } : {}),
              ...(costUsd !== undefined ? { costUsd } : {}),
            },
          })),
        fc.string({ maxLength: 4 }).map((callId) => ({ type: 'tool/call', data: { callId, name: 'Bash', arguments: '{}' } })),
        fc.string({ maxLength: 4 }).map((callId) => ({ type: 'tool/result', data: { callId, message: 'ok' } })),
        fc.constantFrom({ type: 'session/status', data: { status: 'idle' } }, { type: 'session/status', data: { status: 'running' } }),
        fc.constant({ type: 'subagent/started', data: { parentSessionId: 'root', childSessionId: 'kid' } }),
        fc
          .constantFrom('completed', 'error')
          .map((stopReason) => ({ type: 'subagent/finished', data: { parentSessionId: 'root', childSessionId: 'kid', stopReason } })),
        fc.constant({ type: 'todo/write', data: {} }),
        fc.constant({ type: 'user/message', data: { message: 'hi' } }),
      ),
      fc.option(fc.nat(40), { nil: undefined }),
    )
    .map(([sessionId, e, seq]) => ({ ...e, sessionId, ...(seq !== undefined ? { seq } : {}) }))

/** A valid trace (no protocol error). */
export const validTraceArb = fc.array(validEventArb(), { maxLength: 40 })

/** Anything a log line could hold, including malformed events. */
export const anyEventArb: fc.Arbitrary<unknown> = fc.oneof(
  validEventArb(),
  fc.jsonValue(),
  fc.record({ type: fc.constantFrom('turn/end', 'assistant/message', 'tool/call'), sessionId: fc.string(), data: fc.jsonValue() }),
)
