/**
 * Unknown and malformed values: `endingFrom` never throws and never answers for a value the system does not
 * define; `endingFromEither` always returns `Left` or `Right`; a `ProtocolError` never carries input values;
 * inherited properties (`__proto__`, `constructor`) are never read; 100,000-level values do not break anything.
 */
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isProtocolError } from '../../src/core/ProtocolError.js'
import { EqRunEnding, type RunEnding } from '../../src/core/RunEnding.js'
import { endingFrom, endingFromEither, endingTo, structuredOutputFrom, vocabularySystems, type VocabularySystem } from '../../src/vocabularies/index.js'
import { hostileNames, numRuns } from './arbitraries.js'

console.log(`vocabularies totality properties: FC_NUM_RUNS=${numRuns}`)

const hasOwn = (u: unknown, key: string): boolean => typeof u === 'object' && u !== null && Object.hasOwn(u, key)
const get = (u: unknown, key: string): unknown => (hasOwn(u, key) ? (u as Record<string, unknown>)[key] : undefined)

/** The forms each system defines as an answer; anything else must not read as answered. */
const isAnswerForm = (system: VocabularySystem, v: unknown): boolean => {
  const isObject = typeof v === 'object' && v !== null && !Array.isArray(v)
  switch (system) {
    case 'deputy':
      return isObject && get(v, 'stopReason') === 'complete' && get(v, 'by') == null
    case 'dsh':
      return isObject && get(v, 'kind') === 'completed'
    case 'llm4s':
      return isObject && get(v, 'kind') === 'COMPLETED'
    case 'swiftide':
      return v === 'NoNewMessages' || (isObject && Object.keys(v).length === 1 && (hasOwn(v, 'NoNewMessages') || hasOwn(v, 'RequestedByTool')))
    case 'acp':
      return v === 'end_turn'
  }
}

/** Checks the contract on one value, for one system. */
const checkTotal = (system: VocabularySystem, value: unknown): RunEnding => {
  const ending = endingFrom(system, value)
  const decoded = endingFromEither(system, value)
  expect(E.isLeft(decoded) || E.isRight(decoded)).toBe(true)
  if (E.isLeft(decoded)) {
    expect(isProtocolError(decoded.left)).toBe(true)
    expect(ending.kind).toBe('failed')
    if (ending.kind === 'failed') {
      expect(ending.reason).toBe('unrecognized')
      if (value === undefined) expect('raw' in ending).toBe(false)
      else expect(ending.raw).toBe(value)
    }
  } else {
    // EqRunEnding is iterative: `raw` and `arguments` may be 100,000 levels deep.
    expect(EqRunEnding.equals(decoded.right, ending)).toBe(true)
  }
  if (ending.kind === 'answered') expect(isAnswerForm(system, value)).toBe(true)
  structuredOutputFrom(system, value)
  return ending
}

const anythingDeep = fc.anything({
  maxDepth: 4,
  key: fc.oneof(fc.string(), fc.constantFrom(...hostileNames, 'kind', 'stopReason', 'by', 'Other', 'AgentFailed')),
  withBoxedValues: true,
  withMap: true,
  withSet: true,
  withObjectString: true,
  withNullPrototype: true,
  withBigInt: true,
  withDate: true,
  withTypedArray: true,
  withSparseArray: true,
  withUnicodeString: true,
})

/** Values shaped like each vocabulary, with any value in any field: reaches every field check. */
const anyField = fc.oneof(fc.anything({ maxDepth: 2 }), fc.string(), fc.constant(null))
const shaped: Readonly<Record<VocabularySystem, fc.Arbitrary<unknown>>> = {
  deputy: fc.record(
    {
      stopReason: fc.oneof(fc.constantFrom('complete', 'request_limit', 'error', 'approval_pending'), anyField),
      finishReason: fc.oneof(fc.constantFrom('max_tokens', 'stop'), anyField),
      by: fc.oneof(fc.constantFrom('caller', 'approval'), anyField),
    },
    { requiredKeys: [] },
  ),
  dsh: fc.record(
    {
      kind: fc.oneof(fc.constantFrom('completed', 'aborted', 'blocked', 'limit', 'suspended', 'error', 'interrupted', 'max-tokens'), anyField),
      reason: fc.oneof(fc.record({ kind: anyField, reason: anyField }, { requiredKeys: [] }), anyField),
      guardrail: anyField,
      phase: fc.oneof(fc.constantFrom('input', 'output'), anyField),
      message: anyField,
      field: anyField,
      actual: anyField,
      limit: anyField,
      pending: fc.oneof(fc.array(fc.record({ id: anyField, kind: anyField, toolName: anyField, arguments: anyField }, { requiredKeys: [] })), anyField),
      error: fc.oneof(fc.record({ message: anyField, code: anyField, name: anyField }, { requiredKeys: [] }), anyField),
    },
    { requiredKeys: [] },
  ),
  llm4s: fc.record(
    {
      kind: fc.oneof(fc.constantFrom('COMPLETED', 'BLOCKED', 'STEP_LIMIT_REACHED', 'SUSPENDED'), anyField),
      answer: anyField,
      guardrail: anyField,
      reason: anyField,
      pending: fc.oneof(
        fc.array(
          fc.record(
            {
              id: anyField,
              kind: fc.oneof(fc.constantFrom('APPROVAL', 'QUESTION'), anyField),
              toolName: anyField,
              argumentsJson: fc.oneof(fc.json(), anyField),
              reason: anyField,
              questionJson: anyField,
            },
            { requiredKeys: [] },
          ),
        ),
        anyField,
      ),
    },
    { requiredKeys: [] },
  ),
  swiftide: fc.oneof(
    fc.constantFrom('NoNewMessages', 'Error', 'Paused'),
    fc
      .tuple(
        fc.constantFrom('RequestedByTool', 'AgentFailed', 'ToolCallsOverLimit', 'FeedbackRequired', 'Other', 'Error', 'Nope'),
        fc.oneof(
          fc.record({ id: anyField, name: anyField, args: fc.oneof(fc.json(), anyField) }, { requiredKeys: [] }),
          fc.tuple(fc.record({ id: anyField, name: anyField }, { requiredKeys: [] }), anyField),
          fc.record({ tool_call: anyField, payload: anyField }, { requiredKeys: [] }),
          fc.json(),
          anyField,
        ),
      )
      .map(([tag, inner]) => ({ [tag]: inner })),
    anyField,
  ),
  acp: fc.oneof(fc.constantFrom('end_turn', 'max_tokens', 'cancelled', 'refusal', 'max_turn_requests'), anyField),
}

describe.each(vocabularySystems)('%s', (system) => {
  it('never throws and never answers on fc.anything()', () => {
    fc.assert(
      fc.property(anythingDeep, (value) => {
        checkTotal(system, value)
      }),
      { numRuns },
    )
  })

  it('never throws and never answers on fc.jsonValue()', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        checkTotal(system, value)
      }),
      { numRuns },
    )
  })

  it('never throws on values shaped like the vocabulary with any field values', () => {
    fc.assert(
      fc.property(shaped[system], (value) => {
        checkTotal(system, value)
      }),
      { numRuns },
    )
  })

  it('reads unknown strings as failed unrecognized (deputy: stopped, seed 000), keeping the string', () => {
    const known = new Set([
      'end_turn',
      'max_tokens',
      'max_turn_requests',
      'refusal',
      'cancelled',
      'NoNewMessages',
      'Error',
      'completed',
      'max-tokens',
      'context-window',
      'content-filter',
      'aborted',
      'blocked',
      'limit',
      'suspended',
      'error',
      'interrupted',
      'COMPLETED',
      'BLOCKED',
      'STEP_LIMIT_REACHED',
      'SUSPENDED',
    ])
    const unknown = fc.oneof(fc.string(), fc.constantFrom(...hostileNames)).filter((s) => !known.has(s))
    fc.assert(
      fc.property(unknown, (s) => {
        const wrapped: Readonly<Record<VocabularySystem, unknown>> = {
          deputy: { stopReason: s },
          dsh: { kind: s },
          llm4s: { kind: s },
          swiftide: s,
          acp: s,
        }
        const ending = endingFrom(system, wrapped[system])
        if (system === 'deputy') {
          expect(ending.kind).toBe('stopped')
        } else {
          expect(ending).toStrictEqual({ kind: 'failed', reason: 'unrecognized', raw: s })
        }
      }),
      { numRuns },
    )
  })

  it('reads numbers, null, undefined, booleans, arrays and functions as malformed, never throwing', () => {
    const values: ReadonlyArray<unknown> = [0, -1, Number.NaN, Infinity, 1n, null, undefined, true, [], [1, 2], () => 1, Symbol('s')]
    for (const value of values) {
      const decoded = endingFromEither(system, value)
      expect(E.isLeft(decoded)).toBe(true)
      checkTotal(system, value)
    }
  })
})

describe('hostile objects', () => {
  it('never reads inherited properties', () => {
    const inherited = Object.create({ stopReason: 'complete', kind: 'completed', NoNewMessages: null }) as object
    expect(endingFrom('deputy', inherited)).toStrictEqual({ kind: 'failed', reason: 'unrecognized', raw: inherited })
    expect(endingFrom('dsh', inherited)).toStrictEqual({ kind: 'failed', reason: 'unrecognized', raw: inherited })
    expect(endingFrom('llm4s', inherited)).toStrictEqual({ kind: 'failed', reason: 'unrecognized', raw: inherited })
    expect(endingFrom('swiftide', inherited)).toStrictEqual({ kind: 'failed', reason: 'unrecognized', raw: inherited })
  })

  it('treats __proto__-keyed JSON as data', () => {
    const deputy = JSON.parse('{"__proto__": {"stopReason": "complete"}}') as unknown
    expect(E.isLeft(endingFromEither('deputy', deputy))).toBe(true)
    const dsh = JSON.parse('{"__proto__": {"kind": "completed"}, "kind": "__proto__"}') as unknown
    expect(endingFrom('dsh', dsh)).toStrictEqual({ kind: 'failed', reason: 'unrecognized', raw: '__proto__' })
    const swiftide = JSON.parse('{"__proto__": "NoNewMessages"}') as unknown
    expect(endingFrom('swiftide', swiftide)).toStrictEqual({ kind: 'failed', reason: 'unrecognized', raw: swiftide })
    const stopped = endingFrom('deputy', { stopReason: 'constructor', by: 'toString' })
    expect(stopped).toStrictEqual({ kind: 'stopped', by: 'toString', reason: 'constructor' })
    expect(endingTo('deputy', { kind: 'stopped', by: 'constructor' })).toStrictEqual({ stopReason: 'constructor', by: 'constructor' })
    expect(endingTo('dsh', { kind: 'stopped', by: '__proto__' })).toStrictEqual({ kind: 'aborted', reason: { kind: '__proto__' } })
    expect(endingFrom('llm4s', { kind: 'SUSPENDED', pending: [{ id: '__proto__', kind: 'constructor' }] })).toStrictEqual({
      kind: 'suspended',
      pending: [{ id: '__proto__', kind: 'constructor' }],
    })
  })

  it('survives getters and proxies that throw', () => {
    const getter = Object.defineProperty({}, 'stopReason', {
      enumerable: true,
      get() {
        throw new Error('boom')
      },
    })
    const proxy = new Proxy(
      {},
      {
        get() {
          throw new Error('boom')
        },
        getOwnPropertyDescriptor() {
          throw new Error('boom')
        },
        ownKeys() {
          throw new Error('boom')
        },
      },
    )
    for (const system of vocabularySystems) {
      for (const value of [getter, proxy]) {
        expect(() => endingFrom(system, value)).not.toThrow()
        expect(() => structuredOutputFrom(system, value)).not.toThrow()
        const decoded = endingFromEither(system, value)
        expect(E.isLeft(decoded)).toBe(true)
      }
    }
  })

  it('an unknown system is malformed, not a throw, when reading', () => {
    const system = 'nope' as VocabularySystem
    expect(endingFrom(system, 'end_turn')).toStrictEqual({ kind: 'failed', reason: 'unrecognized', raw: 'end_turn' })
    expect(E.isLeft(endingFromEither(system, 'end_turn'))).toBe(true)
    expect(structuredOutputFrom(system, 'end_turn')).toBeNull()
    expect(() => endingTo(system, { kind: 'answered' })).toThrow(TypeError)
  })
})

describe('errors carry no input values', () => {
  const marker = 'XSECRETX'
  const leaks: Readonly<Record<VocabularySystem, ReadonlyArray<unknown>>> = {
    deputy: [{ stopReason: { [marker]: marker } }, { stopReason: 'x', by: [marker] }, marker],
    dsh: [{ kind: [marker] }, { kind: 'aborted', reason: { kind: { m: marker } } }, { kind: 'error', error: { message: [marker] } }],
    llm4s: [{ kind: 'SUSPENDED', pending: [{ id: [marker], kind: marker }] }, marker],
    swiftide: [{ [marker]: 1, other: 2 }, { Other: [marker] }, { FeedbackRequired: { tool_call: { id: marker, name: [marker] } } }],
    acp: [[marker], { [marker]: marker }],
  }
  it.each(vocabularySystems)('%s', (system) => {
    for (const value of leaks[system]) {
      const decoded = endingFromEither(system, value)
      expect(E.isLeft(decoded)).toBe(true)
      if (E.isRight(decoded)) continue
      expect(decoded.left.message).not.toContain(marker)
      expect(JSON.stringify(decoded.left.toJSON())).not.toContain(marker)
      expect(decoded.left.path).not.toContain(marker)
    }
  })
})

describe('100,000-level values', () => {
  const depth = 100_000
  let deepArray: unknown = []
  let deepObject: unknown = {}
  for (let i = 0; i < depth; i++) {
    deepArray = [deepArray]
    deepObject = { a: deepObject }
  }
  const deepJsonText = '['.repeat(depth) + ']'.repeat(depth)

  it('are read without throwing, as values or inside fields', () => {
    const values: Readonly<Record<VocabularySystem, ReadonlyArray<unknown>>> = {
      deputy: [deepArray, deepObject, { stopReason: deepObject }],
      dsh: [deepArray, { kind: deepArray }, { kind: 'suspended', pending: [{ id: 'a', kind: 'approval', arguments: deepObject }] }],
      llm4s: [deepObject, { kind: 'SUSPENDED', pending: [{ id: 'a', kind: 'APPROVAL', argumentsJson: deepJsonText }] }],
      swiftide: [
        deepArray,
        { Deep: deepObject },
        { AgentFailed: deepJsonText },
        { AgentFailed: deepObject },
        { RequestedByTool: [{ id: 'c', name: 'stop' }, deepArray] },
      ],
      acp: [deepArray, deepObject],
    }
    for (const system of vocabularySystems) {
      for (const value of values[system]) checkTotal(system, value)
    }
    expect(structuredOutputFrom('swiftide', { RequestedByTool: [{ id: 'c', name: 'stop' }, deepArray] })).toBe(deepArray)
    expect(structuredOutputFrom('swiftide', { AgentFailed: deepObject })).toBe(deepObject)
    expect(Array.isArray(structuredOutputFrom('swiftide', { AgentFailed: deepJsonText }))).toBe(true)
  })

  it('are written without throwing: arguments that cannot be printed are omitted', () => {
    const ending: RunEnding = { kind: 'suspended', pending: [{ id: 'a', kind: 'approval', toolName: 't', arguments: deepArray }] }
    expect(endingTo('llm4s', ending)).toStrictEqual({ kind: 'SUSPENDED', pending: [{ id: 'a', kind: 'APPROVAL', toolName: 't' }] })
    expect(endingTo('swiftide', ending)).toStrictEqual({
      FeedbackRequired: { tool_call: { id: 'a', name: 't', args: null }, payload: null },
    })
    const dsh = endingTo('dsh', ending)
    expect(dsh !== null && dsh.kind === 'suspended').toBe(true)
    const failed: RunEnding = { kind: 'failed', reason: 'unrecognized', raw: deepObject }
    for (const system of vocabularySystems) expect(() => endingTo(system, failed)).not.toThrow()
    const bigint: RunEnding = { kind: 'suspended', pending: [{ id: 'b', kind: 'question', arguments: 1n }] }
    expect(endingTo('llm4s', bigint)).toStrictEqual({ kind: 'SUSPENDED', pending: [{ id: 'b', kind: 'QUESTION' }] })
  })
})
