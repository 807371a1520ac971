/**
 * core/firstError: the first mismatch of a value against a codec, found without io-ts's decode (which builds one
 * error per failing element). It names the same data path and expected codec as io-ts's first error, and a huge
 * array of bad elements costs one error, not one per element.
 */
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { dataCodecs, reasonCodecs } from '../../src/core/events.js'
import { FoldStateCodec } from '../../src/core/FoldStateCodec.js'
import { firstError } from '../../src/core/firstError.js'
import { ioTsExpected, ioTsPath } from '../../src/core/ProtocolError.js'
import { decodeEvent } from '../../src/core/decodeEvent.js'
import { numRuns } from '../support/arbitraries.js'

const codecs = [...Object.values(dataCodecs), ...Object.values(reasonCodecs), FoldStateCodec]

describe('firstError', () => {
  it('names the path and expected codec of io-ts’s first error, for every event and reason codec', () => {
    fc.assert(
      fc.property(fc.constantFrom(...codecs), fc.jsonValue({ maxDepth: 4 }), (codec, value) => {
        const ours = firstError(codec, value)
        const theirs = codec.decode(value)
        // our fast guards reject an array where io-ts's object check lets one through (events.ts struct): no case here
        fc.pre(E.isRight(theirs) === codec.is(value))
        if (E.isRight(theirs)) {
          expect(ours).toBeUndefined()
        } else {
          const want = theirs.left[0]
          expect(ours && want && [ioTsPath(ours.context), ioTsExpected(ours.context)]).toStrictEqual(
            want && [ioTsPath(want.context), ioTsExpected(want.context)],
          )
        }
      }),
      { numRuns: numRuns() * 10 },
    )
  })

  it('a two-million-element array of bad items is one error naming the first bad index (hardening: bounded validation)', () => {
    const inserted: Array<unknown> = Array.from({ length: 2_000_000 }, (_, i) => ({ id: `m${i}` }))
    inserted[1_999_998] = { id: 7 }
    inserted[1_999_999] = 'x'
    const e = firstError(dataCodecs['agent/inbox/spliced'], { inserted })
    expect(e && [ioTsPath(e.context), ioTsExpected(e.context)]).toStrictEqual(['inserted.1999998.id', 'string'])
    const r = decodeEvent({ type: 'agent/inbox/spliced', sessionId: 's', data: { inserted } }, 0)
    expect(E.isRight(r) && r.right.type === 'run-outcome/ignored' ? r.right.data : null).toStrictEqual({
      originalType: 'agent/inbox/spliced',
      why: 'malformed',
      path: 'inserted.1999998.id',
      expected: 'string',
    })
  })

  it('a suspended turn/end with a huge pending list of bad items is a ProtocolError naming the first bad item', () => {
    const pending = Array.from({ length: 1_000_000 }, () => ({ id: 1, kind: 'approval' }))
    const r = decodeEvent({ type: 'turn/end', sessionId: 's', data: { reason: { kind: 'suspended', pending } } }, 3)
    expect(E.isLeft(r) && [r.left.kind, r.left.path, r.left.expected, r.left.errors.length]).toStrictEqual(['turn-end', 'reason.pending.0.id', 'string', 1])
  })
})
