import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { from, lastValueFrom, toArray, concatAll } from 'rxjs'
import { describe, expect, it } from 'vitest'
import { foldEvents } from '../../src/core/fold.js'
import { reduceRun, scanRun } from '../../src/operators/index.js'
import { anyEventArb, numRuns, validTraceArb } from '../support/arbitraries.js'

const runs = numRuns()
console.log(`fold properties: ${runs} runs each (FC_NUM_RUNS)`)

/** Splits `xs` into chunks at the given cut points. */
const chunk = <A>(xs: ReadonlyArray<A>, cuts: ReadonlyArray<number>): A[][] => {
  const points = [...new Set(cuts.map((c) => c % (xs.length + 1)))].sort((a, b) => a - b)
  const out: A[][] = []
  let prev = 0
  for (const p of points) {
    out.push(xs.slice(prev, p))
    prev = p
  }
  out.push(xs.slice(prev))
  return out
}

describe('fold properties', () => {
  it('reduceRun() over any chunking of a valid trace equals foldEvents', async () => {
    await fc.assert(
      fc.asyncProperty(validTraceArb, fc.array(fc.nat(), { maxLength: 6 }), async (trace, cuts) => {
        const expected = foldEvents(trace)
        expect(E.isRight(expected)).toBe(true)
        const actual = await lastValueFrom(from(chunk(trace, cuts)).pipe(concatAll(), reduceRun()))
        expect(actual).toStrictEqual(E.isRight(expected) ? expected.right : undefined)
      }),
      { numRuns: runs },
    )
  })

  it('the i-th scanRun() emission equals the fold of the first i events', async () => {
    await fc.assert(
      fc.asyncProperty(validTraceArb, async (trace) => {
        const emitted = await lastValueFrom(from(trace).pipe(scanRun(), toArray()))
        expect(emitted).toHaveLength(trace.length)
        emitted.forEach((snapshot, i) => {
          const prefix = foldEvents(trace.slice(0, i + 1))
          expect(E.isRight(prefix) && prefix.right).toStrictEqual(snapshot)
        })
      }),
      { numRuns: Math.max(10, Math.floor(runs / 4)) },
    )
  })

  it('operator ≡ fold for arbitrary (also invalid) input: same result or same error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyEventArb, { maxLength: 20 }), async (inputs) => {
        const expected = foldEvents(inputs)
        const actual = await lastValueFrom(from(inputs).pipe(reduceRun())).then(
          (r) => E.right(r),
          (e: unknown) => E.left(e),
        )
        if (E.isRight(expected)) expect(actual).toStrictEqual(expected)
        else {
          expect(E.isLeft(actual)).toBe(true)
          if (E.isLeft(actual)) expect((actual.left as { toJSON(): unknown }).toJSON()).toStrictEqual(expected.left.toJSON())
        }
      }),
      { numRuns: runs },
    )
  })

  it('foldEvents never throws on arbitrary JSON values or anything', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.jsonValue(), fc.anything()), { maxLength: 20 }), (inputs) => {
        const r = foldEvents(inputs)
        expect(E.isLeft(r) || E.isRight(r)).toBe(true)
      }),
      { numRuns: runs },
    )
  })

  it('no input can change Object.prototype', () => {
    fc.assert(
      fc.property(fc.array(anyEventArb, { maxLength: 20 }), (inputs) => {
        foldEvents(inputs)
        expect(Object.keys(Object.prototype)).toStrictEqual([])
        expect(({} as Record<string, unknown>)['inputTokens']).toBeUndefined()
      }),
      { numRuns: runs },
    )
  })
})
