/**
 * Structural equality for results that may hold hostile keys. vitest's `toStrictEqual` compares
 * `a.constructor === b.constructor`, so two equal objects with an own `constructor` key (a model or session
 * named "constructor") are reported as different with "no visual difference". These helpers compare with
 * `util.isDeepStrictEqual` and report the first differing path, never the values (which may be huge or deep).
 */
import { isDeepStrictEqual } from 'node:util'

const isObj = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null

/**
 * Plain JSON objects count as one kind whether their prototype is `Object.prototype` or `null` (the fold keeps
 * some id indexes prototype-less for speed; a checkpoint read back with JSON.parse has ordinary objects).
 */
const plain = (o: object): boolean => {
  const p = Object.getPrototypeOf(o)
  return p === null || p === Object.prototype
}
const samePrototype = (x: object, y: object): boolean => (plain(x) && plain(y)) || Object.getPrototypeOf(x) === Object.getPrototypeOf(y)

/** The first path where `a` and `b` differ (`$` when they differ at the top), or `undefined` when equal. */
export const firstDifference = (a: unknown, b: unknown): string | undefined => {
  if (isDeepStrictEqual(a, b)) return undefined
  const stack: Array<[unknown, unknown, string]> = [[a, b, '$']]
  while (stack.length > 0) {
    const [x, y, path] = stack.pop() as [unknown, unknown, string]
    if (isDeepStrictEqual(x, y)) continue
    if (!isObj(x) || !isObj(y) || Array.isArray(x) !== Array.isArray(y) || !samePrototype(x, y)) return path
    const kx = Object.keys(x)
    const ky = Object.keys(y)
    for (const k of kx) if (!Object.hasOwn(y, k)) return `${path}.${k} (only left)`
    for (const k of ky) if (!Object.hasOwn(x, k)) return `${path}.${k} (only right)`
    for (const k of kx) stack.push([x[k], y[k], `${path}.${k}`])
  }
  // every own key matched all the way down: equal as JSON values (only plain-object prototypes differed)
  return undefined
}

/** Throws, naming the first differing path, unless `actual` and `expected` are deeply, strictly equal. */
export const expectSame = (actual: unknown, expected: unknown, what = 'value'): void => {
  const d = firstDifference(actual, expected)
  if (d !== undefined) throw new Error(`${what} differs at ${d}`)
}
