/**
 * Small helpers shared by the two Gemini CLI readers (`stream-json` output and on-disk session records).
 *
 * Nothing here reads deeper than one level into input values, stringifies them or echoes them in a message.
 *
 * @module
 * @internal
 */
import type { FormatName } from '../../core/RunResult.js'

/** The `--format` name of both Gemini CLI inputs. @internal */
export const GEMINI: FormatName = 'gemini'

/** A finite, non-negative number up to 2^53−1 (a token count or milliseconds; larger ones make sums inexact). @internal */
export const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= Number.MAX_SAFE_INTEGER

/** Diagnostic words used by both readers (fixed text, never input). @internal */
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

/** Truncates a name taken from input (an error class, a model id in a message) to at most 60 characters. @internal */
export const shortName = (s: string): string => (s.length > 60 ? s.slice(0, 60) : s)
