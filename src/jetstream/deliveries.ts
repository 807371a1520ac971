/**
 * The delivery sequences a worker holds: a set of integers kept as sorted, disjoint, closed intervals. A
 * durable numbers its deliveries 1, 2, 3, … across all the workers that pull from it, and one worker receives
 * its share in increasing order, so the set is a few long intervals and adding is O(1) in the common case.
 *
 * Used to skip the stream read before applying a message (docs/scale-out.md, "ordering"): when a worker holds
 * every delivery between the one that applied a session's last event and the one it is about to apply, no
 * event of that session can sit in between with another worker.
 *
 * @module
 */

/** A set of delivery sequences as sorted, disjoint intervals; forgets the lowest ones beyond `maxIntervals`. @since 0.1.0 */
export class DeliverySet {
  /** `[lo, hi]` pairs, sorted, disjoint and not adjacent. */
  private readonly spans: Array<[number, number]> = []
  constructor(private readonly maxIntervals = 4096) {}

  /** Number of intervals (for tests). */
  get intervals(): number {
    return this.spans.length
  }

  /** Adds `d`. */
  add(d: number): void {
    const last = this.spans[this.spans.length - 1]
    if (last !== undefined && d >= last[0]) {
      if (d <= last[1]) return
      if (d === last[1] + 1) {
        last[1] = d
        return
      }
      this.spans.push([d, d])
    } else if (last === undefined) this.spans.push([d, d])
    else this.insert(d)
    if (this.spans.length > this.maxIntervals) this.spans.shift()
  }

  private insert(d: number): void {
    const i = this.find(d)
    const at = this.spans[i]
    if (at !== undefined && at[0] <= d && d <= at[1]) return
    // i is the first span with lo > d (or the span containing d)
    const idx = at !== undefined && at[0] > d ? i : i + 1
    const prev = this.spans[idx - 1]
    const next = this.spans[idx]
    const joinPrev = prev !== undefined && prev[1] + 1 === d
    const joinNext = next !== undefined && next[0] - 1 === d
    if (joinPrev && joinNext && prev !== undefined && next !== undefined) {
      prev[1] = next[1]
      this.spans.splice(idx, 1)
    } else if (joinPrev && prev !== undefined) prev[1] = d
    else if (joinNext && next !== undefined) next[0] = d
    else this.spans.splice(idx, 0, [d, d])
  }

  /** Removes `d` (splitting its interval). */
  remove(d: number): void {
    const i = this.find(d)
    const at = this.spans[i]
    if (at === undefined || d < at[0] || d > at[1]) return
    if (at[0] === at[1]) this.spans.splice(i, 1)
    else if (d === at[0]) at[0] = d + 1
    else if (d === at[1]) at[1] = d - 1
    else this.spans.splice(i, 1, [at[0], d - 1], [d + 1, at[1]])
  }

  /** `true` when every integer in `[lo, hi]` is in the set (always for an empty range, `lo > hi`). */
  covers(lo: number, hi: number): boolean {
    if (lo > hi) return true
    const at = this.spans[this.find(lo)]
    return at !== undefined && at[0] <= lo && hi <= at[1]
  }

  /** Index of the span containing `d`, else of the last span starting before `d`, else 0. */
  private find(d: number): number {
    let lo = 0
    let hi = this.spans.length - 1
    let ans = 0
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      const span = this.spans[mid] as [number, number]
      if (span[0] <= d) {
        ans = mid
        lo = mid + 1
      } else hi = mid - 1
    }
    return ans
  }
}
