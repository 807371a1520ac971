/**
 * A regular file's bytes as an async iterable of chunks, read with synchronous reads.
 *
 * Why: `createReadStream` sends every open, read and close through libuv's thread pool, and the reading thread
 * waits for each round trip. Over thousands of small transcripts (a `~/.claude/projects` tree: 5,271 files of
 * 75 KB on average) that waiting was 40 % of `stats`' wall time with the CPU idle. A synchronous read of a file in
 * the page cache is a memory copy; the iterable still lets the caller `await` between chunks, and every
 * `yieldEvery` chunks it gives the event loop a turn (`setImmediate`), so signals, timers and messages are still
 * served while a large file is read.
 *
 * Only regular files are read this way: the file is opened with `O_NONBLOCK` (which a FIFO needs not to block
 * the thread until a writer comes, and which changes nothing for a regular file), and anything else — a FIFO, a
 * character device, a socket — is read by `createReadStream` as before.
 *
 * @module
 */
import { closeSync, constants, createReadStream, fstatSync, openSync, readSync } from 'node:fs'

/** Options of {@link fileChunks}. @since 0.2.0 */
export interface FileChunksOptions {
  /** The most bytes one chunk holds (default 1 MiB); a smaller file is one chunk of its size. */
  readonly chunkBytes?: number
  /** Give the event loop a turn after this many chunks (default 8, i.e. every 8 MiB). */
  readonly yieldEvery?: number
}

const DEFAULT_CHUNK = 1024 * 1024

const probe = Buffer.alloc(64 * 1024)

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * Reads `path` chunk by chunk; each chunk is a fresh `Buffer` (a caller may keep a view of it). The file is closed
 * when the iteration ends, early (`break`, `return()`) too.
 *
 * **Throws** (from the iteration, as a stream would emit it) the file system's error: `ENOENT`, `EACCES`, `EISDIR`
 * (a directory opens but cannot be read).
 * @since 0.2.0
 */
export async function* fileChunks(path: string | Buffer, options: FileChunksOptions = {}): AsyncGenerator<Buffer, void, undefined> {
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK
  const yieldEvery = options.yieldEvery ?? 8
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  let closed = false
  const close = (): void => {
    if (closed) return
    closed = true
    closeSync(fd)
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) {
      close()
      yield* createReadStream(path, { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>
      return
    }
    // a file in the page cache is read at its size (one chunk for most logs); one that grows is read on to its end
    let expect = st.size
    let chunks = 0
    for (;;) {
      let chunk: Buffer
      if (expect > 0) {
        const size = Math.min(chunkBytes, expect)
        const buf = Buffer.allocUnsafe(size)
        const n = readSync(fd, buf, 0, size, null)
        if (n === 0) break
        expect -= n
        chunk = n === size ? buf : buf.subarray(0, n)
      } else {
        // past the size fstat gave: a shared probe tells the end (most files) from a file that grew
        const n = readSync(fd, probe, 0, probe.length, null)
        if (n === 0) break
        chunk = Buffer.from(probe.subarray(0, n))
      }
      yield chunk
      if (++chunks % yieldEvery === 0) await turn()
    }
  } finally {
    close()
  }
}
