/**
 * The blank lines an input starts with, dropped as they arrive and counted, so a reader that holds the head of an
 * input while it sniffs the format never holds them (an input of 70 MB of newlines is blank, not a first line over
 * the document cap; a log after it is read, its lines numbered as in the file).
 *
 * A blank line is what {@link LineSplitter} skips: nothing but spaces, tabs, `\r`, vertical tabs and form feeds
 * before its newline (and a UTF-8 BOM at the very start of the input), however long. Only whole lines are
 * dropped: the blank bytes after the last newline (the start of the first line that holds anything) are handed on
 * with that line, so the line's text is what it was, unless there are more of them than `maxCarry` (the line
 * cap): those are let go as they come, and the line is handed on from its first byte that is not blank (its
 * record is read, not skipped as a line over the cap; nothing of it is lost but blank space). Never throws.
 *
 * @module
 */

/** A byte a blank line may hold: space, `\t`, `\n`, vertical tab, form feed, `\r`. */
const isBlankByte = (c: number): boolean => c === 32 || (c >= 9 && c <= 13)

/** The index of the first byte of `buf` from `from` that is not blank, or -1. */
const firstNonBlank = (buf: Uint8Array, from: number): number => {
  for (let i = from; i < buf.length; i++) if (!isBlankByte(buf[i] as number)) return i
  return -1
}

/** The newlines in `buf[0, to]`. */
const newlinesThrough = (buf: Buffer, to: number): number => {
  let n = 0
  for (let at = buf.indexOf(10); at !== -1 && at <= to; at = buf.indexOf(10, at + 1)) n++
  return n
}

/**
 * Drops the whole blank lines at the start of a byte stream. Feed each chunk to {@link BlankLead.take} in order;
 * once it has handed bytes on, it hands every later chunk on as it is.
 * @internal
 */
export class BlankLead {
  /** The whole blank lines dropped so far: the first line handed on is line `lines + 1`. */
  lines = 0
  private started = false
  private handing = false
  /** Blank bytes after the last dropped newline: the start of a line still open (pieces, joined once). */
  private carry: Array<Buffer> = []
  private carryBytes = 0

  /** @param maxCarry the most blank bytes held without a newline; past it they are let go. */
  constructor(private readonly maxCarry: number) {}

  /** Whether bytes have been handed on (every chunk from now on is handed on whole). */
  get handedOn(): boolean {
    return this.handing
  }

  /** The part of `chunk` to read (with any held blank bytes before it), or `undefined` when it was all blank lines. */
  take(chunk: Buffer): Buffer | undefined {
    if (this.handing) return chunk
    let from = 0
    if (!this.started) {
      this.started = true
      if (chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) from = 3
    }
    const first = firstNonBlank(chunk, from)
    const lastNl = chunk.lastIndexOf(10, first === -1 ? chunk.length - 1 : first)
    if (lastNl !== -1) {
      // the held bytes and everything up to this newline are whole blank lines
      this.lines += newlinesThrough(chunk, lastNl)
      this.drop()
    }
    const rest = lastNl === -1 ? chunk : chunk.subarray(lastNl + 1)
    if (first === -1) {
      if (rest.length > 0) {
        this.carry.push(Buffer.from(rest))
        this.carryBytes += rest.length
      }
      // a blank start of a line longer than the line cap: let go (the line is read from its first non-blank byte)
      if (this.carryBytes > this.maxCarry) this.drop()
      return undefined
    }
    this.handing = true
    const held = this.held()
    return held === undefined ? rest : Buffer.concat([held, rest])
  }

  private drop(): void {
    this.carry = []
    this.carryBytes = 0
  }

  /** The held blank bytes as one buffer (then no longer held), or `undefined`. */
  private held(): Buffer | undefined {
    const parts = this.carry
    this.drop()
    return parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : Buffer.concat(parts)
  }

  /** The input ended: the held blank bytes, if any, to read as they are. */
  end(): Buffer | undefined {
    this.handing = true
    return this.held()
  }
}
