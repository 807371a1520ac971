/**
 * Standard output gathered into fewer writes, for the executable (src/cli/bin.ts).
 *
 * A write to fd 1 is a system call: `replay --json` of a log of 9,000 runs into a pipe spent ~0.2 s of system
 * time making one per run. What the commands write is kept and handed on once per turn of the event loop, in
 * pieces of whole writes (commands write whole lines, or whole blocks of lines) up to `pieceBytes`:
 *
 * - **Pipes: 4,096 bytes (PIPE_BUF).** The kernel writes a piece that size to a pipe whole or not at all, so when
 *   the reader stalls and the process is then ended by a signal, the reader has whole lines only (a line longer
 *   than a piece is written alone, and only it can be cut). The next piece is handed on only once the previous
 *   one has left the process.
 * - **Files: 64 KiB**, any number in a row.
 *
 * {@link GatheredOutput.flush} hands on what was gathered at once: the executable calls it before anything goes
 * to stderr, so the two streams keep the order they were written in (`2>&1`). Live commands (`watch`) are not
 * gathered at all: their reader leaving (`| head`) is only seen when a write fails, which needs a write per run.
 *
 * @module
 * @internal
 */

/** Where pieces go: `write` takes a piece and calls `done` once it has left; `backlog` is what is still queued (bytes). */
export interface OutputTarget {
  write(piece: string, done: () => void): void
  readonly backlog: number
}

/** The piece size for a pipe: POSIX PIPE_BUF on Linux, the most the kernel writes to a pipe atomically (bytes). */
export const PIPE_PIECE_BYTES = 4096

/** The piece size for a file (bytes). */
export const FILE_PIECE_BYTES = 64 * 1024

/** Output gathered and handed on in pieces (see the module doc). */
export class GatheredOutput {
  private pending: Array<string> = []
  private waiting = false
  private queued = false
  private stopped = false

  constructor(
    private readonly target: OutputTarget,
    private readonly pieceBytes: number,
    private readonly later: (f: () => void) => void = setImmediate,
  ) {}

  /** Keeps `s` (whole lines) to be written at the end of this turn. */
  write(s: string): void {
    if (this.stopped || s === '') return
    this.pending.push(s)
    if (!this.queued) {
      this.queued = true
      this.later(() => {
        this.queued = false
        this.flush()
      })
    }
  }

  /** Hands on what was gathered now (as much as the target takes without queueing). */
  flush(): void {
    while (!this.waiting && this.pending.length > 0) {
      const piece = this.take()
      this.target.write(piece, () => {
        if (!this.waiting) return
        this.waiting = false
        this.flush()
      })
      // a piece still queued in the process: the next waits until it has left
      if (this.target.backlog > 0) this.waiting = true
    }
  }

  /** Drops what has not been handed on and takes no more (the reader has gone). */
  stop(): void {
    this.stopped = true
    this.pending = []
  }

  /** Nothing gathered and nothing queued. */
  get idle(): boolean {
    return this.pending.length === 0 && !this.waiting
  }

  /** The next piece: whole writes while they fit `pieceBytes` (a longer one alone). */
  private take(): string {
    const first = this.pending[0] as string
    let bytes = Buffer.byteLength(first)
    let n = 1
    while (n < this.pending.length) {
      const b = Buffer.byteLength(this.pending[n] as string)
      if (bytes + b > this.pieceBytes) break
      bytes += b
      n++
    }
    const piece = n === 1 ? first : this.pending.slice(0, n).join('')
    this.pending.splice(0, n)
    return piece
  }
}
