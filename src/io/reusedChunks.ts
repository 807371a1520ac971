/**
 * Chunks read into a buffer that is read into again: which views a reader must copy before it asks for the next
 * chunk.
 *
 * Why: a fresh buffer per chunk costs a page fault per 4 KiB the first time it is written (a 1 MiB buffer is an
 * `mmap` of its own), and the threads of one process take the same address-space lock for each fault: over a
 * 400 MB tree of Codex rollouts that was 0.33 s of system time in one thread, and two `stats` workers read no
 * faster than one. `fileChunks` with a `ReadBuffer` (`src/node/fileChunks.ts`) reads every chunk of a file, and the
 * files after it, into one buffer, and registers it here while the next read of the same file may overwrite it.
 *
 * The rule for a reader (`LineSplitter`, the replay's head, a gzip feed): a view it keeps past the next `next()` of
 * its source goes through {@link stableBytes}, which copies it only when it {@link mayBeOverwritten}. A chunk that
 * ends the file is not registered (the read after it goes elsewhere), so the last chunk of a file, which is the
 * only chunk of most logs, is never copied: it stays as read until the next file is read through the same buffer,
 * which its owner starts only once it is done with this one.
 *
 * No `node:` import: the line splitter that asks is shared with the browser build.
 * @module
 * @internal
 */

const overwritten = new WeakSet<ArrayBufferLike>()

/**
 * Registers (`true`) or clears (`false`) the buffer whose next read overwrites the views of its last chunk.
 * Called by the reader that owns the buffer (`fileChunks`). @internal
 */
export const markOverwritten = (buffer: ArrayBufferLike, will: boolean): void => {
  if (will) overwritten.add(buffer)
  else overwritten.delete(buffer)
}

/** Whether the next read of the source that gave `view` may overwrite its bytes. @internal */
export const mayBeOverwritten = (view: Uint8Array): boolean => overwritten.has(view.buffer)

/**
 * `view` itself, or a copy of it when {@link mayBeOverwritten}: the bytes stay as they are however the source
 * reads on. @internal
 */
export const stableBytes = (view: Buffer): Buffer => (overwritten.has(view.buffer) ? Buffer.from(view) : view)

/** Replaces, in place, each view of `views` that {@link mayBeOverwritten} with its copy (a reader's held chunks). @internal */
export const stabilize = (views: Array<Buffer>): void => {
  for (let i = 0; i < views.length; i++) views[i] = stableBytes(views[i] as Buffer)
}
