/**
 * The one check of a parsed JSON value that every layer shares: is it an object whose fields can be read.
 * @module
 * @internal
 */

/**
 * `true` when `n` is a token count: a whole number of tokens, 0 … 2^53−1 (SPEC §4: counts are finite,
 * non-negative integers; `1.5`, `-1`, `1e999` and `"3"` are not). Every reader of a format's usage and the fold
 * check counts with this one rule. Never throws.
 * @internal
 */
export const isTokenCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0

/** A parsed JSON object, keyed by its field names. @internal */
export type Obj = Record<string, unknown>

/**
 * `true` when `u` is a plain JSON object: `typeof` `object`, not `null` and not an array (so a field can be
 * read with `u[key]`). Never throws.
 * @internal
 */
export const isObject = (u: unknown): u is Obj => typeof u === 'object' && u !== null && !Array.isArray(u)
