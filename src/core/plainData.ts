/**
 * The library boundary's copy of an input value: what the fold reads from an event a caller hands in
 * (`foldEvents`, `foldRuns`, `resumeFold`, the RxJS operators, `decodeEvent`) is a plain copy made by reading
 * every field **once**, so a getter or a `Proxy` cannot pass validation and then read differently in the fold,
 * and a throwing getter, trap or revoked proxy is a `ProtocolError` instead of an exception.
 *
 * The copy is JSON-shaped: own enumerable string keys of an object (a `__proto__` key stays an ordinary key, as
 * `JSON.parse` makes it), array elements `0 … length−1` (a hole becomes `null`); other values (numbers, strings,
 * booleans, `null`, `undefined`, functions) are kept as they are, so validation sees what it saw before, except
 * −0, which becomes 0 as JSON writes it (a checkpoint restores exactly what the fold held).
 * It is bounded: at most {@link MAX_EVENT_VALUES} values per event (an array's `length` is checked before it is
 * walked, so a sparse array of length 2³²−1 fails at once instead of taking minutes), and nesting deeper than
 * {@link MAX_JSON_DEPTH} levels is cut to `null` there (as every JSON writer of the library prints it; a cyclic
 * value is therefore cut too).
 *
 * Values the CLI reads come from `JSON.parse` and skip this copy (they cannot hold getters).
 *
 * @module
 */
import { MAX_JSON_DEPTH } from './boundedJson.js'

/**
 * The most JSON values (objects, arrays and scalars, counted together) the library's copy of one event may
 * hold (2²⁴): past it the event is a `ProtocolError`, so an event's cost is bounded whatever its arrays claim
 * as their `length`. (The CLI bounds a line more tightly, by its bytes and values: `src/io/lines.ts`.)
 * @since 0.2.0
 */
export const MAX_EVENT_VALUES = 16_777_216

/** Why a value could not be copied: the data path (dot-separated) and what was expected there. @since 0.2.0 */
export interface PlainDataProblem {
  readonly path: string
  readonly expected: string
}

class Problem {
  /** The path from the failing field up: each enclosing level adds its key as the error passes through it. */
  readonly path: Array<string> = []
  constructor(readonly expected: string) {}
}

const hasOwn = Object.prototype.hasOwnProperty

/** −0 as `JSON` writes it (0): a checkpoint, written as JSON, must restore the value the fold held. */
const scalar = (x: unknown): unknown => (x === 0 ? 0 : x)

/** A primitive element of an array: counted against the budget, kept as is (−0 as 0). */
const leaf = (x: unknown, budget: { left: number }): unknown => {
  budget.left--
  return scalar(x)
}

/** One object or array level of the copy; `budget.left` counts down the values still allowed. */
const copy = (v: unknown, depth: number, budget: { left: number; readonly max: number }): unknown => {
  if (--budget.left < 0) throw tooMany(budget.max)
  if (typeof v !== 'object' || v === null) return scalar(v)
  if (depth >= MAX_JSON_DEPTH) return null
  let n = -1
  try {
    if (Array.isArray(v)) n = (v as Array<unknown>).length
  } catch {
    throw new Problem('a readable value')
  }
  if (n !== -1) {
    // an array's length is checked before it is walked: a sparse array of length 2³²−1 costs nothing
    if (!(n >= 0) || n > budget.left) throw tooMany(budget.max)
    const out = new Array<unknown>(n)
    for (let i = 0; i < n; i++) {
      try {
        const x = (v as Array<unknown>)[i]
        out[i] = x === undefined ? null : typeof x !== 'object' || x === null ? leaf(x, budget) : copy(x, depth + 1, budget)
      } catch (e) {
        throw withKey(e, String(i))
      }
    }
    if (budget.left < 0) throw tooMany(budget.max)
    return out
  }
  const out: Record<string, unknown> = {}
  let k = ''
  let reading = false
  try {
    for (k in v) {
      reading = true
      if (!hasOwn.call(v, k)) {
        reading = false
        continue
      }
      const x = (v as Record<string, unknown>)[k]
      const c = typeof x !== 'object' || x === null ? scalar(x) : copy(x, depth + 1, budget)
      if (--budget.left < 0) throw tooMany(budget.max)
      if (k === '__proto__') Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true })
      else out[k] = c
      reading = false
    }
  } catch (e) {
    // a failure while listing the keys (a Proxy's `ownKeys` trap) is the object's own; one reading a field, that field's
    throw reading ? withKey(e, k) : e instanceof Problem ? e : new Problem('a readable value')
  }
  return out
}

const tooMany = (max: number): Problem => new Problem(`at most ${max.toLocaleString('en-US')} JSON values`)

/** The error of a field read (a getter's own exception is a `Problem` at that key), with `key` added to its path. */
const withKey = (e: unknown, key: string): Problem => {
  const p = e instanceof Problem ? e : new Problem('a readable value')
  p.path.push(key)
  return p
}

/**
 * A plain copy of `input` (see the module doc), or the problem that stopped it: a field whose read throws
 * (`expected: 'a readable value'`), or more than `maxValues` values (`expected: 'at most … JSON values'`).
 * Never throws.
 * @example plainData({ type: 't', get data() { return { n: 1 } } }) // => { value: { type: 't', data: { n: 1 } } }
 * @since 0.2.0
 */
export const plainData = (input: unknown, maxValues: number = MAX_EVENT_VALUES): { readonly value: unknown } | { readonly problem: PlainDataProblem } => {
  try {
    return { value: copy(input, 0, { left: maxValues, max: maxValues }) }
  } catch (e) {
    // a stack overflow cannot happen (depth is cut at MAX_JSON_DEPTH); anything else is a hostile value
    const path = e instanceof Problem ? e.path.reverse().join('.') : ''
    return { problem: { path, expected: e instanceof Problem ? e.expected : 'a readable value' } }
  }
}
