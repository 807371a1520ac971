/**
 * A fast path for genai-prices' `calcPrice` on models with per-token rates, flat or tiered by prompt size.
 *
 * `calcPrice` costs 20–40 µs per call (it resolves the model and runs its unit algebra every time), and `stats`
 * prices every model request of a log that reports no cost: on a tree of Claude Code transcripts that was about a
 * quarter of a worker's CPU. For a model whose applicable price has only per-million-token keys, the library's
 * result (0.1.8, `calcModelPrice`) is the sum, in the price's own key order, of one term per key, with the
 * uncached input derived by subtracting the cache buckets the price lists:
 *
 * - a plain rate: `rate × tokens / 1e6`;
 * - a tiered rate (`{ base, tiers: [{ start, price }] }`): the tiers sorted by `start` (a stable sort), the rate is
 *   that of the last tier whose `start` is strictly below the request's whole prompt (`input_tokens`: uncached +
 *   cache read + cache write), else `base`; that one rate applies to the whole count of the key (not only the part
 *   past the threshold), and the term is `(rate × tokens / 1e6) × 1e6 / 1e6` — the library scales by the unit
 *   twice, and the two roundings are kept. The prompt size picks the tier of every key, output included.
 *
 * Other keys (`cache_write_1h_mtok`, `web_searches_kcount`, audio) meet zero usage in our requests and add exactly 0.
 *
 * A {@link FlatRates} plan reproduces that arithmetic operation for operation, so its result is the same double
 * as the library's, not merely close (the golden record holds full-precision costs). A plan is made only after it
 * gave bit-identical `input_price`, `output_price` and `total_price` on probe requests, including prompts one
 * token below, at and one above every tier threshold; anything else — a `requests_kcount`, an unknown key, a
 * malformed tier, a probe that differs, token counts that are not safe integers — keeps the library's own
 * calculation.
 * @module
 */
import type * as GenaiPrices from '@pydantic/genai-prices'

/** The four usage buckets a term can read: uncached input, cache read, cache write, output. */
const INPUT = 0
const CACHE_READ = 1
const CACHE_WRITE = 2
const OUTPUT = 3
type Bucket = typeof INPUT | typeof CACHE_READ | typeof CACHE_WRITE | typeof OUTPUT

/** The terms of one price band (one range of prompt sizes), in the price's key order, as parallel arrays. */
interface Band {
  readonly bucket: ReadonlyArray<Bucket>
  /** USD per million tokens. */
  readonly rate: ReadonlyArray<number>
  /** The key's price is tiered: its term is scaled by the unit twice, as the library does. */
  readonly tiered: ReadonlyArray<boolean>
  /** The term adds to `output_price` (else `input_price`). */
  readonly output: ReadonlyArray<boolean>
}

/**
 * The arithmetic of one price: its tier thresholds (prompt tokens, ascending, distinct; empty for a flat price),
 * one {@link Band} of terms per range of prompt sizes (`bands[k]` for a prompt above `thresholds[k - 1]` and at
 * most `thresholds[k]`), and which cache buckets the uncached input excludes.
 * @since 0.2.0
 */
export interface FlatRates {
  readonly thresholds: ReadonlyArray<number>
  readonly bands: ReadonlyArray<Band>
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

const BUCKET: Readonly<Record<string, Bucket>> = {
  input_mtok: INPUT,
  cache_read_mtok: CACHE_READ,
  cache_write_mtok: CACHE_WRITE,
  output_mtok: OUTPUT,
}

/** Price keys whose usage our requests never carry (each adds exactly 0 in the library's sum). */
const ZERO_USAGE = /^(?!requests_)[a-z0-9_]+_(?:mtok|kcount)$/

const isRate = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0

/** A key's price as the library accepts it: a rate, or tiers (sorted by start, as its `TieredPrices` sorts them). */
type Price = number | { readonly base: number; readonly tiers: ReadonlyArray<{ readonly start: number; readonly price: number }> }

const priceOf = (v: unknown): Price | undefined => {
  if (isRate(v)) return v
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined
  const { base, tiers } = v as { base?: unknown; tiers?: unknown }
  if (!isRate(base) || !Array.isArray(tiers)) return undefined
  const out: Array<{ start: number; price: number }> = []
  for (const t of tiers as ReadonlyArray<unknown>) {
    if (typeof t !== 'object' || t === null || Array.isArray(t)) return undefined
    const { start, price } = t as { start?: unknown; price?: unknown }
    if (typeof start !== 'number' || !Number.isSafeInteger(start) || start < 0 || !isRate(price)) return undefined
    out.push({ start, price })
  }
  // Array#sort is stable: tiers with equal starts keep their order, and the later one wins, as in the library
  return { base, tiers: out.sort((a, b) => a.start - b.start) }
}

/** The rate of a price for a prompt of `all` tokens: the last tier whose start is strictly below it, else the base. */
const rateAt = (p: Price, all: number): number => {
  if (typeof p === 'number') return p
  let rate = p.base
  for (const t of p.tiers) if (all > t.start) rate = t.price
  return rate
}

/**
 * The plan of a price object (the model's applicable `model_price`), or `undefined` when its arithmetic is not
 * the one reproduced here (see the module notes). Never throws.
 * @example planOf({ input_mtok: 3, output_mtok: 15 }) // => { thresholds: [], bands: [one band of 2 terms], readListed: false, writeListed: false }
 * @since 0.2.0
 */
export const planOf = (price: Readonly<Record<string, unknown>>): FlatRates | undefined => {
  const keys: Array<readonly [Bucket, Price]> = []
  const starts = new Set<number>()
  let readListed = false
  let writeListed = false
  for (const [key, raw] of Object.entries(price)) {
    if (raw === undefined) continue
    const p = priceOf(raw)
    if (p === undefined) return undefined
    const bucket = BUCKET[key]
    if (bucket !== undefined) {
      keys.push([bucket, p])
      if (typeof p !== 'number') for (const t of p.tiers) starts.add(t.start)
      if (bucket === CACHE_READ) readListed = true
      if (bucket === CACHE_WRITE) writeListed = true
    } else if (!ZERO_USAGE.test(key)) return undefined
  }
  const thresholds = [...starts].sort((a, b) => a - b)
  // a prompt in band k (integer tokens) compares with every start as thresholds[k - 1] + 1 does
  const bands = [0, ...thresholds.map((t) => t + 1)].map(
    (all): Band => ({
      bucket: keys.map(([b]) => b),
      rate: keys.map(([, p]) => rateAt(p, all)),
      tiered: keys.map(([, p]) => typeof p !== 'number'),
      output: keys.map(([b]) => b === OUTPUT),
    }),
  )
  return { thresholds, bands, readListed, writeListed }
}

/** The parts of the last {@link evaluate}: one scratch record, so the per-request path allocates nothing. */
const parts = { input: 0, output: 0 }

/** Computes `parts` for the four counts in the library's order; `false` when a count is not a safe non-negative integer. */
const evaluate = (p: FlatRates, all: number, read: number, write: number, out: number): boolean => {
  if (!(Number.isSafeInteger(all) && Number.isSafeInteger(read) && Number.isSafeInteger(write) && Number.isSafeInteger(out))) return false
  if (all < 0 || read < 0 || write < 0 || out < 0) return false
  // the library's leaf value: the whole prompt less the cache buckets the price lists (exact on integers)
  const uncached = all - ((p.readListed ? read : 0) + (p.writeListed ? write : 0))
  if (uncached < 0) return false
  const th = p.thresholds
  let k = 0
  while (k < th.length && all > (th[k] as number)) k++
  const band = p.bands[k] as Band
  const { bucket, rate, tiered, output: isOutput } = band
  let input = 0
  let output = 0
  for (let j = 0; j < bucket.length; j++) {
    const b = bucket[j]
    const tokens = b === INPUT ? uncached : b === CACHE_READ ? read : b === CACHE_WRITE ? write : out
    const r = rate[j] as number
    const term = tiered[j] === true ? (((r * tokens) / 1e6) * 1e6) / 1e6 : (r * tokens) / 1e6
    if (isOutput[j] === true) output += term
    else input += term
  }
  parts.input = input
  parts.output = output
  return true
}

/**
 * The library's `{ input_price, output_price, total_price }` for `u` under plan `p` (USD), computed in the
 * library's order; `undefined` when a count is not a safe non-negative integer (the library's subtraction is then
 * not exact in the same way) or the cache buckets exceed the prompt.
 * @example flatPrice(planOf({ input_mtok: 3, output_mtok: 15 })!, { input_tokens: 1e6, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 1e6 }) // => { input_price: 3, output_price: 15, total_price: 18 }
 * @since 0.2.0
 */
export const flatPrice = (p: FlatRates, u: GenaiUsage): { input_price: number; output_price: number; total_price: number } | undefined =>
  evaluate(p, u.input_tokens, u.cache_read_tokens, u.cache_write_tokens, u.output_tokens)
    ? { input_price: parts.input, output_price: parts.output, total_price: parts.input + parts.output + 0 }
    : undefined

/**
 * {@link flatPrice}'s `total_price` from the four counts (tokens; `all` the whole prompt), without allocating:
 * the per-request path. `NaN` where `flatPrice` gives `undefined`.
 * @since 0.2.0
 */
export const planTotal = (p: FlatRates, all: number, read: number, write: number, out: number): number =>
  evaluate(p, all, read, write, out) ? parts.input + parts.output + 0 : Number.NaN

/** Requests whose results a plan must reproduce bit for bit before it is used (beside those around thresholds). */
const PROBES: ReadonlyArray<GenaiUsage> = [
  { input_tokens: 192_593, cache_read_tokens: 65_537, cache_write_tokens: 4_099, output_tokens: 3_001 },
  { input_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 0 },
  { input_tokens: 100_000, cache_read_tokens: 99_991, cache_write_tokens: 7, output_tokens: 77_777 },
  { input_tokens: 3, cache_read_tokens: 1, cache_write_tokens: 1, output_tokens: 1 },
  { input_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 12_345 },
]

/**
 * The probes for a plan: the fixed ones, and for every threshold a prompt of one token below, at and one above it
 * (with and without cache buckets and output), and one well past it.
 */
const probesOf = (plan: FlatRates): Array<GenaiUsage> => {
  const out = [...PROBES]
  for (const t of plan.thresholds) {
    for (const all of [t - 1, t, t + 1, t + 2, 2 * t + 12_345]) {
      if (all < 0 || !Number.isSafeInteger(all)) continue
      const read = Math.floor(all * 0.6)
      const write = Math.floor(all * 0.3)
      out.push({ input_tokens: all, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 0 })
      out.push({ input_tokens: all, cache_read_tokens: read, cache_write_tokens: write, output_tokens: 4_321 })
      out.push({ input_tokens: all, cache_read_tokens: all, cache_write_tokens: 0, output_tokens: 1 })
    }
  }
  return out
}

/** The time-of-day constraint of a price list, which changes the price within the day a plan is kept for. */
const hasTimeOfDay = (prices: unknown): boolean =>
  Array.isArray(prices) && prices.some((c: { constraint?: { type?: string } }) => c?.constraint?.type === 'time_of_date')

/**
 * The plan for one model at one time, checked against the library: `undefined` when the applicable price names
 * keys the plan does not reproduce, changes within the day, or any probe differs in any bit. Never throws.
 * @since 0.2.0
 */
export const checkedPlan = (
  lib: typeof GenaiPrices,
  name: string,
  options: { readonly providerId?: string; readonly timestamp: Date },
): FlatRates | undefined => {
  try {
    const first = lib.calcPrice(PROBES[0] as GenaiUsage, name, options)
    if (first === null) return undefined
    if (hasTimeOfDay(first.model.prices)) return undefined
    const plan = planOf(first.model_price as Record<string, unknown>)
    if (plan === undefined) return undefined
    for (const probe of probesOf(plan)) {
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
