/**
 * JSON text of values that may hold input of any shape, without throwing on depth.
 *
 * `JSON.stringify` recurses: a value nested a few thousand levels deep (a 100,000-level `arguments` payload in
 * a log) makes it throw `RangeError`. Results and fold states keep such payloads as the source gave them
 * (a pending tool call's `arguments`, a structured output), so every writer of their JSON goes through
 * {@link boundedJson}: plain `JSON.stringify` first (no cost for ordinary values), and only when that throws,
 * a copy in which anything nested deeper than {@link MAX_JSON_DEPTH} levels is written as `null`.
 *
 * @module
 */

/** Nesting depth kept when a value is too deep for `JSON.stringify`; deeper parts are written as `null`. @since 0.1.0 */
export const MAX_JSON_DEPTH = 512

/** Objects and arrays a cut copy visits at most (a value shared many times over is counted each time). @since 0.2.0 */
export const MAX_JSON_NODES = 16_777_216

/** The copy cut at `depth` levels; `path` holds the objects above `v` (a cycle), `budget` the nodes visited. */
const cut = (v: unknown, depth: number, path: Set<object>, budget: { n: number; readonly max: number }): unknown => {
  if (typeof v !== 'object' || v === null) return v
  if (depth <= 0) return null
  if (path.has(v)) throw new TypeError('the value refers to itself (a cycle): it has no JSON text')
  if (++budget.n > budget.max) throw new RangeError(`the value holds more than ${budget.max} objects and arrays to write`)
  path.add(v)
  try {
    if (Array.isArray(v)) return v.map((x) => cut(x, depth - 1, path, budget))
    const o = v as Record<string, unknown>
    // Object.fromEntries defines own properties, so a `__proto__` key stays an ordinary key
    return Object.fromEntries(Object.keys(o).map((k) => [k, cut(o[k], depth - 1, path, budget)]))
  } finally {
    path.delete(v)
  }
}

/**
 * `JSON.stringify(value)`, or, when the value is too deep for it, the JSON of a copy cut at
 * {@link MAX_JSON_DEPTH} levels (deeper values become `null`). `undefined` gives `'null'`.
 *
 * **Throws** `TypeError` when the value refers to itself (a cycle: only a value built by hand, never one the
 * fold built — it copies input as plain data), and `RangeError` when the text would exceed the engine's string
 * length limit (~512 MiB) or the copy would visit more than {@link MAX_JSON_NODES} objects (a value sharing
 * one part many times over), so the work is bounded whatever the value.
 * @example boundedJson({ a: 1 }) // => '{"a":1}'
 * @since 0.1.0
 */
export const boundedJson = (value: unknown): string => boundedJsonWithin(value, MAX_JSON_NODES)

/** {@link boundedJson} with a budget of `maxNodes` objects and arrays for the cut copy (tests use a small one). @internal */
export const boundedJsonWithin = (value: unknown, maxNodes: number): string => {
  try {
    return JSON.stringify(value) ?? 'null'
  } catch {
    return JSON.stringify(cut(value, MAX_JSON_DEPTH, new Set(), { n: 0, max: maxNodes })) ?? 'null'
  }
}
