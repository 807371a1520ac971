/**
 * −0 in an event: JSON writes it as 0, so a checkpoint (JSON) would restore a different value than the fold held
 * (found by the resume property at 1000 runs). The library's plain copy of an event turns −0 into 0, so a fold
 * and its checkpointed continuation agree.
 */
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeFoldState, encodeFoldState } from '../../src/core/FoldStateCodec.js'
import { foldRuns, initialState } from '../../src/core/fold.js'
import { resumeFold } from '../../src/core/resumeFold.js'

const suspended = {
  method: 'session.event',
  params: {
    sessionId: 'R',
    event: { type: 'turn/end', data: { reason: { kind: 'suspended', pending: [{ id: 'p', kind: 'approval', arguments: [-0, { x: -0 }] }] } } },
  },
}

describe('−0 in event data', () => {
  it('is held as 0, the value a JSON checkpoint restores', () => {
    const whole = foldRuns([suspended])
    expect(E.isRight(whole)).toBe(true)
    const pending = E.isRight(whole) && whole.right[0]?.ending.kind === 'suspended' ? whole.right[0].ending.pending : []
    expect(pending[0]?.arguments).toStrictEqual([0, { x: 0 }])
    expect(Object.is((pending[0]?.arguments as Array<unknown>)[0], -0)).toBe(false)

    const resumed = resumeFold(initialState({}), [suspended])
    expect(E.isRight(resumed)).toBe(true)
    if (!E.isRight(resumed)) return
    const again = decodeFoldState(JSON.parse(JSON.stringify(encodeFoldState(resumed.right.state))))
    expect(E.isRight(again) && JSON.stringify(encodeFoldState(again.right))).toBe(JSON.stringify(encodeFoldState(resumed.right.state)))
  })
})
