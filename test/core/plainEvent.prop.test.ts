/**
 * core/dataGuards `isPlainEvent`: the native translator's one-pass check. Whatever it accepts, the decoder
 * (`decodeEventRaw`) hands on by identity — on valid events, on valid events with one field replaced or removed,
 * and on arbitrary JSON — so skipping the decoder for those values changes no result.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isPlainEvent } from '../../src/core/dataGuards.js'
import { decodeEventRaw } from '../../src/core/decodeEvent.js'
import { anyEventArb, numRuns } from '../support/arbitraries.js'
import { paths, setAt } from '../support/valuePaths.js'

/** Valid bare events of every type the check knows, as a native log holds them. */
const valid: Array<Record<string, unknown>> = [
  { type: 'assistant/chunk', sessionId: 's', seq: 3, time: 1796029200007, data: { turn: 1, step: 1, chunk: { type: 'text-delta', text: 'hi' } } },
  {
    type: 'assistant/message',
    sessionId: 's',
    seq: 4,
    time: '2026-12-01T00:00:00.000Z',
    data: { turn: 1, step: 1, message: { content: [{ type: 'text', text: 'a' }] }, usage: { inputTokens: 5, outputTokens: 2 }, model: 'm', costUsd: 0.1 },
  },
  { type: 'tool/call', sessionId: 's', seq: 5, data: { callId: 'c', name: 'Bash', arguments: {} } },
  { type: 'tool/result', sessionId: 's', seq: 6, data: { callId: 'c', message: 'ok', error: { code: 1 } } },
  { type: 'step/start', sessionId: 's', seq: 7, data: { turn: 1, step: 2 } },
  { type: 'step/end', sessionId: 's', data: { turn: 1, step: 2 } },
  { type: 'turn/start', sessionId: 's', data: { turn: 2 } },
  { type: 'session/status', sessionId: 's', seq: 8, data: { status: 'idle' } },
  { type: 'agent/inbox/spliced', sessionId: 's', data: { inserted: [{ id: 'm' }] } },
  { type: 'subagent/started', sessionId: 's', data: { parentSessionId: 's', childSessionId: 'k' } },
  { type: 'turn/end', sessionId: 's', data: { reason: { kind: 'completed' } } },
  // a translated event's own line and record type: valid, but left to the decoder
  { type: 'assistant/chunk', sessionId: 's', line: 3, recordType: 'raw', data: { turn: 1 } },
]

const odd = fc.oneof(
  fc.constantFrom(undefined, null, 0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '', 'x', true, [], {}, { kind: 1 }, [{}], [1]),
  fc.constantFrom('run-outcome/ignored', 'turn/end', 'assistant/chunk', 'todo/write', 'session.event'),
  fc.jsonValue({ maxDepth: 2 }),
)

/** The property: accepted ⇒ decoded to itself. Returns whether it was accepted. */
const check = (v: unknown): boolean => {
  if (!isPlainEvent(v)) return false
  expect(decodeEventRaw(v, 0)).toBe(v)
  return true
}

describe('isPlainEvent', () => {
  it('accepts the common valid events (not turn/end, whose reason is the decoder’s, nor translated lines) and they decode to themselves', () => {
    expect(valid.map((v) => [v['type'], check(v)])).toStrictEqual(valid.map((v) => [v['type'], v['type'] !== 'turn/end' && v['line'] === undefined]))
  })

  it('accepts only what the decoder hands on unchanged: valid events with one field replaced or removed', () => {
    let accepted = 0
    let refused = 0
    fc.assert(
      fc.property(
        fc.constantFrom(...valid).chain((v) => fc.tuple(fc.constant(v), fc.constantFrom(...paths(v)))),
        odd,
        ([v, path], x) => {
          if (check(setAt(v, path, x))) accepted++
          else refused++
        },
      ),
      { numRuns: numRuns() * 30 },
    )
    // both sides were exercised
    expect(accepted).toBeGreaterThan(100)
    expect(refused).toBeGreaterThan(100)
  })

  it('accepts only what the decoder hands on unchanged, on arbitrary JSON and arbitrary events', () => {
    fc.assert(
      fc.property(fc.oneof(anyEventArb, fc.jsonValue({ maxDepth: 4 })), (v) => {
        check(v)
      }),
      { numRuns: numRuns() * 10 },
    )
  })
})
