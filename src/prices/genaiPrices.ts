/**
 * Cost estimates from the price data bundled with `@pydantic/genai-prices` (offline: its bundled data is used as
 * is, never fetched at run time), for the model requests whose log reports no cost.
 *
 * One request is priced at a time (the fold calls the estimator per model request), so tiered prices — e.g.
 * Anthropic's and Google's higher rate above 200k prompt tokens — apply to that request's prompt, as the provider
 * bills it. The conventions differ: our buckets are disjoint (`inputTokens` is the uncached input), while
 * genai-prices' `input_tokens` is the whole prompt (uncached + cache read + cache write), with
 * `cache_read_tokens` and `cache_write_tokens` as parts of it; {@link genaiUsage} converts.
 *
 * Provider matching: names with `claude` go to `anthropic`, `gpt-*`, `o1`…`o9`, `codex-*`, `chatgpt-*` to
 * `openai`, `gemini*` to `google`; a `provider/` or `provider:` prefix the data knows names the provider; anything
 * else uses the library's own model matching. A model the data does not know (or a request without a model name,
 * which the fold passes as `unknown`) has no estimate: its cost stays unknown, never $0.
 *
 * Lives outside `src/core` because it depends on the price library (core stays dependency-free).
 * @module
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type * as GenaiPrices from '@pydantic/genai-prices'
import type { CostEstimator } from '../core/fold.js'
import { priceTableEstimator, type PriceTable } from '../core/prices.js'
import { checkedPlan, type FlatRates, type GenaiUsage, planTotal } from './flatRates.js'
import type { UsageBuckets } from '../core/RunResult.js'
import { msFromIso } from '../core/time.js'

/** The npm package the bundled prices come from. @since 0.2.0 */
export const PRICE_PACKAGE = '@pydantic/genai-prices'

/** The price library, loaded on the first estimate (its data is 0.8 MB of code: a run with reported costs never pays for it). */
let library: typeof GenaiPrices | undefined
const genai = (): typeof GenaiPrices => {
  library ??= createRequire(import.meta.url)(PRICE_PACKAGE) as typeof GenaiPrices
  return library
}

/** The version of the bundled price data (the installed `@pydantic/genai-prices` version), or `unknown`. @since 0.2.0 */
export const PRICE_DATA_VERSION: string = (() => {
  try {
    const entry = createRequire(import.meta.url).resolve(PRICE_PACKAGE)
    const pkg = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version?: unknown }
    return typeof pkg.version === 'string' ? pkg.version : 'unknown'
  } catch {
    return 'unknown'
  }
})()

export type { GenaiUsage } from './flatRates.js'

/**
 * Our disjoint buckets (tokens) as genai-prices' usage: `input_tokens` = uncached input + cache read + cache write;
 * `output_tokens` = output (reasoning is already inside it, SPEC §3).
 * @example genaiUsage({ inputTokens: 10, cacheReadTokens: 100, cacheWriteTokens: 5, outputTokens: 7, reasoningTokens: 0 }) // => { input_tokens: 115, cache_read_tokens: 100, cache_write_tokens: 5, output_tokens: 7 }
 * @since 0.2.0
 */
export const genaiUsage = (u: UsageBuckets): GenaiUsage => ({
  input_tokens: u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens,
  cache_read_tokens: u.cacheReadTokens,
  cache_write_tokens: u.cacheWriteTokens,
  output_tokens: u.outputTokens,
})

/**
 * The genai-prices provider id for a model name by its family (`anthropic`, `openai`, `google`), or `undefined`
 * to let the library match the name itself.
 * @example providerOf('claude-sonnet-4-5-20250929') // => 'anthropic'
 * @example providerOf('gpt-5-codex') // => 'openai'
 * @since 0.2.0
 */
export const providerOf = (model: string): string | undefined => {
  const m = model.trim().toLowerCase()
  if (m.includes('claude')) return 'anthropic'
  if (m.startsWith('gemini') || m.startsWith('models/gemini')) return 'google'
  if (/^(gpt-|o[1-9](?:-|$)|codex-|chatgpt-|computer-use-)/.test(m)) return 'openai'
  return undefined
}

/** How a model name is looked up: the provider id (if any) and the name passed to `calcPrice`. */
interface Lookup {
  readonly providerId: string | undefined
  readonly name: string
}

const PROBE = { input_tokens: 1000, output_tokens: 1000 }
const MEMO_MAX = 4096

const priced = (l: Lookup, at: Date): boolean => {
  try {
    return genai().calcPrice(PROBE, l.name, { ...(l.providerId !== undefined ? { providerId: l.providerId } : {}), timestamp: at }) !== null
  } catch {
    return false
  }
}

/** The lookups to try for a name, most specific first. */
const candidates = (model: string): Array<Lookup> => {
  const name = model.trim()
  const out: Array<Lookup> = []
  const prefixed = /^([A-Za-z0-9_.-]+)[/:](.+)$/.exec(name)
  if (prefixed !== null) {
    const [, prefix, rest] = prefixed as unknown as [string, string, string]
    const known = prefix.toLowerCase() === 'models' ? undefined : genai().findProvider({ providerId: prefix })
    if (known !== undefined) out.push({ providerId: known.id, name: rest })
    const family = providerOf(rest)
    if (family !== undefined) out.push({ providerId: family, name: rest })
  }
  const family = providerOf(name)
  if (family !== undefined) out.push({ providerId: family, name })
  out.push({ providerId: undefined, name })
  return out
}

/** Options of {@link bundledEstimator}. @since 0.3.0 @category Replay */
export interface BundledEstimatorOptions {
  /**
   * The date whose prices apply to a request that comes without a time (the data has prices that change on a
   * date). Default: the time the estimator is made. A time passed by the caller per request (the fold passes the
   * usage event's) wins.
   */
  readonly at?: Date
}

const DAY_MS = 86_400_000

/** How a model is priced on one UTC day: its lookup (or `null`: not priced) and the checked plan (or `null`). */
interface DayPricing {
  readonly lookup: Lookup | null
  readonly plan: FlatRates | null
}

/** What the estimator keeps per model name: per UTC day, how it is looked up and its checked plan. */
interface ModelEntry {
  /** The last day asked for (days since the epoch) and its pricing: a log's requests mostly take few days. */
  day: number
  pricing: DayPricing
  readonly days: Map<number, DayPricing>
}

/**
 * A {@link CostEstimator} over the bundled genai-prices data: USD for one request, or `undefined` when the model
 * is unknown to the data (or named `unknown`, the fold's name for a request without a model). Never throws.
 * Each call gives what `calcPrice(genaiUsage(usage), model, { providerId, timestamp })` gives, to the bit; for a
 * model whose price on that day has per-token rates (flat, or tiered by prompt size) it is computed by a checked
 * plan instead of the library's unit algebra (`flatRates.ts`). The provider chosen for a model name and the plan
 * are found for the UTC day of the request (the prices of that day decide both) and remembered per model and day, so
 * a request costs a few arithmetic operations and the result depends only on the request, never on the day it is
 * priced (but for a request without a time, which takes the estimator's clock). An optional third
 * argument (the request's time, ISO-8601 or epoch ms) prices that request at the prices of that day.
 * @example bundledEstimator()('claude-sonnet-4-20250514', { inputTokens: 1e6, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 }) // => 3
 * @since 0.3.0
 * @category Replay
 */
export const bundledEstimator = (
  options: BundledEstimatorOptions = {},
): CostEstimator & ((model: string, usage: UsageBuckets, at?: string | number) => number | undefined) => {
  const fixed = options.at ?? new Date()
  const fixedMs = fixed.getTime()
  const memo = new Map<string, ModelEntry>()
  const entryOf = (model: string): ModelEntry => {
    let e = memo.get(model)
    if (e === undefined) {
      e = { day: Number.NaN, pricing: { lookup: null, plan: null }, days: new Map() }
      if (memo.size >= MEMO_MAX) memo.clear()
      memo.set(model, e)
    }
    return e
  }
  const optionsOf = (l: Lookup, when: Date): { providerId?: string; timestamp: Date } =>
    l.providerId !== undefined ? { providerId: l.providerId, timestamp: when } : { timestamp: when }
  /** The model's lookup and plan on the day of `when`: the provider that prices it then, as calcPrice finds it. */
  const pricingOn = (model: string, when: Date): DayPricing => {
    const lookup = model === 'unknown' || model.trim() === '' ? null : (candidates(model).find((c) => priced(c, when)) ?? null)
    return { lookup, plan: lookup === null ? null : (checkedPlan(genai(), lookup.name, optionsOf(lookup, when)) ?? null) }
  }
  // the last model asked for: a log's requests mostly name one model
  let lastModel: string | undefined
  let last: ModelEntry | undefined
  return (model: string, usage: UsageBuckets, at?: string | number): number | undefined => {
    let e: ModelEntry
    if (model === lastModel && last !== undefined) e = last
    else {
      e = entryOf(model)
      lastModel = model
      last = e
    }
    let ms = fixedMs
    if (at !== undefined) {
      const t = typeof at === 'number' ? at : msFromIso(at)
      if (Number.isFinite(t)) ms = t
    }
    const day = Math.floor(ms / DAY_MS)
    if (day !== e.day) {
      let p = e.days.get(day)
      if (p === undefined) {
        // the lookup is made on the request's day too: which provider prices a model is a fact of that day
        p = pricingOn(model, new Date(ms))
        if (e.days.size >= MEMO_MAX) e.days.clear()
        e.days.set(day, p)
      }
      e.day = day
      e.pricing = p
    }
    const l = e.pricing.lookup
    if (l === null) return undefined
    const { inputTokens, cacheReadTokens, cacheWriteTokens, outputTokens } = usage
    // genaiUsage's input_tokens, summed in the same order
    const all = inputTokens + cacheReadTokens + cacheWriteTokens
    const plan = e.pricing.plan
    if (plan !== null) {
      const fast = planTotal(plan, all, cacheReadTokens, cacheWriteTokens, outputTokens)
      // NaN: counts the plan does not take (the library decides); a non-finite sum is no estimate either way
      if (!Number.isNaN(fast)) return Number.isFinite(fast) ? fast : undefined
    }
    try {
      const r = genai().calcPrice(genaiUsage(usage), l.name, optionsOf(l, ms === fixedMs ? fixed : new Date(ms)))
      return r === null || !Number.isFinite(r.total_price) ? undefined : r.total_price
    } catch {
      return undefined
    }
  }
}

/** What the CLI estimates with (all plain data: it is sent to worker threads). @since 0.2.0 */
export interface EstimateSettings {
  /** `false` turns estimates off (`--no-estimate`). */
  readonly enabled: boolean
  /** The `--prices FILE` table, whose models win over the bundled data. */
  readonly table?: PriceTable
  /** The `--prices` file name, for the report. */
  readonly tableFile?: string
}

/**
 * The estimator of the CLI's settings: the `--prices` table first (it overrides or adds models), then the bundled
 * genai-prices data; `undefined` when estimates are off.
 * @since 0.2.0
 */
export const estimatorOf = (s: EstimateSettings): CostEstimator | undefined => {
  if (!s.enabled) return undefined
  const bundled = bundledEstimator()
  if (s.table === undefined) return bundled
  const own = priceTableEstimator(s.table)
  // the table's prices hold at any time; the bundled ones at the request's
  return (model, usage, at) => own(model, usage) ?? bundled(model, usage, at)
}

/**
 * What the estimates were made with, for `--json`: `{ source, version, file }` (`file` the `--prices` table or
 * `null`), or `null` when estimates are off.
 * @since 0.2.0
 */
export const priceDataOf = (s: EstimateSettings): { readonly source: string; readonly version: string; readonly file: string | null } | null =>
  s.enabled ? { source: PRICE_PACKAGE, version: PRICE_DATA_VERSION, file: s.tableFile ?? null } : null
