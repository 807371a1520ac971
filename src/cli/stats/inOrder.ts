/**
 * Hands on values that arrive in any order in the order of their slots, as soon as every earlier slot has
 * arrived: `stats` adds each file's outcome to the report in the files' order (so cost sums are the same to the
 * last digit on every run) without holding every outcome until the last file is read.
 * @module
 */

/**
 * A release of values in slot order. `put(i, v)` places slot `i` (0 … size−1) and hands on, to `take`, every
 * value from the first slot not yet handed on up to the first slot still missing; only values that came before an
 * earlier one are held. A slot put twice, or out of range, goes to `take` at {@link InOrder.end}, after the rest.
 * `end()` hands on what is still held (slots whose predecessors never came), in slot order. Never throws but
 * what `take` throws.
 * @internal
 */
export class InOrder<T> {
  private readonly held: Array<T | undefined>
  private readonly placed: Uint8Array
  private readonly extra: Array<T> = []
  private next = 0

  constructor(
    private readonly size: number,
    private readonly take: (value: T) => void,
  ) {
    this.held = new Array(size)
    this.placed = new Uint8Array(size)
  }

  /** Places slot `at`; hands on what is now in order. */
  put(at: number | undefined, value: T): void {
    if (at === undefined || !(at >= 0 && at < this.size) || this.placed[at] === 1) {
      this.extra.push(value)
      return
    }
    this.placed[at] = 1
    this.held[at] = value
    while (this.next < this.size && this.placed[this.next] === 1) {
      const v = this.held[this.next] as T
      this.held[this.next] = undefined
      this.next++
      this.take(v)
    }
  }

  /** How many values are held, waiting for an earlier slot. */
  get waiting(): number {
    let n = 0
    for (let i = this.next; i < this.size; i++) if (this.placed[i] === 1) n++
    return n
  }

  /** Hands on every value still held, in slot order, then the extra ones in their order of arrival. */
  end(): void {
    for (let i = this.next; i < this.size; i++) {
      if (this.placed[i] === 1) {
        const v = this.held[i] as T
        this.held[i] = undefined
        this.take(v)
      }
    }
    this.next = this.size
    const extra = this.extra.splice(0)
    for (const v of extra) this.take(v)
  }
}
