/**
 * Paths into a JSON-like value and a copy with one of them replaced: the single-field mutations the guard and
 * decoder properties (test/core/dataGuards.prop.test.ts, plainEvent.prop.test.ts) apply.
 */

/** Every path into a value (nested objects and arrays too), the empty path (the value itself) first. */
export const paths = (v: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> => {
  if (typeof v !== 'object' || v === null) return [prefix]
  const keys: Array<string | number> = Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v)
  return [prefix, ...keys.flatMap((k) => paths((v as Record<string | number, unknown>)[k], [...prefix, k]))]
}

/** A copy of `v` with the value at `path` replaced by `x` (an object key set to `undefined` is removed). */
export const setAt = (v: unknown, path: ReadonlyArray<string | number>, x: unknown): unknown => {
  if (path.length === 0) return x
  const [k, ...rest] = path as [string | number, ...Array<string | number>]
  const copy = Array.isArray(v) ? [...v] : { ...(v as Record<string, unknown>) }
  if (x === undefined && rest.length === 0 && !Array.isArray(copy)) delete (copy as Record<string, unknown>)[k as string]
  else (copy as Record<string | number, unknown>)[k] = setAt((copy as Record<string | number, unknown>)[k], rest, x)
  return copy
}
