/**
 * Types of the vocabulary API: `endingTo` is typed per system, the readers take `unknown`, and the package
 * root exports the same functions.
 */
import type { Either } from 'fp-ts/lib/Either.js'
import { describe, expect, expectTypeOf, it } from 'vitest'
import type { ProtocolError } from '../../src/core/ProtocolError.js'
import type { RunEnding } from '../../src/core/RunEnding.js'
import * as root from '../../src/index.js'
import {
  endingFrom,
  endingFromEither,
  endingTo,
  structuredOutputFrom,
  vocabularySystems,
  type AcpStopReason,
  type DeputyStop,
  type DshTurnEndReason,
  type Llm4sStatus,
  type SwiftideStopReason,
  type VocabularySystem,
} from '../../src/vocabularies/index.js'

const ending: RunEnding = { kind: 'answered' }

describe('vocabulary types', () => {
  it('types endingTo per system', () => {
    expectTypeOf(endingTo('deputy', ending)).toEqualTypeOf<DeputyStop>()
    expectTypeOf(endingTo('dsh', ending)).toEqualTypeOf<DshTurnEndReason | null>()
    expectTypeOf(endingTo('llm4s', ending)).toEqualTypeOf<Llm4sStatus | null>()
    expectTypeOf(endingTo('swiftide', ending)).toEqualTypeOf<SwiftideStopReason | null>()
    expectTypeOf(endingTo('acp', ending)).toEqualTypeOf<AcpStopReason | null>()
    expect(() =>
      // @ts-expect-error - not a system
      endingTo('openai', ending),
    ).toThrow(TypeError)
  })

  it('reads unknown input', () => {
    expectTypeOf(endingFrom).parameter(1).toEqualTypeOf<unknown>()
    expectTypeOf(endingFrom('acp', 1)).toEqualTypeOf<RunEnding>()
    expectTypeOf(endingFromEither('acp', 1)).toEqualTypeOf<Either<ProtocolError, RunEnding>>()
    expectTypeOf(structuredOutputFrom('swiftide', 1)).toEqualTypeOf<unknown>()
    expectTypeOf(vocabularySystems).toEqualTypeOf<readonly ['deputy', 'dsh', 'llm4s', 'swiftide', 'acp']>()
    expectTypeOf<VocabularySystem>().toEqualTypeOf<'deputy' | 'dsh' | 'llm4s' | 'swiftide' | 'acp'>()
  })

  it('is exported from the package root', () => {
    expect(root.endingFrom).toBe(endingFrom)
    expect(root.endingFromEither).toBe(endingFromEither)
    expect(root.endingTo).toBe(endingTo)
    expect(root.structuredOutputFrom).toBe(structuredOutputFrom)
    expect(root.vocabularySystems).toBe(vocabularySystems)
  })
})
