/**
 * A log's bytes as Buffers, gunzipped when they are gzip: the one place that tells a gzip log from a plain one.
 *
 * @module
 */
import { createInflateRaw, crc32 } from 'node:zlib'
import { stableBytes } from '../io/reusedChunks.js'

/** Whether bytes start with the gzip magic number (1f 8b). @since 0.3.0 */
export const isGzip = (b: Uint8Array): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b

const toBuffer = (c: Uint8Array | string): Buffer => (typeof c === 'string' ? Buffer.from(c) : Buffer.from(c.buffer, c.byteOffset, c.byteLength))

/**
 * A source's string chunks cut only between characters: a high surrogate that ends one string chunk waits for the
 * next one, so a pair split between two strings (a source that cuts text by UTF-16 length) is encoded as the one
 * character it is, not as two U+FFFD. One left at the source's end is encoded alone (U+FFFD, as a lone surrogate
 * always is). Byte chunks pass as they are; `return()` is passed on.
 */
const wholeCharacters = (it: AsyncIterator<Uint8Array | string>): AsyncIterator<Uint8Array | string> => {
  let high = ''
  // a result read while a held surrogate went out first
  let after: IteratorResult<Uint8Array | string> | undefined
  return {
    next: async () => {
      for (;;) {
        const n = after ?? (await it.next())
        after = undefined
        if (n.done === true || typeof n.value !== 'string') {
          if (high === '') return n
          after = n
          const h = high
          high = ''
          return { done: false, value: h }
        }
        let text = high + n.value
        high = ''
        const last = text.charCodeAt(text.length - 1)
        if (last >= 0xd800 && last <= 0xdbff) {
          high = text.slice(-1)
          text = text.slice(0, -1)
        }
        if (text.length > 0) return { done: false, value: text }
      }
    },
    return: async (value?: unknown) => (it.return !== undefined ? it.return(value) : { done: true, value: undefined }),
  }
}

/**
 * Turns a byte source into Buffers, gunzipping when it starts with the gzip magic bytes: every member of a
 * concatenated gzip file (`gzip -c a >> log.gz`), with zero padding between and after them skipped. A gzip stream
 * that ends early (a log cut while being written, or a live pipe stopped with Ctrl-C) yields what it held and
 * reports the cut to `onNote` instead of failing; so do bytes after the gzip data that are no gzip member
 * (`gzip -d` too reads the data and ignores them), data that fails its check, and damaged data (what came before
 * the damage, but for up to 16 KiB decompressed just before it: Node's zlib drops the output of the step that meets
 * the damage, and where its steps fall depends on how the bytes arrive). Left before the source's end (`return()` on this generator), it returns the source's iterator too,
 * so a file the source holds open is closed (a `Readable` is destroyed). Whether a log is gzip is decided here
 * only, by its bytes, never by its name (`replay`, `stats`' look at a file's first lines and a Claude Code
 * session's subagent files all read through this).
 * @since 0.3.0
 */
export async function* decodedBytes(source: AsyncIterable<Uint8Array | string>, onNote: (message: string) => void): AsyncGenerator<Buffer> {
  const it = wholeCharacters(source[Symbol.asyncIterator]())
  // the source ended (or failed) by itself: nothing to close
  let ended = false
  try {
    // the magic number is two bytes: a pipe may deliver a first chunk of one
    let head: Buffer = Buffer.alloc(0)
    while (head.length < 2) {
      const n = await it.next()
      if (n.done) {
        ended = true
        break
      }
      head = head.length === 0 ? toBuffer(n.value) : Buffer.concat([head, toBuffer(n.value)])
    }
    if (head.length === 0) return
    if (!isGzip(head)) {
      // handed on as they come: the caller copies what it keeps past its next read (src/io/reusedChunks.ts)
      yield head
      for (;;) {
        const n = await it.next()
        if (n.done) {
          ended = true
          return
        }
        yield toBuffer(n.value)
      }
    }
    yield* gunzipMembers(head, it, onNote, () => {
      ended = true
    })
  } finally {
    if (!ended) await it.return?.(undefined)
  }
}

/**
 * The longest gzip member header read (bytes: 1 MiB): a longer one (its extra field, name or comment reaching past
 * it) counts as damaged. Decided by the header's bytes alone, never by how many of them a read brought.
 */
const MAX_HEADER_BYTES = 1024 * 1024

/**
 * The length of the gzip member header at the start of `b` (RFC 1952 §2.3: the bytes before the deflate data),
 * `0` when `b` does not hold all of it yet, `-1` when `b` starts with no gzip header, a damaged one, or one longer
 * than {@link MAX_HEADER_BYTES} (the same answer whatever part of the stream `b` holds beyond the header).
 */
const headerLength = (b: Buffer): number => {
  // the magic, deflate (the only method), no reserved flag: each told as soon as its byte is there
  const fixed = [0x1f, 0x8b, 8]
  for (let i = 0; i < Math.min(b.length, 3); i++) if (b[i] !== fixed[i]) return -1
  if (b.length > 3 && ((b[3] as number) & 0xe0) !== 0) return -1
  if (b.length < 10) return 0
  const flags = b[3] as number
  let at = 10
  if ((flags & 4) !== 0) {
    if (b.length < at + 2) return 0
    at += 2 + b.readUInt16LE(at)
  }
  for (const flag of [8, 16]) {
    if ((flags & flag) === 0) continue
    // the name or comment ends at a zero byte, looked for only within the longest header
    const zero = at < b.length ? b.subarray(0, MAX_HEADER_BYTES).indexOf(0, at) : -1
    if (zero === -1) return b.length >= MAX_HEADER_BYTES ? -1 : 0
    at = zero + 1
  }
  if ((flags & 2) !== 0) at += 2
  if (at > MAX_HEADER_BYTES) return -1
  return b.length < at ? 0 : at
}

/**
 * Whether the member header of `h` bytes at the start of `b` passes its own check: with the FHCRC flag, its last two
 * bytes are the low 16 bits of the CRC-32 of the bytes before them (RFC 1952 §2.3.1; `gzip -d` and zlib check it).
 */
const headerChecks = (b: Buffer, h: number): boolean => ((b[3] as number) & 2) === 0 || b.readUInt16LE(h - 2) === (crc32(b.subarray(0, h - 2)) & 0xffff)

const CUT = 'the gzip stream ended before its end marker (cut off); read what it held'
const DAMAGED = 'the gzip data is damaged; read what came before the damage'
const FAILS_CHECK = 'the gzip data fails its check (its length or CRC-32 differs); read as it decompressed'
const HEADER_FAILS_CHECK = 'a gzip member header fails its CRC-16 check; its data was read as it decompressed'
const TRAILING = 'bytes after the gzip data are no gzip data (as gzip -d, the data was read and they were left out)'

/**
 * The members of a gzip stream, decompressed one by one with a raw inflater, whose end tells where the member's
 * deflate data stops (Node's gunzip, on bytes after the last member that are no gzip, failed and dropped the
 * output of the write that held them: up to 16 KiB of the log, read but never handed on). Each member's trailer
 * is checked against what it decompressed to. `first` holds the stream's first bytes (the magic at least);
 * `done` is told when `source` has ended by itself.
 */
async function* gunzipMembers(
  first: Buffer,
  source: AsyncIterator<Uint8Array | string>,
  onNote: (message: string) => void,
  done: () => void,
): AsyncGenerator<Buffer> {
  // compressed bytes read and not yet handed to a member's inflater, joined into one Buffer only when looked at
  // (`flat`), so that a header read a byte at a time is not copied again with every byte; copied, since a source
  // may read into its buffer again (src/io/reusedChunks.ts)
  let parts: Array<Buffer> = [stableBytes(first)]
  let held = first.length
  let eof = false
  const flat = (): Buffer => {
    if (parts.length !== 1) parts = [parts.length === 0 ? Buffer.alloc(0) : Buffer.concat(parts)]
    return parts[0] as Buffer
  }
  const keep = (b: Buffer): void => {
    parts = [b]
    held = b.length
  }
  const more = async (): Promise<boolean> => {
    if (eof) return false
    const n = await source.next()
    if (n.done) {
      eof = true
      done()
      return false
    }
    const c = stableBytes(toBuffer(n.value))
    parts.push(c)
    held += c.length
    return true
  }
  // reads on until twice as many bytes are held (at least one more read): a header looked at after each read
  // would be scanned again from its start every time
  const moreForHeader = async (): Promise<boolean> => {
    const want = Math.max(held * 2, held + 1)
    let got = false
    while (held < want && (await more())) got = true
    return got
  }
  for (let member = 0; ; member++) {
    // zero padding between and after members is skipped (as gzip -d and Node's gunzip skip it)
    for (;;) {
      const b = flat()
      let z = 0
      while (z < b.length && b[z] === 0) z++
      keep(b.subarray(z))
      if (held > 0 || !(await more())) break
    }
    if (held === 0) return
    let h = headerLength(flat())
    while (h === 0 && (await moreForHeader())) h = headerLength(flat())
    if (h <= 0) {
      onNote(h === 0 ? CUT : member === 0 ? DAMAGED : TRAILING)
      return
    }
    if (!headerChecks(flat(), h)) onNote(HEADER_FAILS_CHECK)
    const out = yield* inflateMember(flat().subarray(h), more, () => {
      const p = flat()
      keep(Buffer.alloc(0))
      return p
    })
    if (out.error !== undefined) {
      onNote(out.error)
      return
    }
    keep(out.rest)
    while (held < 8 && (await more())) {}
    const trailer = flat()
    if (trailer.length < 8) {
      onNote(CUT)
      return
    }
    if (trailer.readUInt32LE(0) !== out.crc || trailer.readUInt32LE(4) !== out.size % 2 ** 32) onNote(FAILS_CHECK)
    keep(trailer.subarray(8))
  }
}

/** What one member's deflate data gave: its CRC-32 and size, and the bytes read past its end; or why it stopped. */
interface MemberEnd {
  readonly crc: number
  readonly size: number
  readonly rest: Buffer
  readonly error?: string
}

/**
 * Inflates one member's deflate data, which starts at `start`; `more` reads on (into the pending bytes, taken with
 * `take`). Yields the output as it comes; returns the bytes read past the data's end (its trailer, and what follows).
 */
async function* inflateMember(start: Buffer, more: () => Promise<boolean>, take: () => Buffer): AsyncGenerator<Buffer, MemberEnd> {
  const inflate = createInflateRaw()
  const output: Array<Buffer> = []
  let ended = false
  let failure: (Error & { code?: string }) | undefined
  let wake: (() => void) | undefined
  const waken = (): void => {
    const w = wake
    wake = undefined
    w?.()
  }
  inflate.on('data', (c: Buffer) => {
    output.push(c)
    waken()
  })
  inflate.on('end', () => {
    ended = true
    waken()
  })
  inflate.on('error', (e) => {
    failure = e
    waken()
  })
  // the bytes handed to the inflater whose use is not known yet, from `fedAt` (counted from the data's start)
  const fed: Array<Buffer> = []
  let fedAt = 0
  let writing = false
  let finished = false
  const write = (b: Buffer): void => {
    fed.push(b)
    writing = true
    inflate.write(b, () => {
      writing = false
      waken()
    })
  }
  take()
  if (start.length > 0) write(start)
  let crc = 0
  let size = 0
  try {
    for (;;) {
      const c = output.shift()
      if (c !== undefined) {
        crc = crc32(c, crc)
        size += c.length
        yield c
        continue
      }
      if (failure !== undefined) {
        const cut = failure.code === 'Z_BUF_ERROR'
        return { crc, size, rest: Buffer.alloc(0), error: cut ? CUT : DAMAGED }
      }
      if (ended) break
      if (!writing && !finished) {
        // what the inflater used of the bytes fed so far is behind it: only the rest is kept
        while (fed.length > 0 && fedAt + (fed[0] as Buffer).length <= inflate.bytesWritten) fedAt += (fed.shift() as Buffer).length
        if (await more()) write(take())
        else {
          finished = true
          inflate.end()
        }
        continue
      }
      await new Promise<void>((resolve) => {
        wake = resolve
      })
    }
    // the data ended: what was fed past the bytes the inflater used is the trailer and what follows it
    const all = fed.length === 1 ? (fed[0] as Buffer) : Buffer.concat(fed)
    return { crc, size, rest: all.subarray(inflate.bytesWritten - fedAt) }
  } finally {
    inflate.destroy()
  }
}
