/**
 * Cost estimates from a price table, for formats that carry no cost (Codex, Gemini, AI SDK, transcripts).
 *
 * Prices are USD per million tokens, per model: `input` (uncached input), `cachedInput` (cache reads),
 * `cacheWrite` (cache writes; defaults to `input`), `output` (output including reasoning). A model is matched by
 * its exact id, then by the longest key ending in `*` that prefixes it. An estimate sets `cost.estimated: true`;
 * a reported cost is never replaced, and a model without a price leaves the cost missing (never zero, SPEC §3).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import type { CostEstimator } from './fold.js'
import { NO_MODEL, type Cost, type ModelUsage, type RunResult, type UsageBuckets } from './RunResult.js'
import { safeName } from './names.js'
import { roundUsd } from './usd.js'

/** One model's prices in USD per million tokens. @since 0.1.0 @category Prices */
export const ModelPrice = t.intersection([t.type({ input: t.number, output: t.number }), t.partial({ cachedInput: t.number, cacheWrite: t.number })])
/** @since 0.1.0 */
export type ModelPrice = t.TypeOf<typeof ModelPrice>

/** A price table: model id (or `prefix*`) → prices. @since 0.1.0 @category Prices */
export const PriceTable = t.record(t.string, ModelPrice)
/** @since 0.1.0 */
export type PriceTable = t.TypeOf<typeof PriceTable>

/** The fields of a model's price: a key outside them is a mistake (a typo would otherwise price as if it were absent). */
const PRICE_FIELDS: ReadonlyArray<string> = ['input', 'output', 'cachedInput', 'cacheWrite']

/**
 * Validates a parsed price table (e.g. the JSON of `--prices FILE`).
 * **Fails with** a message naming the first bad model entry (no input values echoed): a field missing or not a
 * number, a number that is not finite and non-negative, or a field it does not know (`cached_input` for
 * `cachedInput`: ignored, it would leave cache reads priced at `input` without a word).
 * @since 0.1.0
 * @category Prices
 */
export const decodePriceTable = (u: unknown): E.Either<string, PriceTable> => {
  const r = PriceTable.decode(u)
  if (E.isRight(r)) {
    for (const [model, p] of Object.entries(r.right)) {
      const unknown = Object.keys(p).find((k) => !PRICE_FIELDS.includes(k))
      if (unknown !== undefined)
        return E.left(`the price of "${safeName(model)}" has a field "${safeName(unknown)}" it does not know (its fields: ${PRICE_FIELDS.join(', ')})`)
      const values = [p.input, p.output, p.cachedInput ?? 0, p.cacheWrite ?? 0]
      if (values.some((x) => !Number.isFinite(x) || x < 0)) return E.left(`the price of "${safeName(model)}" must be finite, non-negative numbers`)
    }
    return E.right(r.right)
  }
  const example = '{ "model-id": { "input": 3, "cachedInput": 0.3, "output": 15 } } (USD per million tokens)'
  if (typeof u !== 'object' || u === null || Array.isArray(u)) return E.left(`a price table is an object: ${example}`)
  // the first entry that is wrong, by name and field (never its value)
  for (const [model, p] of Object.entries(u as Record<string, unknown>)) {
    const name = `"${safeName(model)}"`
    if (typeof p !== 'object' || p === null || Array.isArray(p)) return E.left(`the price of ${name} must be an object: ${example}`)
    for (const field of PRICE_FIELDS) {
      const v = (p as Record<string, unknown>)[field]
      const required = field === 'input' || field === 'output'
      if ((v === undefined && required) || (v !== undefined && typeof v !== 'number'))
        return E.left(`the price of ${name} needs "${field}" as a number of USD per million tokens${required ? '' : ' (or no such key)'}`)
    }
  }
  return E.left(`a price table is an object: ${example}`)
}

/**
 * The price of a model: exact id first, then the longest matching `prefix*` key. The usage of no model
 * ({@link NO_MODEL}, `unknown`) has a price only under that exact key — a table may price a log that names no model
 * on purpose (`{ "unknown": … }` for `codex exec --json` runs of a known model), but a pattern (`*`, `unk*`) never
 * prices it by accident.
 * @since 0.1.0
 * @category Prices
 */
export const priceOf = (table: PriceTable, model: string): ModelPrice | undefined => {
  if (Object.hasOwn(table, model)) return table[model]
  if (model === NO_MODEL) return undefined
  let best: ModelPrice | undefined
  let bestLen = -1
  for (const key of Object.keys(table)) {
    if (!key.endsWith('*')) continue
    const prefix = key.slice(0, -1)
    if (model.startsWith(prefix) && prefix.length > bestLen) {
      best = table[key]
      bestLen = prefix.length
    }
  }
  return best
}

const costOf = (u: UsageBuckets, p: ModelPrice): number =>
  (u.inputTokens * p.input + u.cacheReadTokens * (p.cachedInput ?? p.input) + u.cacheWriteTokens * (p.cacheWrite ?? p.input) + u.outputTokens * p.output) / 1e6

/**
 * A per-request {@link CostEstimator} (for `PipelineOptions.estimate` / `ReplayOptions.estimate`) from a price
 * table: USD of one request at the model's prices (`input` × uncached input + `cachedInput` × cache reads +
 * `cacheWrite` × cache writes + `output` × output, per million tokens), or `undefined` for a model the table does
 * not list (its cost stays unknown). A table has no tiers, so per request and per run give the same figure.
 * @example priceTableEstimator({ 'gpt-5*': { input: 1.25, cachedInput: 0.125, output: 10 } })('gpt-5-codex', { inputTokens: 1e6, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 }) // => 1.25
 * @since 0.3.0
 * @category Prices
 */
export const priceTableEstimator =
  (table: PriceTable): CostEstimator =>
  (model, usage) => {
    const p = priceOf(table, model)
    return p === undefined ? undefined : costOf(usage, p)
  }

/**
 * A copy of `result` whose missing costs are estimated from `table`, model by model, from the run's totals (the
 * CLI instead prices each request as it is read, through {@link priceTableEstimator}, so tiered prices apply
 * per request): a model whose cost is
 * unknown and that has a price gets an estimated `costUsd`; a model without a price keeps `null`, and then the
 * run's `totalUsd` stays `null` (a partial sum would look complete, bug kind K12). Unchanged when the cost is
 * already complete or the run has no usage. `cost.estimated` is set when any figure was estimated.
 * @since 0.1.0
 * @category Prices
 */
export const estimateCost = (result: RunResult, table: PriceTable): RunResult => {
  if (result.cost.complete && result.cost.totalUsd !== null) return result
  const models = Object.entries(result.usage.byModel)
  if (models.length === 0) return result
  let total = 0
  let unpriced = 0
  let estimated = false
  const byModel: Array<[string, ModelUsage]> = []
  for (const [model, u] of models) {
    if (u.costUsd !== null) {
      total += u.costUsd
      byModel.push([model, u])
      continue
    }
    const p = priceOf(table, model)
    if (p === undefined) {
      unpriced++
      byModel.push([model, u])
      continue
    }
    const c = costOf(u, p)
    // a figure that is not a finite USD amount up to 2^53−1 (a 1e308 price gives Infinity) is no estimate
    if (!(Number.isFinite(c) && c >= 0 && c <= Number.MAX_SAFE_INTEGER)) {
      unpriced++
      byModel.push([model, u])
      continue
    }
    total += c
    estimated = true
    byModel.push([model, { ...u, costUsd: roundUsd(c) }])
  }
  if (!estimated) return result
  const cost: Cost =
    unpriced === 0 && total <= Number.MAX_SAFE_INTEGER
      ? { totalUsd: roundUsd(total), complete: true, missing: 0, estimated: true }
      : { totalUsd: null, complete: false, missing: unpriced, estimated: true }
  return { ...result, usage: { ...result.usage, byModel: Object.fromEntries(byModel) }, cost }
}
