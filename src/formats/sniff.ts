/**
 * The detection score shared by the line formats that recognise their records one at a time.
 *
 * @module
 * @internal
 */
import { isObject, type Obj } from './json.js'

/**
 * How sure the first parsed lines are of one format, from the share of their JSON objects that `isRecord`
 * recognises as its records: 0 when it recognises none, else `0.5 + 0.5 × (records / objects)`. Values that
 * are not JSON objects (non-JSON lines are `undefined`) are left out of the share.
 * @internal
 */
export const shareScore = (values: ReadonlyArray<unknown>, isRecord: (v: Obj) => boolean): number => {
  let objects = 0
  let hits = 0
  for (const v of values) {
    if (!isObject(v)) continue
    objects++
    if (isRecord(v)) hits++
  }
  return hits === 0 ? 0 : 0.5 + 0.5 * (hits / objects)
}
