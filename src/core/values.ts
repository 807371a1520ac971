/**
 * The one check of a parsed JSON value that every layer shares: is it an object whose fields can be read.
 * @module
 * @internal
 */

/** A parsed JSON object, keyed by its field names. @internal */
export type Obj = Record<string, unknown>

/**
 * `true` when `u` is a plain JSON object: `typeof` `object`, not `null` and not an array (so a field can be
 * read with `u[key]`). Never throws.
 * @internal
 */
export const isObject = (u: unknown): u is Obj => typeof u === 'object' && u !== null && !Array.isArray(u)
