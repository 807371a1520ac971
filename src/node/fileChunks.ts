/**
 * A regular file's bytes as an async iterable of chunks, read with synchronous reads.
 *
 * Why: `createReadStream` sends every open, read and close through libuv's thread pool, and the reading thread
 * waits for each round trip. Over thousands of small transcripts (a `~/.claude/projects` tree: 5,271 files of
 * 75 KB on average) that waiting was 40 % of `stats`' wall time with the CPU idle. A synchronous read of a file in
 * the page cache is a memory copy; the iterable still lets the caller `await` between chunks, and once
 * `turnMs` milliseconds have passed since the last turn — counted across files, so a folder of thousands of small
 * files is no different from one large file — it gives the event loop a turn (`setImmediate`), so signals
 * (Ctrl-C), timers and messages are still served.
 *
 * Only regular files are read this way. A FIFO (`mkfifo`, or `/dev/stdin` when that is a pipe) is opened once —
 * opening it wakes a writer waiting on it, so a probe open then a second one would leave that writer without a
 * reader — and waits for a writer as `cat` does, then is read as a pipe (`net.Socket`, polled by the event loop):
 * a read waiting on a quiet writer holds no thread-pool thread, and leaving the iteration early (`return()`)
 * ends it at once — with `createReadStream` the process lived on, after the replay had failed and said so, until
 * the writer wrote or closed. Anything else — a character device, a socket, a directory — is read by
 * `createReadStream`. (The path is looked at with `stat` first; the open of a regular file is `O_NONBLOCK`, so a
 * path that turns into a FIFO in between cannot block the thread either.)
 *
 * @module
 */
import { closeSync, constants, createReadStream, fstatSync, open, openSync, readSync, statSync } from 'node:fs'
import { Socket } from 'node:net'
import type { Readable } from 'node:stream'
import { markOverwritten } from '../io/reusedChunks.js'

/** Options of {@link fileChunks}. @since 0.2.0 */
export interface FileChunksOptions {
  /** The most bytes one chunk holds (default 1 MiB); a smaller file is one chunk of its size. */
  readonly chunkBytes?: number
  /** Give the event loop a turn once this many milliseconds passed since the last turn (default 5). */
  readonly turnMs?: number
  /** Told the size `fstat` gives when the path is a regular file read this way (not for a stream). */
  readonly onRegularFile?: (size: number) => void
  /**
   * Read a regular file's chunks into this buffer, read into again for the next chunk and the next file read
   * through it. A chunk that the next read of this file overwrites is registered (`src/io/reusedChunks.ts`): a
   * caller keeping a view of it past its next `next()` copies it with `stableBytes`; the chunk that ends the file
   * is not (the read after it goes elsewhere), and stays as read until the next file is read through the buffer.
   * Default: every chunk a fresh `Buffer`.
   */
  readonly reuse?: ReadBuffer
}

const DEFAULT_CHUNK = 1024 * 1024

const probe = Buffer.alloc(64 * 1024)

/**
 * One buffer that the regular files read through it share, one file after another: each chunk is read into it
 * (a buffer written once is not faulted in again; see `src/io/reusedChunks.ts`), so a view of a chunk is valid
 * until the next read through the same `ReadBuffer`. Make one for a sequence of readings (`stats` keeps one per
 * thread, `replay DIR` one per command); a reading that starts while another holds it reads into fresh buffers.
 * @since 0.2.0
 */
export class ReadBuffer {
  /** @internal */
  bytes: Buffer | undefined = undefined
  /** @internal */
  busy = false
}

/** When the event loop last had a turn (shared by every read of this thread). */
let lastTurn = performance.now()

const turn = (): Promise<void> =>
  new Promise((resolve) =>
    setImmediate(() => {
      lastTurn = performance.now()
      resolve()
    }),
  )

/** Opens a FIFO for reading: a bare descriptor (a `FileHandle` would close it again when collected). */
const openFifo = (path: string | Buffer): Promise<number> =>
  new Promise((resolve, reject) => open(path, 'r', (e, fd) => (e === null ? resolve(fd) : reject(e))))

/**
 * Reads `path` chunk by chunk; each chunk is a fresh `Buffer` (a caller may keep a view of it), or with `reuse` a
 * view of one buffer read into again (see {@link FileChunksOptions.reuse}). The file is closed
 * when the iteration ends, early (`break`, `return()`) too; `return()` while a read of a FIFO waits for its writer
 * ends that read at once (the pending `next()` settles as done).
 *
 * **Throws** (from the iteration, as a stream would emit it) the file system's error: `ENOENT`, `EACCES`, `EISDIR`.
 * @since 0.2.0
 */
export const fileChunks = (path: string | Buffer, options: FileChunksOptions = {}): AsyncGenerator<Buffer, void, undefined> => {
  // the stream a FIFO or device is read through, once opened: `return()` destroys it first, for a generator's own
  // return would wait behind the read in flight
  const held: { stream?: Readable } = {}
  const chunks = readChunks(path, options, held)
  const finish = chunks.return.bind(chunks)
  chunks.return = (value) => {
    held.stream?.destroy()
    return finish(value)
  }
  return chunks
}

async function* readChunks(path: string | Buffer, options: FileChunksOptions, held: { stream?: Readable }): AsyncGenerator<Buffer, void, undefined> {
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK
  const turnMs = options.turnMs ?? 5
  const stream = async function* (fifo: boolean): AsyncGenerator<Buffer, void, undefined> {
    // a FIFO's open waits for a writer (in the thread pool); the socket then owns the descriptor and closes it
    const s: Readable = fifo ? new Socket({ fd: await openFifo(path), readable: true, writable: false }) : createReadStream(path, { highWaterMark: 256 * 1024 })
    held.stream = s
    try {
      for await (const c of s) yield c as Buffer
    } catch (e) {
      // destroyed by `return()` while a read was waiting: the iteration was left, nothing failed
      if (!s.destroyed || (e as { code?: unknown }).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw e
    } finally {
      s.destroy()
    }
  }
  const kind = statSync(path, { throwIfNoEntry: false })
  if (kind !== undefined && !kind.isFile()) {
    yield* stream(kind.isFIFO())
    return
  }
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  let closed = false
  // the shared buffer, when it is free (a second reading at once reads into fresh buffers)
  const lane = options.reuse !== undefined && !options.reuse.busy ? options.reuse : undefined
  if (lane !== undefined) lane.busy = true
  let reused: Buffer | undefined
  const close = (): void => {
    if (closed) return
    closed = true
    closeSync(fd)
    if (reused !== undefined) markOverwritten(reused.buffer, false)
    if (lane !== undefined) lane.busy = false
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) {
      // replaced by something else since the stat: read as a stream, like anything not a regular file
      close()
      yield* stream(false)
      return
    }
    // a file in the page cache is read at its size (one chunk for most logs); one that grows is read on to its end
    let expect = st.size
    options.onRegularFile?.(st.size)
    for (;;) {
      if (performance.now() - lastTurn >= turnMs) await turn()
      let chunk: Buffer
      if (expect > 0) {
        const size = Math.min(chunkBytes, expect)
        if (lane !== undefined && reused === undefined) {
          if (lane.bytes === undefined || lane.bytes.length < chunkBytes) lane.bytes = Buffer.allocUnsafeSlow(chunkBytes)
          reused = lane.bytes
        }
        const buf = reused ?? Buffer.allocUnsafe(size)
        const n = readSync(fd, buf, 0, size, null)
        if (n === 0) break
        expect -= n
        // the next read overwrites a chunk of the shared buffer unless it was the file's last (the probe reads on)
        if (reused !== undefined) markOverwritten(reused.buffer, expect > 0)
        chunk = n === buf.length ? buf : buf.subarray(0, n)
      } else {
        // past the size fstat gave: a shared probe tells the end (most files) from a file that grew
        const n = readSync(fd, probe, 0, probe.length, null)
        if (n === 0) break
        chunk = Buffer.from(probe.subarray(0, n))
      }
      yield chunk
    }
  } finally {
    close()
  }
}
