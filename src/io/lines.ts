/**
 * A Buffer-level line splitter: bytes in any chunking → the same lines, numbered from 1.
 *
 * Splits on the newline byte (which never occurs inside a multi-byte UTF-8 sequence, so each line decodes on
 * its own), drops one `\r` before the newline (CRLF), drops a UTF-8 BOM at the start, and skips blank lines
 * while still counting them. Invalid UTF-8 decodes to U+FFFD; nothing throws. A line longer than `maxLineBytes`
 * is not kept whole: it is reported to `onOversize` and skipped, so memory stays bounded.
 *
 * @module
 */

/** Receives each non-blank line: its text, 1-based number, and whether it lacked a final newline. @since 0.1.0 */
export type OnLine = (text: string, lineNo: number, unterminated: boolean) => void

/** Default cap on one line: 256 MiB. @since 0.1.0 */
export const MAX_LINE_BYTES = 256 * 1024 * 1024

const isBlank = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c !== 32 && c !== 9 && c !== 13 && c !== 11 && c !== 12) return false
  }
  return true
}

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

  constructor(
    private readonly onLine: OnLine,
    private readonly onOversize: (lineNo: number, bytes: number) => void = () => {},
    private readonly maxLineBytes: number = MAX_LINE_BYTES,
  ) {}

  private emit(buf: Buffer, from: number, to: number, unterminated: boolean): void {
    this.lineNo++
    if (this.oversize) {
      this.oversize = false
      this.onOversize(this.lineNo, this.partBytes + (to - from))
      return
    }
    let start = from
    let end = to
    if (this.atStart) {
      this.atStart = false
      if (end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3
    }
    if (end > start && buf[end - 1] === 13) end--
    if (end <= start) return
    const text = buf.toString('utf8', start, end)
    const c = text.charCodeAt(0)
    if (c !== 123 && c !== 91 && isBlank(text)) return
    this.onLine(text, this.lineNo, unterminated)
  }

  /** Feeds one chunk. */
  push(chunk: Uint8Array): void {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    let start = 0
    for (;;) {
      const nl = buf.indexOf(10, start)
      if (nl === -1) {
        if (start < buf.length) this.keep(buf.subarray(start))
        return
      }
      if (this.oversize) {
        this.partBytes += nl - start
        this.emit(buf, nl, nl, false)
        this.partBytes = 0
      } else if (this.parts.length === 0) {
        this.emit(buf, start, nl, false)
      } else {
        this.parts.push(buf.subarray(start, nl))
        const line = Buffer.concat(this.parts)
        this.parts = []
        this.partBytes = 0
        this.emit(line, 0, line.length, false)
      }
      start = nl + 1
    }
  }

  private keep(piece: Buffer): void {
    if (this.oversize) {
      this.partBytes += piece.length
      return
    }
    this.parts.push(piece)
    this.partBytes += piece.length
    if (this.partBytes > this.maxLineBytes) {
      this.oversize = true
      this.parts = []
    }
  }

  /** The input ended: a last line without a newline is passed with `unterminated = true`. */
  end(): void {
    if (this.oversize) {
      this.emit(Buffer.alloc(0), 0, 0, true)
      this.partBytes = 0
      return
    }
    if (this.parts.length > 0) {
      const line = Buffer.concat(this.parts)
      this.parts = []
      this.partBytes = 0
      this.emit(line, 0, line.length, true)
    }
  }

  /** Lines counted so far (blank ones included). */
  get lines(): number {
    return this.lineNo
  }
}
