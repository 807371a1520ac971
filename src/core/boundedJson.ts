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

const cut = (v: unknown, depth: number): unknown => {
  if (typeof v !== 'object' || v === null) return v
  if (depth <= 0) return null
  if (Array.isArray(v)) return v.map((x) => cut(x, depth - 1))
  const o = v as Record<string, unknown>
  // Object.fromEntries defines own properties, so a `__proto__` key stays an ordinary key
  return Object.fromEntries(Object.keys(o).map((k) => [k, cut(o[k], depth - 1)]))
}

/**
 * `JSON.stringify(value)`, or, when the value is too deep for it, the JSON of a copy cut at
 * {@link MAX_JSON_DEPTH} levels (deeper values become `null`). `undefined` gives `'null'`.
 *
 * **Throws** `RangeError` only when the text itself would exceed the engine's string length limit (~512 MiB).
 * @example boundedJson({ a: 1 }) // => '{"a":1}'
 * @since 0.1.0
 */
export const boundedJson = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? 'null'
  } catch {
    return JSON.stringify(cut(value, MAX_JSON_DEPTH)) ?? 'null'
  }
}
