/**
 * Cost estimates in the one fold (issue 13's per-request pricing): each model request without a cost of its
 * own is priced alone by the estimator (so a tiered price applies per request), marked estimated; a cost the
 * source reports is never replaced; a model without a price stays unknown.
 */
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { NO_MODEL, type UsageBuckets } from '../../src/core/RunResult.js'
import { priceTableEstimator } from '../../src/core/prices.js'
import { foldRecords } from '../../src/formats/records.js'

/** A tiered test price: $1 per million input tokens up to 200k per request, $2 above; $10 per million output. */
const estimate = (model: string, u: UsageBuckets): number | undefined => {
  if (model !== 'm-priced') return undefined
  const input = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens
  return (input * (input > 200_000 ? 2 : 1) + u.outputTokens * 10) / 1e6
}
const runs = (records: ReadonlyArray<unknown>, format = 'native') => {
  const r = foldRecords(records, { format, estimate })
  if (E.isLeft(r)) throw r.left
  return r.right
}
const msg = (usage: Record<string, number>, extra: Record<string, unknown> = {}) => ({
  type: 'assistant/message',
  sessionId: 's',
  data: { model: 'm-priced', usage, message: { content: [{ type: 'text', text: 'x' }] }, ...extra },
})

describe('cost estimates per request', () => {
  it('prices each request alone: two requests under the tier are not one over it', () => {
    const [r] = runs([msg({ inputTokens: 150_000, outputTokens: 1000 }), msg({ inputTokens: 150_000, outputTokens: 1000 })])
    // 2 × (0.15 + 0.01) at the lower rate; priced as one 300k request it would be 0.62
    expect(r?.cost).toStrictEqual({ totalUsd: 0.32, complete: true, missing: 0, estimated: true })
    expect(r?.usage.byModel['m-priced']?.costUsd).toBe(0.32)
  })
  it('a request above the tier is priced at the higher rate', () => {
    const [r] = runs([msg({ inputTokens: 250_000, outputTokens: 0 })])
    expect(r?.cost.totalUsd).toBe(0.5)
  })
  it('copies of one message (one messageId) are one request, priced once with the last copy', () => {
    const [r] = runs([msg({ inputTokens: 1000, outputTokens: 1 }, { messageId: 'a' }), msg({ inputTokens: 1000, outputTokens: 100 }, { messageId: 'a' })])
    expect(r?.cost.totalUsd).toBe(0.002)
  })
  it('a cost the source reports is kept, not replaced, and not marked estimated', () => {
    const [r] = runs([msg({ inputTokens: 1000, outputTokens: 0 }, { costUsd: 7 })])
    expect(r?.cost).toStrictEqual({ totalUsd: 7, complete: true, missing: 0 })
  })
  it('a model without a price stays unknown: never $0', () => {
    const [r] = runs([
      { ...msg({ inputTokens: 10, outputTokens: 10 }), data: { model: 'm-unpriced', usage: { inputTokens: 10, outputTokens: 10 }, message: { content: [] } } },
    ])
    expect(r?.cost).toStrictEqual({ totalUsd: null, complete: false, missing: 1 })
  })
  it.each([
    [
      'a message without a model',
      { type: 'assistant/message', sessionId: 's', data: { usage: { inputTokens: 10, outputTokens: 10 }, message: { content: [] } } },
    ],
    ['a running total without a model', { type: 'usage/total', sessionId: 's', data: { counter: 't', usage: { inputTokens: 10, outputTokens: 10 } } }],
    [
      'a message whose model is the placeholder itself',
      { type: 'assistant/message', sessionId: 's', data: { model: NO_MODEL, usage: { inputTokens: 10, outputTokens: 10 }, message: { content: [] } } },
    ],
  ])('%s is priced by a price table only under its exact name, never by a pattern', (_, record) => {
    const fold = (table: Record<string, { input: number; output: number }>) => {
      const r = foldRecords([{ type: 'turn/start', sessionId: 's', data: {} }, record], { format: 'native', estimate: priceTableEstimator(table) })
      if (E.isLeft(r)) throw r.left
      return r.right[0]
    }
    for (const pattern of ['*', 'unk*']) {
      const run = fold({ [pattern]: { input: 1, output: 2 } })
      expect(run?.cost).toStrictEqual({ totalUsd: null, complete: false, missing: 1 })
      expect(run?.usage.byModel[NO_MODEL]).toMatchObject({ inputTokens: 10, outputTokens: 10, costUsd: null })
    }
    // 10 × $1 + 10 × $2 per million tokens: the table names the usage of no model on purpose
    const named = fold({ [NO_MODEL]: { input: 1, output: 2 }, '*': { input: 100, output: 100 } })
    expect(named?.cost).toStrictEqual({ totalUsd: 0.00003, complete: true, missing: 0, estimated: true })
  })
  it('running totals (a Codex rollout) are priced per change, one request each', () => {
    const total = (input: number, output: number) => ({
      type: 'usage/total',
      sessionId: 's',
      data: { counter: 't', model: 'm-priced', usage: { inputTokens: input, outputTokens: output } },
    })
    const [r] = runs([{ type: 'turn/start', sessionId: 's', data: {} }, total(150_000, 0), total(300_000, 0)])
    // two changes of 150k each at the lower rate, not one 300k request at the higher
    expect(r?.cost.totalUsd).toBe(0.3)
  })
})
