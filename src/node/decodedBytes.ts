/**
 * A log's bytes as Buffers, gunzipped when they are gzip: the one place that tells a gzip log from a plain one.
 *
 * @module
 */
import { Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import { stableBytes } from '../io/reusedChunks.js'

/** Whether bytes start with the gzip magic number (1f 8b). @since 0.3.0 */
export const isGzip = (b: Uint8Array): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b

const toBuffer = (c: Uint8Array | string): Buffer => (typeof c === 'string' ? Buffer.from(c) : Buffer.from(c.buffer, c.byteOffset, c.byteLength))

/**
 * Turns a byte source into Buffers, gunzipping when it starts with the gzip magic bytes. A gzip stream that
 * ends early (a log cut while being written, or a live pipe stopped with Ctrl-C) yields what it held and
 * reports the cut to `onNote` instead of failing. Left before the source's end (`return()` on this generator),
 * it returns the source's iterator too, so a file the source holds open is closed (a `Readable` is destroyed).
 * Whether a log is gzip is decided here only, by its bytes, never by its name (`replay`, `stats`' look at a file's
 * first lines and a Claude Code session's subagent files all read through this).
 * @since 0.3.0
 */
export async function* decodedBytes(source: AsyncIterable<Uint8Array | string>, onNote: (message: string) => void): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]()
  // the source ended (or failed) by itself: nothing to close
  let ended = false
  let feed: Readable | undefined
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
    const gunzip = createGunzip()
    const rest: AsyncIterable<Uint8Array | string> = { [Symbol.asyncIterator]: () => it }
    feed = Readable.from(
      // the stream reads ahead of the gunzip: chunks of a buffer read into again are copied
      (async function* () {
        yield stableBytes(head)
        for await (const c of rest) yield stableBytes(toBuffer(c))
      })(),
    )
    feed.on('error', (e) => gunzip.destroy(e))
    feed.pipe(gunzip)
    try {
      for await (const c of gunzip) yield c as Buffer
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'Z_BUF_ERROR') throw e
      onNote('the gzip stream ended before its end marker (cut off); read what it held')
    }
  } finally {
    // a gzip source is read ahead by `feed` (a read may be in flight): destroying it returns the source's iterator
    if (feed !== undefined) feed.destroy()
    else if (!ended) await it.return?.(undefined)
  }
}
