/**
 * A Buffer-level line splitter: bytes in any chunking → the same lines, numbered from 1.
 *
 * Splits on the newline byte (which never occurs inside a multi-byte UTF-8 sequence, so each line decodes on
 * its own), drops one `\r` before the newline (CRLF), drops a UTF-8 BOM at the start, and skips blank lines
 * while still counting them. Invalid UTF-8 decodes to U+FFFD; nothing throws.
 *
 * **The line cap.** A line over {@link MAX_LINE_BYTES} (64 MiB), or one holding over {@link MAX_LINE_VALUES}
 * (1,000,000) JSON values, is reported to `onOversize` (its line number, size in bytes, and the values counted
 * when that cap was the one exceeded) and skipped, never parsed: what `JSON.parse` builds is about 5 bytes per
 * byte of a string-heavy line but up to ~200 bytes per value of a line of many small objects (a 40 MB line of
 * `{"k1":0,…}` became 2.4 GB), so the two caps together keep a process reading any line under 512 MB peak RSS
 * (measured in `test/reliability/bounds.test.ts`). A line over the byte cap is not even kept while it arrives.
 *
 * @module
 */
import { stableBytes } from './reusedChunks.js'
import { groupDigits } from '../core/digits.js'

/** Receives each non-blank line: its text, 1-based number, and whether it lacked a final newline. @since 0.1.0 */
export type OnLine = (text: string, lineNo: number, unterminated: boolean) => void

/**
 * Receives a non-blank line as bytes instead of text (see {@link LineSplitter.lineBytes}): a view of exactly the
 * line (no newline, no `\r`, no BOM), valid only during the call.
 * @since 0.2.0
 */
export type OnLineBytes = (line: Buffer, lineNo: number, unterminated: boolean) => void

/** Cap on one line's bytes: 64 MiB (a longer line is skipped with a note naming its line and size). @since 0.1.0 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024

/**
 * Cap on the JSON values of one line: 1,000,000, counted (outside strings) as the line's `{`, `[` and `,` — a
 * line holding more is skipped before it is parsed, like one over {@link MAX_LINE_BYTES}. Only lines of at least
 * this many bytes are counted (a shorter one cannot hold more).
 * @since 0.2.0
 */
export const MAX_LINE_VALUES = 1_000_000

/** The line cap in words, for help texts and notes: `64 MiB or 1,000,000 JSON values`. @since 0.2.0 */
export const LINE_CAP_TEXT = `${MAX_LINE_BYTES / 1048576} MiB or ${groupDigits(MAX_LINE_VALUES)} JSON values`

/**
 * The note of a line skipped for the line cap, as replay prints it: `line 3: skipped a line of 68,157,461 bytes (over
 * the line cap of 64 MiB or 1,000,000 JSON values)`, with `holding over 1,000,000 JSON values` when that cap was
 * the one passed (`values` given). @since 0.2.0
 */
export const oversizeNote = (lineNo: number, bytes: number, values?: number): string =>
  `line ${lineNo}: skipped a line of ${groupDigits(bytes)} bytes${values !== undefined ? ` holding over ${groupDigits(MAX_LINE_VALUES)} JSON values` : ''} (over the line cap of ${LINE_CAP_TEXT})`

/**
 * Receives a skipped line: its 1-based number, its size in bytes, and — when it was skipped for holding more than
 * the value cap — the values counted (at least cap + 1), else `undefined` (over the byte cap).
 * @since 0.2.0
 */
export type OnOversize = (lineNo: number, bytes: number, values?: number) => void

/**
 * The JSON values in `buf[from, to)` as {@link MAX_LINE_VALUES} counts them (1 + every `{`, `[` and `,` outside
 * strings), stopping once the count passes `limit` (it then returns `limit + 1`). Linear in the bytes; strings
 * are skipped with `indexOf`. Never throws, whatever the bytes.
 * @since 0.2.0
 */
export const countJsonValues = (buf: Uint8Array, from: number, to: number, limit: number): number => {
  let n = 1
  let i = from
  while (i < to) {
    const c = buf[i] as number
    if (c === 34) {
      // a string: find its closing quote (one not escaped by an odd run of backslashes)
      let j = i + 1
      for (;;) {
        const q = buf.indexOf(34, j)
        if (q === -1 || q >= to) return n
        let k = q - 1
        while (k > i && buf[k] === 92) k--
        if ((q - 1 - k) % 2 === 0) {
          j = q
          break
        }
        j = q + 1
      }
      i = j + 1
      continue
    }
    if (c === 44 || c === 123 || c === 91) {
      n++
      if (n > limit) return limit + 1
    }
    i++
  }
  return n
}

const isBlank = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c !== 32 && c !== 9 && c !== 13 && c !== 11 && c !== 12) return false
  }
  return true
}

/** What a reader of a run of lines took (see {@link OnLineRun}). @since 0.2.0 */
export interface LinesTaken {
  /** The offset after the last newline it took. */
  readonly next: number
  /** The lines it took, empty ones included. */
  readonly lines: number
}

/**
 * Reads whole lines of `buf` from the offset `from` on, at once (the first is line `lineNo`), as the one-line
 * callbacks would read them, and says how far it went: it may stop at any line (that line then goes to the
 * callbacks), and must stop before a line of `limit` bytes or more (the line caps are checked there), a line
 * without its newline, and a line that is not empty and does not start with `{`. Empty lines (nothing, or a lone
 * `\r`) it takes and counts, as the splitter skips them.
 * @since 0.2.0
 */
export type OnLineRun = (buf: Buffer, from: number, lineNo: number, limit: number) => LinesTaken

/** After a run reader took no line, this many lines go to the one-line callbacks before it is asked again. */
const RUN_PAUSE = 8

/**
 * Splits a byte stream into lines. Feed chunks with `push`, then call `end` once.
 * @since 0.1.0
 */
export class LineSplitter {
  private parts: Array<Uint8Array> = []
  private partBytes = 0
  private lineNo = 0
  private atStart = true
  private oversize = false
  private last = false
  /**
   * When set, a line whose first byte is `{` is handed to it as bytes (never decoded here) instead of to `onLine`
   * as text: a reader that skims records (`src/formats/skim/skim.ts`) decodes only what it needs. Other lines go to `onLine`.
   */
  lineBytes: OnLineBytes | undefined = undefined
  /**
   * When set, whole lines of a chunk (after the input's first line) are offered to it first, many at once (the
   * native skim reduces a run of records in one call); the lines it leaves go to `lineBytes` / `onLine`.
   */
  lineRun: OnLineRun | undefined = undefined
  /** The first line offered to `lineRun` (lines before it go to the one-line callbacks). */
  lineRunFrom = 0
  private runPause = 0

  constructor(
    private readonly onLine: OnLine,
    private readonly onOversize: OnOversize = () => {},
    private readonly maxLineBytes: number = MAX_LINE_BYTES,
    private readonly maxLineValues: number = MAX_LINE_VALUES,
  ) {}

  /**
   * Counts the line ending at `to` and returns its text, or `undefined` when it is blank or over the cap
   * (reported). Callers pass a line made by `Buffer.concat` as a temporary, so it is not held while the text is
   * parsed: one copy of a long line at a time.
   */
  private textOf(buf: Buffer, from: number, to: number): string | undefined {
    this.lineNo++
    if (this.oversize) {
      this.oversize = false
      this.onOversize(this.lineNo, this.partBytes + (to - from))
      return undefined
    }
    let start = from
    let end = to
    if (this.atStart) {
      this.atStart = false
      if (end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3
    }
    if (end > start && buf[end - 1] === 13) end--
    if (end <= start) return undefined
    if (end - start > this.maxLineBytes) {
      // a line that arrived in one chunk
      this.onOversize(this.lineNo, end - start)
      return undefined
    }
    if (end - start >= this.maxLineValues) {
      const values = countJsonValues(buf, start, end, this.maxLineValues)
      if (values > this.maxLineValues) {
        this.onOversize(this.lineNo, end - start, values)
        return undefined
      }
    }
    if (this.lineBytes !== undefined && buf[start] === 123) {
      this.lineBytes(buf.subarray(start, end), this.lineNo, this.last)
      return undefined
    }
    const text = buf.toString('utf8', start, end)
    const c = text.charCodeAt(0)
    if (c !== 123 && c !== 91 && isBlank(text)) return undefined
    return text
  }

  /**
   * Counts `n` blank lines that were dropped before the first chunk was fed (`BlankLead`): the next line is
   * numbered as it is in the input. Call it before the first `push`.
   */
  skipLines(n: number): void {
    if (n <= 0) return
    this.lineNo += n
    this.atStart = false
  }

  /** Feeds one chunk. */
  push(chunk: Uint8Array): void {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    let start = 0
    for (;;) {
      if (this.lineRun !== undefined && this.parts.length === 0 && !this.oversize && !this.atStart && this.lineNo + 1 >= this.lineRunFrom) {
        if (this.runPause > 0) this.runPause--
        else {
          const taken = this.lineRun(buf, start, this.lineNo + 1, Math.min(this.maxLineBytes, this.maxLineValues))
          if (taken.lines > 0) {
            this.lineNo += taken.lines
            start = taken.next
          } else this.runPause = RUN_PAUSE
        }
      }
      const nl = buf.indexOf(10, start)
      if (nl === -1) {
        if (start < buf.length) this.keep(buf.subarray(start))
        return
      }
      let text: string | undefined
      if (this.oversize) {
        this.partBytes += nl - start
        text = this.textOf(buf, nl, nl)
        this.partBytes = 0
      } else if (this.parts.length === 0) {
        text = this.textOf(buf, start, nl)
      } else {
        text = this.joined(buf.subarray(start, nl))
      }
      if (text !== undefined) this.onLine(text, this.lineNo, false)
      start = nl + 1
    }
  }

  /** The kept pieces (and `last`) as one line's text: the pieces are let go before it is decoded, the whole before it is parsed. */
  private joined(last: Buffer | undefined): string | undefined {
    const parts = this.parts
    if (last !== undefined) parts.push(last)
    this.parts = []
    this.partBytes = 0
    const whole = Buffer.concat(parts)
    parts.length = 0
    return this.textOf(whole, 0, whole.length)
  }

  private keep(piece: Buffer): void {
    if (this.oversize) {
      this.partBytes += piece.length
      return
    }
    // a piece of a chunk the source reads into again is copied: it is joined after the next read
    this.parts.push(stableBytes(piece))
    this.partBytes += piece.length
    if (this.partBytes > this.maxLineBytes) {
      this.oversize = true
      this.parts = []
    }
  }

  /** The input ended: a last line without a newline is passed with `unterminated = true`. */
  end(): void {
    if (this.oversize) {
      this.textOf(Buffer.alloc(0), 0, 0)
      this.partBytes = 0
      return
    }
    if (this.parts.length > 0) {
      this.last = true
      const text = this.joined(undefined)
      if (text !== undefined) this.onLine(text, this.lineNo, true)
    }
  }

  /** Lines counted so far (blank ones included). */
  get lines(): number {
    return this.lineNo
  }
}
