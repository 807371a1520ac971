import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { currentResult, foldRuns, initialState } from '../../src/core/fold.js'
import { resumeFold } from '../../src/core/resumeFold.js'
import { decodeFoldState, encodeFoldState } from '../../src/core/FoldStateCodec.js'
import { numRuns, validTraceArb } from '../support/arbitraries.js'

const runs = numRuns()
console.log(`resume properties: ${runs} runs (FC_NUM_RUNS)`)

describe('resumable fold', () => {
  it('fold a prefix, checkpoint as JSON, decode, fold the rest = fold the whole', () => {
    fc.assert(
      fc.property(validTraceArb, fc.nat(), (trace, cut) => {
        const k = cut % (trace.length + 1)
        const first = resumeFold(initialState(), trace.slice(0, k))
        if (E.isLeft(first)) throw first.left
        const restored = decodeFoldState(encodeFoldState(first.right.state))
        if (E.isLeft(restored)) throw restored.left
        const second = resumeFold(restored.right, trace.slice(k))
        if (E.isLeft(second)) throw second.left
        const whole = foldRuns(trace)
        if (E.isLeft(whole)) throw whole.left
        const closed = [...first.right.closed, ...second.right.closed]
        const final = second.right.state.run.draft.hasContent || closed.length === 0 ? [currentResult(second.right.state)] : []
        expect([...closed, ...final]).toStrictEqual(whole.right)
      }),
      { numRuns: runs },
    )
  })

  it('rejects a checkpoint that is not a state, naming the path', () => {
    const bad = decodeFoldState(JSON.stringify({ ...initialState(), events: 'many' }))
    expect(E.isLeft(bad) && [bad.left.path, bad.left.expected]).toStrictEqual(['events', 'number'])
    expect(E.isLeft(decodeFoldState('{nope'))).toBe(true)
  })
})
