import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodePriceTable, estimateCost, priceOf } from '../../src/core/prices.js'
import { finishRun, newDraft, addUsage, NO_MODEL } from '../../src/core/RunResult.js'

const run = (models: Array<[string, number, number, number, number | undefined]>) => {
  const d = newDraft()
  for (const [model, input, cached, output, cost] of models) addUsage(d, model, { inputTokens: input, cacheReadTokens: cached, outputTokens: output }, cost)
  return finishRun(d, { format: 'codex', sessionId: null, ending: { kind: 'answered' }, finishReason: null, response: null })
}
const table = E.getOrElseW(() => ({}))(
  decodePriceTable({ 'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 }, 'gemini-2.5-*': { input: 0.3, output: 2.5 } }),
)

describe('price table estimates', () => {
  it('estimates a missing cost per million tokens and marks it estimated', () => {
    const r = estimateCost(run([['gpt-5', 1_000_000, 2_000_000, 100_000, undefined]]), table)
    // 1.25 + 2 × 0.125 + 0.1 × 10
    expect(r.cost).toStrictEqual({ totalUsd: 2.5, complete: true, missing: 0, estimated: true })
    expect(r.usage.byModel['gpt-5']?.costUsd).toBe(2.5)
  })
  it('prices each model on its own; an unpriced model keeps the total unknown (K12)', () => {
    const r = estimateCost(
      run([
        ['gemini-2.5-flash', 1_000_000, 0, 0, undefined],
        ['mystery', 10, 0, 10, undefined],
      ]),
      table,
    )
    expect(r.usage.byModel['gemini-2.5-flash']?.costUsd).toBe(0.3)
    expect(r.usage.byModel['mystery']?.costUsd).toBeNull()
    expect(r.cost).toStrictEqual({ totalUsd: null, complete: false, missing: 1, estimated: true })
  })
  it('prices the usage of no model only under its exact name, never by a pattern that matches the word', () => {
    const any = E.getOrElseW(() => ({}))(decodePriceTable({ '*': { input: 1, output: 2 }, 'unk*': { input: 3, output: 4 } }))
    expect(priceOf(any, NO_MODEL)).toBeUndefined()
    expect(priceOf(any, 'unknown-model-7')).toStrictEqual({ input: 3, output: 4 })
    expect(priceOf({ ...any, [NO_MODEL]: { input: 5, output: 6 } }, NO_MODEL)).toStrictEqual({ input: 5, output: 6 })
    const r = estimateCost(
      run([
        ['gpt-5', 1_000_000, 0, 0, undefined],
        [NO_MODEL, 1_000_000, 0, 0, undefined],
      ]),
      any,
    )
    expect(r.usage.byModel['gpt-5']?.costUsd).toBe(1)
    expect(r.usage.byModel[NO_MODEL]?.costUsd).toBeNull()
    expect(r.cost).toStrictEqual({ totalUsd: null, complete: false, missing: 1, estimated: true })
  })
  it('never replaces a reported cost', () => {
    const reported = run([['gpt-5', 1000, 0, 10, 0.5]])
    expect(estimateCost(reported, table)).toBe(reported)
  })
  it('matches the longest prefix key; rejects bad tables without echoing them', () => {
    expect(priceOf(table, 'gemini-2.5-pro')).toStrictEqual({ input: 0.3, output: 2.5 })
    expect(priceOf(table, 'gpt-5-codex')).toBeUndefined()
    expect(E.isLeft(decodePriceTable({ m: { input: -1, output: 1 } }))).toBe(true)
    expect(E.isLeft(decodePriceTable([1, 2]))).toBe(true)
  })
  // a hostile-input trial: `cached_input` for `cachedInput` was ignored, and cache reads priced at `input` unsaid
  it('rejects a field it does not know, naming it and the fields it knows', () => {
    expect(decodePriceTable({ 'gpt-5': { input: 1.25, cached_input: 0.125, output: 10 } })).toStrictEqual(
      E.left('the price of "gpt-5" has a field "cached_input" it does not know (its fields: input, output, cachedInput, cacheWrite)'),
    )
    expect(decodePriceTable({ 'gpt-5': { input: 1.25, cachedInput: 0.125, cacheWrite: 1, output: 10 } })).toStrictEqual(
      E.right({ 'gpt-5': { input: 1.25, cachedInput: 0.125, cacheWrite: 1, output: 10 } }),
    )
  })
})
