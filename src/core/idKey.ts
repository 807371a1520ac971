/**
 * The `#`-prefixed record key of an id (a session, a child session, a model), remembered per id.
 *
 * Why: the fold keys its id records (`sessions`, `children`, `byModel`, `childIndex`) by `#` + id, so an id such as
 * `__proto__` is an ordinary key. Building that key per event (`` `#${id}` ``) makes a new string that V8 must
 * flatten, hash and look up in its string table before it can use it as a key — a few hundred ns for ids of
 * more than a dozen characters. Looking the id up in a `Map` hashes it once and hands back the key built the first
 * time (already internalized), so the record lookup that follows is cheap. Memoising a pure function: the
 * fold stays a pure function of its inputs.
 *
 * @module
 * @internal
 */

/** How many ids' keys are remembered; past this the memo starts over (ids of a log are few; a log of millions of sessions recomputes). */
const MAX_KEYS = 4096

const keys = new Map<string, string>()

/**
 * `'#' + id`, the key of `id` in the fold's id-keyed records: equal to `` `#${id}` `` for every string. Never throws.
 * @internal
 */
export const idKey = (id: string): string => {
  let k = keys.get(id)
  if (k === undefined) {
    if (keys.size >= MAX_KEYS) keys.clear()
    k = `#${id}`
    keys.set(id, k)
  }
  return k
}
