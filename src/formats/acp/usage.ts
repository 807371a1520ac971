/**
 * ACP usage and cost: the token buckets of the (unstable) `PromptResponse.usage`, and a prompt turn's cost from
 * the session's cumulative `usage_update.cost`.
 *
 * **Usage** `{inputTokens, outputTokens, totalTokens, thoughtTokens?, cachedReadTokens?, cachedWriteTokens?}` is
 * read as this prompt turn's usage. The schema defines `totalTokens` as the sum of all token types, so the
 * categories are read as disjoint: `inputTokens` excludes cache reads and `thoughtTokens` are apart from
 * `outputTokens` (added to output, and repeated as `reasoningTokens`). When `totalTokens` instead matches another
 * split (thought inside output: `input + output + cacheRead + cacheWrite`; cache reads inside input:
 * `input + output (+ cacheWrite) (+ thought)`), that split is used; a total matching none is read the schema way
 * with a diagnostic.
 *
 * **Cost**: a run's cost is the latest USD amount seen during the run minus the amount before it started; it is
 * missing (never zero) when the run saw no USD amount, when the session cost before the run is unknown, or when
 * the amount went down.
 *
 * @module
 * @internal
 */
import * as t from 'io-ts'
import { roundUsd } from '../../core/usd.js'
import type { UsageInput } from '../../core/RunResult.js'
import { isTokenCount } from '../../core/values.js'
import type { Obj } from '../json.js'

/** A token count ({@link isTokenCount}: whole, 0 … 2^53−1), else `undefined`. */
const tokens = (u: unknown): number | undefined => (isTokenCount(u) ? u : undefined)

/**
 * Disjoint usage buckets (tokens) as the translator keeps them until the run is emitted. A bucket is `null`
 * only after a checkpoint wrote a non-finite sum (JSON has no `Infinity`); it is treated as not a count.
 * @internal
 */
export interface AcpBuckets {
  inputTokens: number | null
  cacheReadTokens: number | null
  cacheWriteTokens: number | null
  outputTokens: number | null
  reasoningTokens: number | null
}

const Bucket = t.union([t.number, t.null])

/** io-ts codec of {@link AcpBuckets}. @internal */
export const AcpBucketsCodec: t.Type<AcpBuckets, unknown> = t.type({
  inputTokens: Bucket,
  cacheReadTokens: Bucket,
  cacheWriteTokens: Bucket,
  outputTokens: Bucket,
  reasoningTokens: Bucket,
}) as unknown as t.Type<AcpBuckets, unknown>

/**
 * Disjoint usage buckets from an ACP `PromptResponse.usage` object (tokens), or `undefined` when
 * `inputTokens` / `outputTokens` are not token counts (whole numbers, 0 … 2^53−1). `note` receives a fixed message when
 * `totalTokens` matches no known split. See the module doc for the reading of the buckets.
 * @since 0.1.0
 */
export const acpUsageBuckets = (u: Obj, note?: (message: string) => void): UsageInput | undefined => {
  const input = tokens(u['inputTokens'])
  const output = tokens(u['outputTokens'])
  if (input === undefined || output === undefined) return undefined
  const thought = tokens(u['thoughtTokens']) ?? 0
  const cr = tokens(u['cachedReadTokens']) ?? 0
  const cw = tokens(u['cachedWriteTokens']) ?? 0
  const total = tokens(u['totalTokens'])
  const disjoint: UsageInput = { inputTokens: input, cacheReadTokens: cr, cacheWriteTokens: cw, outputTokens: output + thought, reasoningTokens: thought }
  if (total === undefined || total === input + output + thought + cr + cw) return disjoint
  if (total === input + output + cr + cw && thought <= output) {
    return { inputTokens: input, cacheReadTokens: cr, cacheWriteTokens: cw, outputTokens: output, reasoningTokens: thought }
  }
  if (cr <= input && thought <= output && (total === input + output + cw || total === input + output)) {
    return { inputTokens: input - cr, cacheReadTokens: cr, cacheWriteTokens: cw, outputTokens: output, reasoningTokens: thought }
  }
  if (cr <= input && (total === input + output + thought + cw || total === input + output + thought)) {
    return { inputTokens: input - cr, cacheReadTokens: cr, cacheWriteTokens: cw, outputTokens: output + thought, reasoningTokens: thought }
  }
  note?.('usage totalTokens matches no known split of its parts; read as disjoint buckets')
  return disjoint
}

/** The buckets of {@link acpUsageBuckets} as the translator keeps them. @internal */
export const toAcpBuckets = (u: UsageInput): AcpBuckets => ({
  inputTokens: u.inputTokens ?? 0,
  cacheReadTokens: u.cacheReadTokens ?? 0,
  cacheWriteTokens: u.cacheWriteTokens ?? 0,
  outputTokens: u.outputTokens ?? 0,
  reasoningTokens: u.reasoningTokens ?? 0,
})

/** A finite price, 0 … 2^53−1 (the fold's rule for the costs it adds up). @internal */
export const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= Number.MAX_SAFE_INTEGER

/**
 * The buckets the fold may add (each a count, else 0) and whether any was not a count (the run then gets the
 * fold's own diagnostic for it, as `addUsage` gives).
 * @internal
 */
export const countedBuckets = (
  b: AcpBuckets | null,
): {
  readonly usage: { inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; outputTokens: number; reasoningTokens: number }
  readonly bad: boolean
} => {
  if (b === null) return { usage: { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 }, bad: false }
  let bad = false
  const c = (n: number | null): number => {
    if (isTokenCount(n)) return n
    bad = true
    return 0
  }
  const usage = {
    inputTokens: c(b.inputTokens),
    cacheReadTokens: c(b.cacheReadTokens),
    cacheWriteTokens: c(b.cacheWriteTokens),
    outputTokens: c(b.outputTokens),
    reasoningTokens: c(b.reasoningTokens),
  }
  return { usage, bad }
}

/** The message the fold's `addUsage` writes for a count it ignores (kept word for word). @internal */
export const BAD_COUNT = 'ignored a token count that is not a whole, non-negative number'

/**
 * A run's cost (USD) from the session's cumulative amounts: `last − base`, with the diagnostics that explain a
 * missing cost. `undefined` cost = missing.
 * @internal
 */
export const runCost = (
  base: number | null,
  last: number | null,
  otherCurrency: boolean,
): { readonly cost: number | undefined; readonly diagnostics: ReadonlyArray<string> } => {
  const diagnostics: Array<string> = []
  let cost: number | undefined
  if (last !== null) {
    if (base === null) diagnostics.push('cost is missing: the session cost before this run is unknown')
    else if (last < base) diagnostics.push('cost is missing: the session cost went down during the run')
    else cost = roundUsd(last - base)
  }
  if (otherCurrency) diagnostics.push('cost in a currency other than USD is not counted')
  // a difference too large to add up exactly is missing, as the fold's addUsage would count it
  if (cost !== undefined && !isCount(cost)) cost = undefined
  return { cost, diagnostics }
}
