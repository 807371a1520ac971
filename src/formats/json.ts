/**
 * Small checks on parsed JSON values, shared by the format readers. Each one is a plain function over one value
 * (no closure, no allocation), so a reader may call it for every record.
 *
 * Nothing here stringifies input values, reads deeper than the value given, or throws.
 *
 * @module
 * @internal
 */
import { safeName } from '../core/names.js'
import { isTokenCount } from '../core/values.js'

export { isObject, type Obj } from '../core/values.js'

/** `u` when it is a string (the empty string included), else `undefined`. @internal */
export const str = (u: unknown): string | undefined => (typeof u === 'string' ? u : undefined)

/**
 * `u` when it is a finite, non-negative number (a token count, a duration), else `undefined` (also for `NaN`,
 * `Infinity`, a negative number or a numeric string). No upper bound and no integer check.
 * @internal
 */
export const count = (u: unknown): number | undefined => (typeof u === 'number' && Number.isFinite(u) && u >= 0 ? u : undefined)

/**
 * `u` when it is a whole number of things (turns, a turn limit), 0 … 2^53−1, else `undefined` (`2.5`, `-1`,
 * `1e308`, `"3"`): the rule of token counts ({@link isTokenCount}). SPEC §3: turns and turn limits are counts.
 * @internal
 */
export const wholeCount = (u: unknown): number | undefined => (isTokenCount(u) ? u : undefined)

/** A name taken from input cut and cleaned for a diagnostic or a `lastEventType`: the library's one {@link safeName}. @internal */
export const short = safeName

/** What {@link parseJson} returns for text that is not valid JSON (no JSON value is a symbol). @internal */
export const NOT_JSON: unique symbol = Symbol('not JSON')

/**
 * The value of one line of JSON text (`JSON.parse`), or {@link NOT_JSON} when the text does not parse. Never
 * throws, so a reader's line handler needs no `try` of its own.
 * @internal
 */
export const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return NOT_JSON
  }
}

/**
 * A fresh id-keyed index for translator state (`#`-prefixed keys): a prototype-less object, a plain JSON value
 * that V8 keeps as a dictionary from the start (an ordinary `{}` gets a new hidden class for every distinct id,
 * which made id bookkeeping a top cost of a replay).
 * @internal
 */
export const idIndex = <V>(): Record<string, V> => Object.create(null) as Record<string, V>
