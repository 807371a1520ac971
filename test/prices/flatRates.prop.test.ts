/**
 * The checked fast path (src/prices/flatRates.ts) gives the same double as genai-prices' calcPrice, to the bit,
 * for every request: over the models of the corpus logs and the bundled tiered models (Claude Sonnet 4.5 and 4.6,
 * Opus 4.6, Gemini, GPT-5.4 and later), random token counts — prompts on both sides of and at every tier threshold
 * — and dates; over synthetic prices with several tiers, unsorted and repeated starts (priced by calcPrice through
 * a provider object). And it is taken: a plan exists for the flat and the tiered models, none for unknown ones.
 */
import { createRequire } from 'node:module'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type * as GenaiPrices from '@pydantic/genai-prices'
import { checkedPlan, flatPrice, planOf, planTotal } from '../../src/prices/flatRates.js'
import { bundledEstimator, genaiUsage, providerOf } from '../../src/prices/genaiPrices.js'

const lib = createRequire(import.meta.url)('@pydantic/genai-prices') as typeof GenaiPrices
const runs = Number(process.env['FC_NUM_RUNS'] ?? 100)

// models named by the corpus logs (Claude Code, Codex, Gemini), flat and tiered
const CORPUS = [
  'claude-sonnet-4-20250514',
  'claude-opus-4-1-20250805',
  'claude-opus-4-20250514',
  'claude-sonnet-4-5-20250929',
  'claude-opus-4-5',
  'claude-opus-5',
  'claude-3-5-haiku-20241022',
  'gpt-5-codex',
  'gpt-5',
  'gpt-4.1',
  'gemini-2.5-pro',
  'gemini-2.5-flash',
]
// models whose bundled prices are tiered by prompt size (some only before a date), with their thresholds
const TIERED = [
  'claude-sonnet-4-5-20250929',
  'claude-sonnet-4-6',
  'claude-opus-4-6',
  'gemini-2.5-pro',
  'gemini-1.5-pro',
  'gemini-3-pro-preview',
  'gpt-5.4',
  'gpt-5.5-pro',
  'gpt-6-luna',
]
const THRESHOLDS = [128_000, 200_000, 271_999, 272_000]

/** A whole prompt (tokens): anywhere, small, or within 3 tokens of a tier threshold. */
const prompt = fc.oneof(
  fc.integer({ min: 0, max: 2_000_000 }),
  fc.integer({ min: 0, max: 1000 }),
  fc.tuple(fc.constantFrom(...THRESHOLDS), fc.integer({ min: -3, max: 3 })).map(([t, d]) => t + d),
)
/** Our disjoint buckets for a prompt split at random into cache read, cache write and uncached input. */
const usage = fc
  .tuple(prompt, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 300_000 }))
  .map(([all, f, g, outputTokens]) => {
    const cacheReadTokens = Math.floor(all * f)
    const cacheWriteTokens = Math.floor((all - cacheReadTokens) * g)
    return { inputTokens: all - cacheReadTokens - cacheWriteTokens, cacheReadTokens, cacheWriteTokens, outputTokens, reasoningTokens: 0 }
  })
const day = fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2026, 11, 31) })

const libraryTotal = (model: string, u: Parameters<typeof genaiUsage>[0], at: number): number | undefined => {
  const providerId = providerOf(model)
  const want = lib.calcPrice(genaiUsage(u), model, { ...(providerId !== undefined ? { providerId } : {}), timestamp: new Date(at) })
  return want === null ? undefined : want.total_price
}

describe('checked price plans', () => {
  it('the estimator equals calcPrice bit for bit (corpus and tiered models, prompts around the thresholds, random dates)', () => {
    const estimate = bundledEstimator()
    fc.assert(
      fc.property(fc.constantFrom(...CORPUS, ...TIERED), usage, day, (model, u, at) => {
        expect(Object.is(estimate(model, u, at), libraryTotal(model, u, at))).toBe(true)
      }),
      { numRuns: runs * 10 },
    )
  })

  it('without a per-request time (the fold calls it so) it equals calcPrice at the fixed date, requests mixing models', () => {
    for (const at of [Date.UTC(2025, 9, 1), Date.UTC(2026, 1, 1), Date.UTC(2026, 5, 1)]) {
      const estimate = bundledEstimator({ at: new Date(at) })
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.constantFrom(...CORPUS, ...TIERED), usage), { minLength: 1, maxLength: 8 }), (requests) => {
          for (const [model, u] of requests) expect(Object.is(estimate(model, u), libraryTotal(model, u, at))).toBe(true)
        }),
        { numRuns: runs },
      )
    }
  })

  it('each request is priced at its own tier: the whole prompt picks it, and the tier rate applies to whole counts', () => {
    const estimate = bundledEstimator({ at: new Date(Date.UTC(2026, 0, 15)) })
    const request = (inputTokens: number, cacheReadTokens: number, outputTokens: number) => ({
      inputTokens,
      cacheReadTokens,
      cacheWriteTokens: 0,
      outputTokens,
      reasoningTokens: 0,
    })
    // claude-sonnet-4-5: $3 input, $0.30 cache read, $15 output per million up to 200k prompt tokens; $6, $0.60, $22.50 above
    expect(estimate('claude-sonnet-4-5-20250929', request(100_000, 100_000, 1_000_000))).toBeCloseTo(0.3 + 0.03 + 15, 12)
    expect(estimate('claude-sonnet-4-5-20250929', request(100_001, 100_000, 1_000_000))).toBeCloseTo(100_001 * 6e-6 + 0.06 + 22.5, 12)
  })

  it('flat and tiered models get a plan with their thresholds; unknown ones do not', () => {
    const at = { timestamp: new Date(Date.UTC(2026, 0, 15)) }
    expect(checkedPlan(lib, 'claude-sonnet-4-20250514', { providerId: 'anthropic', ...at })?.thresholds).toStrictEqual([])
    expect(checkedPlan(lib, 'gpt-5-codex', { providerId: 'openai', ...at })?.thresholds).toStrictEqual([])
    expect(checkedPlan(lib, 'claude-sonnet-4-5-20250929', { providerId: 'anthropic', ...at })?.thresholds).toStrictEqual([200_000])
    expect(checkedPlan(lib, 'gemini-2.5-pro', { providerId: 'google', ...at })?.thresholds).toStrictEqual([200_000])
    expect(checkedPlan(lib, 'gpt-5.4', { providerId: 'openai', ...at })?.thresholds).toStrictEqual([271_999])
    // Sonnet 4.6 is tiered until 2026-03-13, flat from then on
    expect(checkedPlan(lib, 'claude-sonnet-4-6', { providerId: 'anthropic', ...at })?.thresholds).toStrictEqual([200_000])
    expect(checkedPlan(lib, 'claude-sonnet-4-6', { providerId: 'anthropic', timestamp: new Date(Date.UTC(2026, 2, 13)) })?.thresholds).toStrictEqual([])
    expect(checkedPlan(lib, 'no-such-model-xyz', at)).toBeUndefined()
  })

  it('synthetic prices (several tiers, unsorted, repeated starts, any key order) equal calcPrice bit for bit', () => {
    const rate = fc.oneof(fc.constantFrom(0, 0.1, 0.3, 0.6, 1.25, 3, 3.75, 7.5, 15, 22.5), fc.double({ min: 0, max: 100, noNaN: true }))
    const start = fc.oneof(fc.constantFrom(...THRESHOLDS, 0, 1), fc.integer({ min: 0, max: 1_000_000 }))
    const tiered = fc.record({ base: rate, tiers: fc.array(fc.record({ start, price: rate }), { maxLength: 4 }) })
    const price = fc
      .tuple(
        fc.shuffledSubarray(['input_mtok', 'cache_read_mtok', 'cache_write_mtok', 'output_mtok', 'cache_write_1h_mtok', 'web_searches_kcount'], {
          minLength: 1,
        }),
        fc.array(fc.oneof(rate, tiered), { minLength: 6, maxLength: 6 }),
      )
      .map(([keys, values]) => Object.fromEntries(keys.map((k, i) => [k, values[i]])))
    fc.assert(
      fc.property(price, usage, (p, u) => {
        // some keys are only valid together (a cache price needs the input price): calcPrice throws, and the estimator then takes its path
        const provider = { id: 'synthetic', name: 'Synthetic', api_pattern: 'x', models: [{ id: 'm', match: { equals: 'm' }, prices: p }] }
        let want: { input_price: number; output_price: number; total_price: number } | null
        try {
          want = lib.calcPrice(genaiUsage(u), 'm', { provider } as unknown as Parameters<typeof lib.calcPrice>[2])
        } catch {
          return
        }
        const plan = planOf(p)
        expect(plan).toBeDefined()
        const got = plan && flatPrice(plan, genaiUsage(u))
        expect(want).not.toBeNull()
        expect(Object.is(got?.input_price, want?.input_price)).toBe(true)
        expect(Object.is(got?.output_price, want?.output_price)).toBe(true)
        expect(Object.is(got?.total_price, want?.total_price)).toBe(true)
        expect(plan && Object.is(planTotal(plan, ...counts(genaiUsage(u))), want?.total_price)).toBe(true)
      }),
      { numRuns: runs * 5 },
    )
  })

  it('a price the plan cannot reproduce has no plan; counts it does not take give no figure', () => {
    expect(planOf({ input_mtok: 1, requests_kcount: 2 })).toBeUndefined()
    expect(planOf({ input_mtok: 1, mystery: 3 })).toBeUndefined()
    expect(planOf({ input_mtok: { base: 1 } })).toBeUndefined()
    expect(planOf({ input_mtok: { base: 1, tiers: [{ start: 1.5, price: 2 }] } })).toBeUndefined()
    expect(planOf({ input_mtok: { base: 1, tiers: [{ start: 10, price: -2 }] } })).toBeUndefined()
    expect(planOf({ input_mtok: -1 })).toBeUndefined()
    expect(planOf({ input_mtok: 3, cache_write_1h_mtok: 6, web_searches_kcount: 10 })).toStrictEqual({
      thresholds: [],
      bands: [{ bucket: [0], rate: [3], tiered: [false], output: [false] }],
      readListed: false,
      writeListed: false,
    })
    // the later of two tiers with one start wins; a prompt at a start keeps the rate below it
    const t = planOf({
      input_mtok: {
        base: 3,
        tiers: [
          { start: 500, price: 9 },
          { start: 200, price: 6 },
          { start: 500, price: 12 },
        ],
      },
      output_mtok: 15,
    })
    expect(t?.thresholds).toStrictEqual([200, 500])
    expect(t?.bands.map((b) => b.rate)).toStrictEqual([
      [3, 15],
      [6, 15],
      [12, 15],
    ])
    const p = planOf({ input_mtok: 3, cache_read_mtok: 0.3, output_mtok: 15 })
    expect(p && flatPrice(p, { input_tokens: 1_000_000, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 1_000_000 })).toStrictEqual({
      input_price: 3,
      output_price: 15,
      total_price: 18,
    })
    // counts that are not safe non-negative integers, or cache buckets larger than the prompt, take the library's path
    expect(p && flatPrice(p, { input_tokens: 1.5, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 0 })).toBeUndefined()
    expect(p && flatPrice(p, { input_tokens: 10, cache_read_tokens: 11, cache_write_tokens: 0, output_tokens: 0 })).toBeUndefined()
    expect(p && planTotal(p, 2 ** 53, 0, 0, 0)).toBeNaN()
  })
})

const counts = (u: ReturnType<typeof genaiUsage>): [number, number, number, number] => [
  u.input_tokens,
  u.cache_read_tokens,
  u.cache_write_tokens,
  u.output_tokens,
]
