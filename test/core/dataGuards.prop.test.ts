/**
 * core/dataGuards: the hand-written guards of the frequent native event types accept exactly what their codecs
 * (events.ts, the definition) accept — on arbitrary JSON, and on values shaped like each event's data with one
 * field swapped for an arbitrary value (where a guard that forgot a field would differ).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { dataGuardOf } from '../../src/core/dataGuards.js'
import { dataCodecs } from '../../src/core/events.js'
import { numRuns } from '../support/arbitraries.js'
import { paths, setAt } from '../support/valuePaths.js'

const guarded = Object.keys(dataCodecs).filter((k) => dataGuardOf(k) !== undefined) as Array<keyof typeof dataCodecs>

/** A valid `data` of each guarded type, with every optional field present. */
const full: Record<string, Record<string, unknown>> = {
  'assistant/chunk': { turn: 1, step: 2, chunk: { type: 'text-delta', text: 'hi' } },
  'assistant/message': {
    turn: 1,
    step: 1,
    message: { content: [{ type: 'text', text: 'a' }, { type: 'tool-use' }] },
    usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4, reasoningTokens: 5 },
    model: 'm',
    costUsd: 0.5,
    interrupted: false,
    messageId: 'x',
    stopReason: 'end_turn',
  },
  'tool/call': { turn: 1, step: 1, callId: 'c', name: 'n', arguments: '{}' },
  'tool/result': { turn: 1, step: 1, callId: 'c', message: 'ok', error: { name: 'E', code: 3, message: 'boom' } },
  'step/start': { turn: 1, step: 1 },
  'step/end': { turn: 1, step: 1 },
  'turn/start': { turn: 1 },
  'session/status': { status: 'idle' },
  'agent/inbox/spliced': { inserted: [{ id: 'a' }, { id: 'b' }] },
  'turn/end': {
    turn: 1,
    step: 2,
    reason: { kind: 'completed' },
    finishReason: 'stop',
    inferred: false,
    text: 'done',
    structuredOutput: { a: 1 },
    durationMs: 12,
  },
  'subagent/started': { childSessionId: 'c', parentSessionId: 'p', stopReason: 'done', previousSessionId: 'q' },
  'subagent/finished': { childSessionId: 'c', parentSessionId: 'p', stopReason: 'done', previousSessionId: 'q' },
}

/** Odd values a field may hold: the edges of the number checks, and other JSON and non-JSON kinds. */
const odd = fc.oneof(
  fc.constantFrom(0, -0, -1, 1.5, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, Number.NaN, Number.POSITIVE_INFINITY, -Infinity),
  fc.constantFrom(null, undefined, true, false, '', 'idle', 'running', 'x', [], {}, [{}], [1], [{ id: 1 }], [{ id: 'a' }]),
  fc.jsonValue({ maxDepth: 3 }),
)

describe('dataGuards', () => {
  it('guards the frequent types: chunks, messages, tool calls and results, steps, turn starts and ends, status, inbox, subagents', () => {
    expect(guarded.sort()).toStrictEqual(Object.keys(full).sort())
    for (const t of guarded) expect([t, dataGuardOf(t)?.(full[t])]).toStrictEqual([t, true])
  })

  it('accepts exactly what the codec accepts, on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.constantFrom(...guarded), fc.jsonValue({ maxDepth: 4 }), (type, value) => {
        expect(dataGuardOf(type)?.(value)).toBe(dataCodecs[type].is(value))
      }),
      { numRuns: numRuns() * 10 },
    )
  })

  it('accepts exactly what the codec accepts, on valid data with one field replaced or removed', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...guarded).chain((type) => fc.tuple(fc.constant(type), fc.constantFrom(...paths(full[type])))),
        odd,
        ([type, path], x) => {
          const value = setAt(full[type], path, x)
          expect([type, path.join('.'), dataGuardOf(type)?.(value)]).toStrictEqual([type, path.join('.'), dataCodecs[type].is(value)])
        },
      ),
      { numRuns: numRuns() * 20 },
    )
  })
})
