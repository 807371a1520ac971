/**
 * Records shared by the files of one input (K15): a resumed or forked Claude Code session writes a new
 * transcript file that repeats earlier records of the session with the same identities — the record `uuid`, and
 * for an assistant message its `message.id` and `requestId` — so the files of one directory hold copies of one
 * another. {@link SeenRecords} remembers which file of the input claimed each identity first; the transcript
 * translator skips a record that another file of the same input already claimed (it is no run there and adds no
 * usage: it was counted where it was read first).
 *
 * The set is shared across files only when the caller passes one (`replay` does for the files of one directory
 * input; `ReplayOptions.seen`). A single file replayed alone cannot know that its first records are copies.
 * It lives beside the translator state, not in it (like the fold's cost estimator), so it is never part of a
 * checkpoint; memory is bounded by {@link SEEN_CAP} identities (the oldest are forgotten first).
 *
 * @module
 */

/** How many record identities a {@link SeenRecords} remembers before it forgets the oldest. @since 0.3.0 @category Replay */
export const SEEN_CAP = 262_144

/**
 * The identities (record `uuid`s, `message.id` + `requestId` pairs) that the files of one input have claimed, and
 * which file claimed each one first. Files are numbered by {@link SeenRecords.begin}, in the order they are read.
 * Share one across the files of one input: `replayRuns(file, { seen })` (`ReplayOptions.seen`).
 * @since 0.3.0
 * @category Replay
 */
export class SeenRecords {
  private readonly owner = new Map<string, number>()
  private inputs = 0
  private copyCount = 0
  private readonly cap: number

  /** @param cap how many identities to remember at most (default {@link SEEN_CAP}). */
  constructor(cap: number = SEEN_CAP) {
    this.cap = Math.max(1, Math.floor(cap))
  }

  /** A new file of the input begins: its number (0, 1, …), used with {@link claim}. */
  begin(): number {
    return this.inputs++
  }

  /** `true` when `key` was claimed by another file than `input` (the record is a copy read before). */
  copied(key: string, input: number): boolean {
    const o = this.owner.get(key)
    return o !== undefined && o !== input
  }

  /** Claims `key` for `input` unless a file claimed it already. */
  claim(key: string, input: number): void {
    if (!this.owner.has(key)) this.add(key, input)
  }

  /**
   * The two identities of one record (`undefined`: the record has no such identity), checked and claimed at once,
   * as {@link copied} of each and then {@link claim} of each: `true` when another file than `input` claimed either
   * (the record is a copy; nothing is claimed), else `false` with both claimed. One lookup per identity and one
   * insertion per new one (the translator asks this for every user and assistant record).
   */
  claimRecord(a: string | undefined, b: string | undefined, input: number): boolean {
    const ownerA = a === undefined ? undefined : this.owner.get(a)
    if (ownerA !== undefined && ownerA !== input) return true
    const ownerB = b === undefined ? undefined : this.owner.get(b)
    if (ownerB !== undefined && ownerB !== input) return true
    const forgotten = a !== undefined && ownerA === undefined ? this.add(a, input) : undefined
    // at the cap, claiming `a` may forget `b` (the oldest): `claim(b)` would then claim it again
    if (b !== undefined && (ownerB === undefined || forgotten === b)) this.add(b, input)
    return false
  }

  /** Adds a key not held, forgetting the oldest at the cap; the key forgotten, if any. */
  private add(key: string, input: number): string | undefined {
    let forgotten: string | undefined
    if (this.owner.size >= this.cap) {
      // a Map iterates in insertion order: its first key is the oldest
      const oldest = this.owner.keys().next()
      if (oldest.done !== true) {
        forgotten = oldest.value
        this.owner.delete(forgotten)
      }
    }
    this.owner.set(key, input)
    return forgotten
  }

  /** Counts one record skipped as a copy ({@link copied}), for {@link copies}. */
  countCopy(): void {
    this.copyCount++
  }

  /**
   * How many records the files of the input skipped as copies so far: a reader of one file at a time compares it
   * before and after a file to learn whether that file held copies.
   */
  get copies(): number {
    return this.copyCount
  }

  /** How many identities are remembered. */
  get size(): number {
    return this.owner.size
  }
}
