/**
 * A bounded set of recently seen ids (tool call ids, item ids) for translator state: plain JSON — the last `cap`
 * ids in a ring — with a `Set` index kept beside it, outside the state (a `WeakMap` keyed by the ring), so a
 * lookup hashes the id once instead of building a prefixed key. A ring read back from a checkpoint has no index
 * yet: the first lookup builds it from the ring.
 *
 * @module
 * @internal
 */
import * as t from 'io-ts'

/** The ids of the ring, oldest at `pos` once it is full. @internal */
export interface IdRing {
  ids: Array<string>
  pos: number
}

/** io-ts codec of an {@link IdRing}. @internal */
export const IdRingCodec = t.type({ ids: t.array(t.string), pos: t.number })

/** An empty ring. @internal */
export const newIdRing = (): IdRing => ({ ids: [], pos: 0 })

const indexes = new WeakMap<IdRing, Set<string>>()

const indexOf = (r: IdRing): Set<string> => {
  let ix = indexes.get(r)
  if (ix === undefined) {
    ix = new Set(r.ids)
    indexes.set(r, ix)
  }
  return ix
}

/** `true` when `id` is one of the ring's ids. @internal */
export const ringHas = (r: IdRing, id: string): boolean => (r.ids.length === 0 ? false : indexOf(r).has(id))

/** Adds `id` (the oldest is forgotten past `cap`); `true` when it was not there. @internal */
export const ringAdd = (r: IdRing, id: string, cap: number): boolean => {
  const ix = indexOf(r)
  if (ix.has(id)) return false
  ix.add(id)
  if (r.ids.length < cap) r.ids.push(id)
  else {
    ix.delete(r.ids[r.pos] as string)
    r.ids[r.pos] = id
    r.pos = (r.pos + 1) % cap
  }
  return true
}
