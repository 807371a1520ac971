/**
 * Round-trip properties (fast-check): for every system and every ending it can express,
 * `endingFrom(s, endingTo(s, e))` equals `e` up to the fields that system carries; writing any ending never
 * throws, lands on the documented kinds, and is stable after one trip.
 */
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { foldEvents } from '../../src/core/fold.js'
import { endingFrom, endingFromEither, endingTo, vocabularySystems } from '../../src/vocabularies/index.js'
import { anyEnding, carried, expressible, kindsAfterRoundTrip, numRuns } from './arbitraries.js'

console.log(`vocabularies round-trip properties: FC_NUM_RUNS=${numRuns}`)

describe.each(vocabularySystems)('%s', (system) => {
  it('endingFrom(s, endingTo(s, e)) equals e up to the fields s carries', () => {
    fc.assert(
      fc.property(expressible[system], (e) => {
        const written = endingTo(system, e)
        expect(written).not.toBeNull()
        expect(endingFromEither(system, written)).toStrictEqual(E.right(carried[system](e)))
      }),
      { numRuns },
    )
  })

  it('carried(e) is a fixpoint: it round-trips exactly', () => {
    fc.assert(
      fc.property(expressible[system], (e) => {
        const c = carried[system](e)
        expect(endingFrom(system, endingTo(system, c))).toStrictEqual(c)
      }),
      { numRuns },
    )
  })

  it('writes any ending without throwing, as one of the documented kinds', () => {
    fc.assert(
      fc.property(anyEnding, (e) => {
        const written = endingTo(system, e)
        const allowed = kindsAfterRoundTrip[system][e.kind]
        if (written === null) {
          expect(allowed).toContain(null)
        } else {
          expect(allowed).toContain(endingFrom(system, written).kind)
        }
      }),
      { numRuns },
    )
  })

  it('never writes a non-answered ending as an answer (except ACP end_turn, SPEC §5)', () => {
    fc.assert(
      fc.property(
        anyEnding.filter((e) => e.kind !== 'answered'),
        (e) => {
          const written = endingTo(system, e)
          if (written === null) return
          const back = endingFrom(system, written)
          if (system === 'acp' && (e.kind === 'blocked' || e.kind === 'stopped')) return
          expect(back.kind).not.toBe('answered')
        },
      ),
      { numRuns },
    )
  })

  it('is stable after one trip: endingTo ∘ endingFrom is idempotent on written values', () => {
    fc.assert(
      fc.property(anyEnding, (e) => {
        const w1 = endingTo(system, e)
        if (w1 === null) return
        const w2 = endingTo(system, endingFrom(system, w1))
        if (w2 === null) return
        expect(endingTo(system, endingFrom(system, w2))).toStrictEqual(w2)
      }),
      { numRuns },
    )
  })

  it('writes only values it reads back without a ProtocolError', () => {
    fc.assert(
      fc.property(anyEnding, (e) => {
        const written = endingTo(system, e)
        if (written !== null) expect(E.isRight(endingFromEither(system, written))).toBe(true)
      }),
      { numRuns },
    )
  })

  it('writes JSON: the written value survives JSON.stringify/parse unchanged', () => {
    fc.assert(
      fc.property(expressible[system], (e) => {
        const written = endingTo(system, e)
        expect(JSON.parse(JSON.stringify(written)) as unknown).toStrictEqual(written)
      }),
      { numRuns },
    )
  })
})

describe('dsh and the native fold', () => {
  it('a turn/end reason gives the same ending here as in a native log', () => {
    fc.assert(
      fc.property(anyEnding, (e) => {
        const reason = endingTo('dsh', e)
        if (reason === null) return
        const log = [
          { type: 'turn/start', sessionId: 'root', data: { turn: 1 } },
          { type: 'turn/end', sessionId: 'root', data: { turn: 1, reason } },
        ]
        const folded = foldEvents(log)
        expect(E.isRight(folded)).toBe(true)
        if (E.isRight(folded)) expect(folded.right.ending).toStrictEqual(endingFrom('dsh', reason))
      }),
      { numRuns },
    )
  })
})
