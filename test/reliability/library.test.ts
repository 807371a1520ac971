/**
 * The library on values built by hand (issue 14, "Library"): `encodeFoldState` on a state that refers to itself
 * fails clearly (a `TypeError` naming the cycle), at once, even when the cycle is reached twice over at every
 * level (`a.x = a; a.y = a`: the 512-level cut used to take 2⁵¹² steps); a value that shares one part many times
 * over is bounded by `MAX_JSON_NODES`; the fold's own copy of an event that refers to itself twice is bounded
 * by `MAX_EVENT_VALUES`. (Non-iterables, throwing getters, `resumeFold` on a malformed state, `maxDocumentBytes`
 * and the sparse array of length 2³²−1 are in `test/core/hardening.test.ts`.)
 */
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { boundedJson, boundedJsonWithin, MAX_JSON_NODES } from '../../src/core/boundedJson.js'
import { decodeFoldState, encodeFoldState } from '../../src/core/FoldStateCodec.js'
import { foldEvents, NativeFolder } from '../../src/core/fold.js'
import { MAX_EVENT_VALUES } from '../../src/core/plainData.js'

const ev = (type: string, data: unknown) => ({ type, sessionId: 's', data })

describe('encodeFoldState on a state built by hand', () => {
  const state = () => {
    const f = new NativeFolder()
    f.push(ev('turn/start', { turn: 1 }))
    f.push(ev('assistant/chunk', { turn: 1, step: 1, chunk: 'hi' }))
    return f.state
  }

  it('a state that refers to itself is a TypeError naming the cycle', () => {
    const once = state() as unknown as Record<string, unknown>
    once['loop'] = once
    expect(() => encodeFoldState(once as never)).toThrow(new TypeError('the value refers to itself (a cycle): it has no JSON text'))
    // twice over at every level (`a.x = a; a.y = a`): the work is counted in bounds.test.ts
  })

  it('a state the fold built still round-trips; a deep payload is still cut at 512 levels', () => {
    const s = state()
    const back = decodeFoldState(encodeFoldState(s))
    expect(E.isRight(back) && back.right).toStrictEqual(JSON.parse(JSON.stringify(s)))
    expect(s.run.draft.turns).toBe(1)
    let deep: unknown = 1
    for (let i = 0; i < 100_000; i++) deep = [deep]
    expect(boundedJson({ deep }).length).toBe('{"deep":'.length + 2 * 511 + 'null'.length + 1)
  })

  it(`a value sharing one part many times over stops at the node budget (${MAX_JSON_NODES.toLocaleString('en-US')}; here 10,000): a RangeError, never unbounded`, () => {
    // 40 levels, each holding the next twice: 2^40 paths, and a depth JSON.stringify cannot take below it
    let deep: unknown = 1
    for (let i = 0; i < 20_000; i++) deep = [deep]
    let v: unknown = deep
    for (let i = 0; i < 40; i++) v = { a: v, b: v }
    expect(() => boundedJsonWithin(v, 10_000)).toThrow(new RangeError('the value holds more than 10000 objects and arrays to write'))
    // the same shape, 8 levels: 2^8 copies of a 512-level cut, under the budget, written
    let w: unknown = deep
    for (let i = 0; i < 8; i++) w = { a: w, b: w }
    expect(boundedJsonWithin(w, 1_000_000).match(/null/g)).toHaveLength(256)
  })
})

describe('the fold on an event that refers to itself twice over', () => {
  it(`its plain copy stops at ${MAX_EVENT_VALUES.toLocaleString('en-US')} values: a ProtocolError, never a hang`, () => {
    const e: Record<string, unknown> = { type: 'assistant/message', sessionId: 's' }
    e['data'] = { message: { content: [{ type: 'text', text: 'ok' }] }, x: e, y: e }
    const r = foldEvents([ev('turn/start', { turn: 1 }), e])
    expect(E.isLeft(r) && [r.left.kind, r.left.index]).toStrictEqual(['event', 1])
  })
})
