/**
 * The flat-rate fast path (src/prices/flatRates.ts) gives the same double as genai-prices' calcPrice, to the bit,
 * for every request: over the models of the corpus logs (flat and tiered), random token counts and dates. And it
 * is taken: a plan exists for the flat models, none for tiered or unknown ones.
 */
import { createRequire } from 'node:module'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type * as GenaiPrices from '@pydantic/genai-prices'
import { checkedPlan, flatPrice, planOf } from '../../src/prices/flatRates.js'
import { bundledEstimator, genaiUsage, providerOf } from '../../src/prices/genaiPrices.js'

const lib = createRequire(import.meta.url)('@pydantic/genai-prices') as typeof GenaiPrices
const runs = Number(process.env['FC_NUM_RUNS'] ?? 100)

// models named by the corpus logs (Claude Code, Codex, Gemini), flat and tiered
const MODELS = [
  'claude-sonnet-4-20250514',
  'claude-opus-4-1-20250805',
  'claude-opus-4-20250514',
  'claude-sonnet-4-5-20250929',
  'claude-3-5-haiku-20241022',
  'gpt-5-codex',
  'gpt-5',
  'gpt-4.1',
  'gemini-2.5-pro',
  'gemini-2.5-flash',
]

const tokens = fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 2_000_000 }))
const usage = fc.record({ inputTokens: tokens, cacheReadTokens: tokens, cacheWriteTokens: tokens, outputTokens: tokens, reasoningTokens: fc.constant(0) })
const day = fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2026, 11, 31) })

describe('flat-rate plans', () => {
  it('the estimator equals calcPrice bit for bit (models of the corpus, random usage and dates)', () => {
    const estimate = bundledEstimator()
    fc.assert(
      fc.property(fc.constantFrom(...MODELS), usage, day, (model, u, at) => {
        const providerId = providerOf(model)
        const want = lib.calcPrice(genaiUsage(u), model, { ...(providerId !== undefined ? { providerId } : {}), timestamp: new Date(at) })
        const got = estimate(model, u, at)
        expect(Object.is(got, want === null ? undefined : want.total_price)).toBe(true)
      }),
      { numRuns: runs * 5 },
    )
  })
  it('flat models get a plan; tiered ones (Gemini 2.5 Pro above 200k) do not', () => {
    const at = { timestamp: new Date(Date.UTC(2026, 0, 15)) }
    expect(checkedPlan(lib, 'claude-sonnet-4-20250514', { providerId: 'anthropic', ...at })).toBeDefined()
    expect(checkedPlan(lib, 'gpt-5-codex', { providerId: 'openai', ...at })).toBeDefined()
    expect(checkedPlan(lib, 'gemini-2.5-pro', { providerId: 'google', ...at })).toBeUndefined()
    expect(checkedPlan(lib, 'no-such-model-xyz', at)).toBeUndefined()
  })
  it('a price the plan cannot reproduce has no plan', () => {
    expect(planOf({ input_mtok: 1, requests_kcount: 2 })).toBeUndefined()
    expect(planOf({ input_mtok: { base: 1, tiers: [] } })).toBeUndefined()
    expect(planOf({ input_mtok: 1, mystery: 3 })).toBeUndefined()
    expect(planOf({ input_mtok: 3, cache_write_1h_mtok: 6, web_searches_kcount: 10 })).toStrictEqual({
      terms: [['input', 3, false]],
      readListed: false,
      writeListed: false,
    })
    const p = planOf({ input_mtok: 3, cache_read_mtok: 0.3, output_mtok: 15 })
    expect(p && flatPrice(p, { input_tokens: 1_000_000, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 1_000_000 })).toStrictEqual({
      input_price: 3,
      output_price: 15,
      total_price: 18,
    })
    // counts that are not safe integers take the library's path
    expect(p && flatPrice(p, { input_tokens: 1.5, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 0 })).toBeUndefined()
  })
})
