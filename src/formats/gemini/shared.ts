/**
 * Small helpers shared by the two Gemini CLI translators (`stream-json` output and on-disk session records).
 *
 * Nothing here echoes input values in a message; only {@link plainJson} reads deeper than one level (to copy a
 * value the state keeps, with a depth and size cap).
 *
 * @module
 * @internal
 */
import { MAX_JSON_DEPTH } from '../../core/boundedJson.js'
import type { FormatName } from '../../core/RunResult.js'

/** The `--format` name of both Gemini CLI inputs. @internal */
export const GEMINI: FormatName = 'gemini'

/** A finite, non-negative number up to 2^53−1 (milliseconds; larger ones make sums inexact; token counts: `isTokenCount`). @internal */
export const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= Number.MAX_SAFE_INTEGER

/** Diagnostic words used by both translators (fixed text, never input). @internal */
export const MSG = {
  notJson: 'skipped a non-JSON line',
  cutLine: 'skipped the last line: it was cut off (no newline) and is not valid JSON',
  notObject: 'skipped a JSON line that is not an object',
} as const

/** The `MAX_TOKENS` finish reason, as a word of its own or a prefix (`MAX_TOKENS_EXCEEDED`). @internal */
const MAX_TOKENS_RE = /(?<![A-Za-z0-9_])MAX_TOKENS(?![a-z])/
/** Finish reasons of a safety or policy filter (upper case, so `safetyRatings` does not match). @internal */
const FILTER_RE = /(?<![A-Za-z0-9_])(?:IMAGE_)?(?:SAFETY|RECITATION|PROHIBITED_CONTENT|BLOCKLIST|SPII)(?![a-z])/

/**
 * Classifies a Gemini CLI invalid-stream message (the `error` record with `severity: "error"` that precedes a
 * `result` with `status: "error"`): `max_tokens` when it names the `MAX_TOKENS` finish reason (for example
 * `MAX_TOKENS_EXCEEDED` or "Last finish reason: MAX_TOKENS"), `content_filter` when it names `SAFETY`,
 * `RECITATION`, `PROHIBITED_CONTENT`, `BLOCKLIST` or `SPII`, else `undefined`. Only the first 4,096 characters
 * are looked at.
 * @internal
 */
export const cutOffOf = (message: string): 'max_tokens' | 'content_filter' | undefined => {
  const head = message.length > 4096 ? message.slice(0, 4096) : message
  if (MAX_TOKENS_RE.test(head)) return 'max_tokens'
  if (FILTER_RE.test(head)) return 'content_filter'
  return undefined
}

/** How many nodes {@link plainJson} copies at most when it has to cut a value (the rest become `null`). */
const MAX_COPY_NODES = 100_000

/**
 * A plain-JSON copy of an input value kept in a translator's state (a pending tool call's `arguments`), so the
 * state stays valid JSON whatever a live SDK object held: the value itself when it is JSON already (a parsed
 * line), else a copy in which cycles, values nested deeper than {@link MAX_JSON_DEPTH} levels and anything JSON
 * cannot write become `null` (what the CLI prints for a deep value anyway, `boundedJson`). `undefined` when the
 * value has no JSON form at all. Never throws.
 * @internal
 */
export const plainJson = (v: unknown): unknown => {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v
  if (typeof v === 'number') return Number.isFinite(v) ? v : null
  try {
    const text = JSON.stringify(v)
    return text === undefined ? undefined : (JSON.parse(text) as unknown)
  } catch {
    // too deep, a cycle, a BigInt, a throwing getter or toJSON: cut it
  }
  let budget = MAX_COPY_NODES
  const ancestors = new Set<object>()
  const cut = (x: unknown, depth: number): unknown => {
    if (x === null || typeof x === 'string' || typeof x === 'boolean') return x
    if (typeof x === 'number') return Number.isFinite(x) ? x : null
    if (typeof x !== 'object' || depth <= 0 || budget <= 0 || ancestors.has(x)) return null
    budget--
    ancestors.add(x)
    try {
      if (Array.isArray(x)) return x.map((y) => cut(y, depth - 1))
      const o = x as Record<string, unknown>
      const out: Array<[string, unknown]> = []
      for (const k of Object.keys(o)) {
        const y = cut(o[k], depth - 1)
        if (y !== undefined) out.push([k, y])
      }
      // Object.fromEntries defines own properties, so a `__proto__` key stays an ordinary key
      return Object.fromEntries(out)
    } catch {
      return null
    } finally {
      ancestors.delete(x)
    }
  }
  return cut(v, MAX_JSON_DEPTH)
}
