/** core/idKey: the memoised `#` key of an id is `'#' + id` for every string, also past the memo's size. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { idKey } from '../../src/core/idKey.js'
import { numRuns } from '../support/arbitraries.js'

describe('idKey', () => {
  it("is '#' + id for any string, hostile names included", () => {
    for (const id of ['', '__proto__', 'constructor', 'sess-root-0001', '#', 'é\u0000']) expect(idKey(id)).toBe(`#${id}`)
    fc.assert(
      fc.property(fc.string(), (id) => {
        expect(idKey(id)).toBe(`#${id}`)
        expect(idKey(id)).toBe(`#${id}`)
      }),
      { numRuns: numRuns() * 10 },
    )
  })

  it('stays right when more ids than it remembers pass through (the memo starts over)', () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => `id-${i}`)
    for (const id of ids) idKey(id)
    expect(ids.filter((id) => idKey(id) !== `#${id}`)).toStrictEqual([])
    expect(idKey('id-0')).toBe('#id-0')
  })
})
