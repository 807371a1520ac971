/**
 * Arbitraries of native traces for the properties: rich valid events (multi-byte text, wrappers, seq
 * re-deliveries, unknown types, malformed non-terminal events, subagents, idles) over a small set of ids, and
 * the bad events that must stop a fold.
 */
import fc from 'fast-check'
import { badTurnEndArb, reasonCaseArb } from './reasons.js'

/** Ids the traces use; `ids.ts` maps them onto hostile ones for the renaming property. */
export const PLAIN_IDS = { root: 'R', kid: 'K', kid2: 'L', modelA: 'MA', modelB: 'MB', call: 'C', message: 'MSG' } as const

/** Text with multi-byte characters (2-, 3- and 4-byte UTF-8, combining marks), `\r` and quotes. */
export const textArb = fc.oneof(
  fc.string({ maxLength: 10, unit: 'grapheme' }),
  fc.constantFrom('é', 'ü∑', '日本語', '🙂', '👩‍💻', 'a\u0301', '\r', 'line\r\nbreak', '"quoted"', '\\', '\u2028', '\u0000'),
)

const sessionArb = fc.constantFrom(PLAIN_IDS.root, PLAIN_IDS.root, PLAIN_IDS.root, PLAIN_IDS.kid, PLAIN_IDS.kid2)
const usageArb = fc.record(
  {
    inputTokens: fc.nat(100_000),
    outputTokens: fc.nat(100_000),
    cacheReadTokens: fc.nat(100_000),
    cacheWriteTokens: fc.nat(1000),
    reasoningTokens: fc.nat(1000),
  },
  { requiredKeys: ['inputTokens', 'outputTokens'] },
)

const bodyArb: fc.Arbitrary<{ type: string; data?: unknown }> = fc.oneof(
  { weight: 3, arbitrary: fc.nat(4).map((turn) => ({ type: 'turn/start', data: { turn } })) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.option(fc.nat(4), { nil: undefined }), reasonCaseArb)
      .map(([turn, c]) => ({ type: 'turn/end', data: { ...(turn !== undefined ? { turn } : {}), reason: c.reason } })),
  },
  { weight: 1, arbitrary: fc.constantFrom('step/start', 'step/end').map((type) => ({ type, data: { turn: 1, step: 2 } })) },
  { weight: 1, arbitrary: textArb.map((t) => ({ type: 'assistant/chunk', data: { turn: 1, step: 1, chunk: { type: 'text', text: t } } })) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(textArb, fc.option(usageArb, { nil: undefined }), fc.option(fc.nat(5000), { nil: undefined }), fc.constantFrom(PLAIN_IDS.modelA, PLAIN_IDS.modelB))
      .map(([text, usage, milli, model]) => ({
        type: 'assistant/message',
        data: {
          turn: 1,
          step: 1,
          model,
          message: { content: [{ type: 'text', text }] },
          ...(usage ? { usage } : {}),
          ...(milli !== undefined ? { costUsd: milli / 1000 } : {}),
        },
      })),
  },
  {
    weight: 2,
    arbitrary: fc.nat(3).map((n) => ({ type: 'tool/call', data: { callId: `${PLAIN_IDS.call}${n}`, name: 'Bash', arguments: '{"cmd":"ls -la"}' } })),
  },
  { weight: 1, arbitrary: fc.nat(3).map((n) => ({ type: 'tool/result', data: { callId: `${PLAIN_IDS.call}${n}`, message: 'ok' } })) },
  { weight: 1, arbitrary: fc.constant({ type: 'user/message', data: { message: 'hello' } }) },
  { weight: 1, arbitrary: fc.constantFrom(PLAIN_IDS.message, 'other').map((id) => ({ type: 'agent/inbox/spliced', data: { inserted: [{ id }] } })) },
  { weight: 3, arbitrary: fc.constantFrom('idle', 'idle', 'running').map((status) => ({ type: 'session/status', data: { status } })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(PLAIN_IDS.kid, PLAIN_IDS.kid2)
      .map((kid) => ({ type: 'subagent/started', data: { parentSessionId: PLAIN_IDS.root, childSessionId: kid } })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(PLAIN_IDS.kid, PLAIN_IDS.kid2), fc.option(fc.constantFrom('completed', 'error', 'max-tokens', 'weird'), { nil: undefined }))
      .map(([kid, stopReason]) => ({
        type: 'subagent/finished',
        data: { parentSessionId: PLAIN_IDS.root, childSessionId: kid, ...(stopReason ? { stopReason } : {}) },
      })),
  },
  { weight: 1, arbitrary: fc.constantFrom('todo/write', 'x/y', '').map((type) => ({ type, data: { z: 1 } })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { type: 'assistant/message', data: { message: 7 } },
      { type: 'tool/call', data: { callId: 1 } },
      { type: 'session/status', data: { status: 'asleep' } },
    ),
  },
)

/** One valid native event: bare or wrapped, with an optional seq and time. */
export const nativeEventArb: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    bodyArb,
    sessionArb,
    fc.option(fc.nat(30), { nil: undefined }),
    fc.option(fc.oneof(fc.nat(2_000_000_000_000), fc.constant('2026-01-01T10:00:00.000Z')), { nil: undefined }),
    fc.nat(9),
  )
  .map(([body, sessionId, seq, time, form]) => {
    if (form === 0 && seq === undefined && time === undefined) {
      return { method: 'session.event', params: { sessionId, event: body } }
    }
    if (form === 1 && body.type === 'session/status') {
      return { method: 'session.status', params: { sessionId, status: (body.data as { status: string }).status } }
    }
    return { ...body, sessionId, ...(seq !== undefined ? { seq } : {}), ...(time !== undefined ? { time } : {}) }
  })

/** A valid trace, with re-deliveries (an earlier event sent again). */
export const nativeTraceArb = (maxLength = 40): fc.Arbitrary<Array<Record<string, unknown>>> =>
  fc.tuple(fc.array(nativeEventArb, { maxLength, size: 'medium' }), fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 3 })).map(([events, dups]) => {
    const out = events.slice()
    for (const [from, to] of dups) {
      if (out.length === 0) break
      out.splice(to % (out.length + 1), 0, out[from % out.length] as Record<string, unknown>)
    }
    return out
  })

/** An event that stops any fold, with the kind of `ProtocolError` it gives. */
export const badEventArb: fc.Arbitrary<{ event: unknown; kind: 'event' | 'turn-end' }> = fc.oneof(
  badTurnEndArb.map((b) => ({
    event: { type: 'turn/end', sessionId: PLAIN_IDS.root, ...(b.data === undefined ? {} : { data: b.data }) },
    kind: 'turn-end' as const,
  })),
  fc.constantFrom<unknown>('text', 3, null, [], true, { data: {} }, { type: 4 }).map((event) => ({ event, kind: 'event' as const })),
)

/** Anything at all after the first bad event (more bad events included). */
export const junkArb: fc.Arbitrary<Array<unknown>> = fc.array(
  fc.oneof(
    nativeEventArb,
    badEventArb.map((b) => b.event),
    fc.jsonValue({ maxDepth: 3 }),
  ),
  { maxLength: 8 },
)
