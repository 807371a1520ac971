/**
 * A fast path for genai-prices' `calcPrice` on models with flat (untiered) per-token rates.
 *
 * `calcPrice` costs 20–40 µs per call (it resolves the model and runs its unit algebra every time), and `stats`
 * prices every model request of a log that reports no cost: on a tree of Claude Code transcripts that was about a
 * quarter of a worker's CPU. For a model whose applicable price has only plain numbers, the library's result is
 * the sum, in the price's own key order, of `rate × tokens / 1e6` over its per-million-token keys, with the
 * uncached input derived by subtracting the cache buckets the price lists; other keys (`cache_write_1h_mtok`,
 * `web_searches_kcount`, audio) meet zero usage in our requests and add exactly 0.
 *
 * A {@link FlatRates} plan reproduces that arithmetic operation for operation, so its result is the same double
 * as the library's, not merely close (the golden record holds full-precision costs). A plan is made only after it
 * gave bit-identical `input_price`, `output_price` and `total_price` on probe requests; anything else — tiered
 * prices, a `requests_kcount`, an unknown key, a probe that differs, token counts that are not safe integers —
 * keeps the library's own calculation.
 * @module
 */
import type * as GenaiPrices from '@pydantic/genai-prices'

/** One term of the sum: which of the four buckets, its USD per million tokens, and whether it is an output price. */
type Term = readonly [bucket: 'input' | 'cacheRead' | 'cacheWrite' | 'output', rate: number, output: boolean]

/** The arithmetic of one flat price: its terms in key order, and which cache buckets the uncached input excludes. */
export interface FlatRates {
  readonly terms: ReadonlyArray<Term>
  readonly readListed: boolean
  readonly writeListed: boolean
}

/** genai-prices' usage object for one request: `input_tokens` is the whole prompt, cache buckets parts of it. @since 0.2.0 */
export type GenaiUsage = {
  readonly input_tokens: number
  readonly cache_read_tokens: number
  readonly cache_write_tokens: number
  readonly output_tokens: number
}

const BUCKET: Readonly<Record<string, Term[0]>> = {
  input_mtok: 'input',
  cache_read_mtok: 'cacheRead',
  cache_write_mtok: 'cacheWrite',
  output_mtok: 'output',
}

/** Price keys whose usage our requests never carry (each adds exactly 0 in the library's sum). */
const ZERO_USAGE = /^(?!requests_)[a-z0-9_]+_(?:mtok|kcount)$/

/** The flat-rate plan of a price object, or `undefined` when its arithmetic is not the simple one. */
export const planOf = (price: Readonly<Record<string, unknown>>): FlatRates | undefined => {
  const terms: Array<Term> = []
  let readListed = false
  let writeListed = false
  for (const [key, rate] of Object.entries(price)) {
    if (rate === undefined) continue
    if (typeof rate !== 'number' || !Number.isFinite(rate)) return undefined
    const bucket = BUCKET[key]
    if (bucket !== undefined) {
      terms.push([bucket, rate, bucket === 'output'])
      if (bucket === 'cacheRead') readListed = true
      if (bucket === 'cacheWrite') writeListed = true
    } else if (!ZERO_USAGE.test(key)) return undefined
  }
  return { terms, readListed, writeListed }
}

/**
 * The library's `{ input_price, output_price, total_price }` for `u` under plan `p` (USD), computed in the
 * library's order; `undefined` when a count is not a safe non-negative integer (the library's subtraction is then
 * not exact in the same way).
 */
export const flatPrice = (p: FlatRates, u: GenaiUsage): { input_price: number; output_price: number; total_price: number } | undefined => {
  const { input_tokens: all, cache_read_tokens: read, cache_write_tokens: write, output_tokens: out } = u
  for (const n of [all, read, write, out]) if (!Number.isSafeInteger(n) || n < 0) return undefined
  // the library's leaf value: the whole prompt less the cache buckets the price lists (exact on integers)
  const uncached = all - ((p.readListed ? read : 0) + (p.writeListed ? write : 0))
  if (uncached < 0) return undefined
  let input = 0
  let output = 0
  for (const [bucket, rate, isOutput] of p.terms) {
    const tokens = bucket === 'input' ? uncached : bucket === 'cacheRead' ? read : bucket === 'cacheWrite' ? write : out
    const term = (rate * tokens) / 1e6
    if (isOutput) output += term
    else input += term
  }
  return { input_price: input, output_price: output, total_price: input + output + 0 }
}

/** Requests whose results a plan must reproduce bit for bit before it is used. */
const PROBES: ReadonlyArray<GenaiUsage> = [
  { input_tokens: 192_593, cache_read_tokens: 65_537, cache_write_tokens: 4_099, output_tokens: 3_001 },
  { input_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 0 },
  { input_tokens: 100_000, cache_read_tokens: 99_991, cache_write_tokens: 7, output_tokens: 77_777 },
  { input_tokens: 3, cache_read_tokens: 1, cache_write_tokens: 1, output_tokens: 1 },
]

/**
 * The plan for one model at one time, checked against the library: `undefined` when the applicable price is not
 * flat, names keys the plan does not reproduce, or any probe differs in any bit. Never throws.
 */
export const checkedPlan = (
  lib: typeof GenaiPrices,
  name: string,
  options: { readonly providerId?: string; readonly timestamp: Date },
): FlatRates | undefined => {
  try {
    const first = lib.calcPrice(PROBES[0] as GenaiUsage, name, options)
    if (first === null) return undefined
    // a price with a time-of-day constraint changes within the day the plan is kept for
    if (Array.isArray(first.model.prices) && first.model.prices.some((c) => (c.constraint as { type?: string } | undefined)?.type === 'time_of_date'))
      return undefined
    const plan = planOf(first.model_price as Record<string, unknown>)
    if (plan === undefined) return undefined
    for (const probe of PROBES) {
      const want = lib.calcPrice(probe, name, options)
      const got = flatPrice(plan, probe)
      if (want === null || got === undefined) return undefined
      if (!Object.is(want.input_price, got.input_price) || !Object.is(want.output_price, got.output_price) || !Object.is(want.total_price, got.total_price))
        return undefined
    }
    return plan
  } catch {
    return undefined
  }
}
