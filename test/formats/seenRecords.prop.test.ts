/**
 * `SeenRecords.claimRecord` (src/formats/claudeCode/seen.ts), the one call the transcript translator makes per
 * record, against what it stands for: `copied` of each identity, then `claim` of each. Any sequence of records of
 * any files, with identities drawn from a small pool (so repeats and copies are frequent) and caps small enough
 * that the oldest identities are forgotten: the same answers, the same number of identities after each record, and
 * the same identities remembered, by the same files, at the end.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SeenRecords } from '../../src/formats/claudeCode/seen.js'
import { numRuns } from '../support/arbitraries.js'

const key = fc.option(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), { nil: undefined })
const record = fc.record({ a: key, b: key.map((k) => (k === undefined ? undefined : `m${k}`)), input: fc.nat(3) })

/** The two calls per identity that `claimRecord` does at once. */
const byCalls = (s: SeenRecords, a: string | undefined, b: string | undefined, input: number): boolean => {
  if ((a !== undefined && s.copied(a, input)) || (b !== undefined && s.copied(b, input))) return true
  if (a !== undefined) s.claim(a, input)
  if (b !== undefined) s.claim(b, input)
  return false
}

/** What a set remembers, in its order: every key of the pool with the file that claimed it (-1: none), by probing. */
const remembered = (s: SeenRecords): Array<string> => {
  const out: Array<string> = []
  for (const k of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'ma', 'mb', 'mc', 'md', 'me', 'mf', 'mg', 'mh']) {
    let owner = -1
    for (let i = 0; i < 4; i++) if (s.copied(k, (i + 1) % 4) && !s.copied(k, i)) owner = i
    out.push(`${k}:${owner}`)
  }
  return out
}

describe('SeenRecords.claimRecord', () => {
  it('answers and remembers what copied() then claim() of each identity would, at any cap', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 60 }), fc.integer({ min: 1, max: 20 }), (records, cap) => {
        const one = new SeenRecords(cap)
        const two = new SeenRecords(cap)
        for (const r of records) {
          expect(one.claimRecord(r.a, r.b, r.input)).toBe(byCalls(two, r.a, r.b, r.input))
          expect(one.size).toBe(two.size)
        }
        expect(remembered(one)).toStrictEqual(remembered(two))
      }),
      { numRuns: Math.max(numRuns(), 500) },
    )
  })

  it('a record is a copy when another file claimed either identity; then nothing of it is claimed', () => {
    const s = new SeenRecords()
    expect(s.claimRecord('u1', 'm1', 0)).toBe(false)
    expect(s.claimRecord('u2', 'm1', 1)).toBe(true)
    // u2 was not claimed by the copy: file 2 may claim it
    expect(s.claimRecord('u2', undefined, 2)).toBe(false)
    expect(s.copied('u2', 1)).toBe(true)
    expect(s.claimRecord('u1', undefined, 0)).toBe(false)
    expect(s.size).toBe(3)
  })
})
