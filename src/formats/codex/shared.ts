/**
 * Helpers shared by the two Codex translators (`exec --json` and rollouts): reading Codex token counts and
 * converting them into run-outcome's disjoint buckets.
 *
 * Codex counts tokens the OpenAI way (field names from `codex-rs` `TokenUsage` and the SDK's `Usage`):
 * `input_tokens` is every prompt token, cached ones included; `cached_input_tokens` is the cached part of it;
 * `cache_write_input_tokens` (newer builds, optional) is the part written to the cache; `output_tokens` includes
 * `reasoning_output_tokens`; `total_tokens` is `input_tokens + output_tokens`.
 *
 * @module
 */
import * as t from 'io-ts'
import type { NativeUsage } from '../../core/events.js'
import { isTokenCount } from '../../core/values.js'
import { isObject } from '../json.js'

/**
 * Codex token counts as the source writes them (tokens). `input` includes `cached` and `cacheWrite`;
 * `output` includes `reasoning`.
 * @since 0.1.0
 */
export interface CodexTokens {
  readonly input: number
  readonly cached: number
  readonly cacheWrite: number
  readonly output: number
  readonly reasoning: number
}

/** io-ts codec of {@link CodexTokens} (translator state). @internal */
export const CodexTokensCodec = t.type({ input: t.number, cached: t.number, cacheWrite: t.number, output: t.number, reasoning: t.number })

const FIELDS = [
  ['input', 'input_tokens'],
  ['cached', 'cached_input_tokens'],
  ['cacheWrite', 'cache_write_input_tokens'],
  ['output', 'output_tokens'],
  ['reasoning', 'reasoning_output_tokens'],
] as const

/**
 * Reads a Codex usage object (`turn.completed.usage`, `token_count.info.total_token_usage`). Absent or `null`
 * fields count as 0. Returns `undefined` when `u` is not an object or a present field is not a token count
 * (a whole number, 0 … 2^53−1; the caller records a diagnostic and skips the usage).
 * @since 0.1.0
 */
export const readTokens = (u: unknown): CodexTokens | undefined => {
  if (!isObject(u)) return undefined
  const out = { input: 0, cached: 0, cacheWrite: 0, output: 0, reasoning: 0 }
  for (const [k, f] of FIELDS) {
    const v = u[f]
    if (v === undefined || v === null) continue
    if (!isTokenCount(v)) return undefined
    out[k] = v
  }
  return out
}

/** `true` when every count of `b` is at least the same count of `a` (so `b` can be a running total after `a`). @internal */
export const notBelow = (a: CodexTokens, b: CodexTokens): boolean =>
  b.input >= a.input && b.cached >= a.cached && b.cacheWrite >= a.cacheWrite && b.output >= a.output && b.reasoning >= a.reasoning

/** `b − a`, count by count. @internal */
export const minus = (b: CodexTokens, a: CodexTokens): CodexTokens => ({
  input: b.input - a.input,
  cached: b.cached - a.cached,
  cacheWrite: b.cacheWrite - a.cacheWrite,
  output: b.output - a.output,
  reasoning: b.reasoning - a.reasoning,
})

/** `true` when every count is 0. @internal */
export const isZero = (t: CodexTokens): boolean => t.input === 0 && t.cached === 0 && t.cacheWrite === 0 && t.output === 0 && t.reasoning === 0

/**
 * Codex counts → disjoint buckets (SPEC §3): `inputTokens = input − cached − cacheWrite` (input not served from
 * or written to the cache; `cacheWrite` is 0 unless the source sent it), `cacheReadTokens = cached`,
 * `cacheWriteTokens = cacheWrite`, `outputTokens = output` (reasoning is already inside), `reasoningTokens =
 * reasoning`. The conversion is linear, so the buckets of a difference of running totals are the difference of
 * their buckets.
 *
 * Example: `{input_tokens: 6040, cached_input_tokens: 4992, output_tokens: 129}` →
 * `{inputTokens: 1048, cacheReadTokens: 4992, outputTokens: 129}`.
 * @since 0.1.0
 */
export const toBuckets = (c: CodexTokens): NativeUsage =>
  ({
    inputTokens: Math.max(0, c.input - c.cached - c.cacheWrite),
    cacheReadTokens: c.cached,
    cacheWriteTokens: c.cacheWrite,
    outputTokens: c.output,
    reasoningTokens: c.reasoning,
  }) as NativeUsage

/**
 * `true` for text that starts like an ISO-8601 date-time (`YYYY-MM-DDT`), checked on character codes only, so a
 * redacted or garbage timestamp never becomes a run's `startedAt`.
 * @internal
 */
export const looksIsoTime = (s: unknown): s is string => {
  if (typeof s !== 'string' || s.length < 16) return false
  for (let i = 0; i < 10; i++) {
    const c = s.charCodeAt(i)
    if (i === 4 || i === 7) {
      if (c !== 45) return false
    } else if (c < 48 || c > 57) return false
  }
  return s.charCodeAt(10) === 84
}
