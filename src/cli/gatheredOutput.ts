/**
 * Standard output gathered into fewer writes, for the executable (src/cli/bin.ts).
 *
 * A write to fd 1 is a system call: `replay --json` of a log of 9,000 runs into a pipe spent ~0.2 s of system
 * time making one per run. What the commands write is kept and handed on once per turn of the event loop, in
 * pieces of whole writes (commands write whole lines, or whole blocks of lines) up to `pieceBytes`:
 *
 * - **Pipes: 4,096 bytes (PIPE_BUF).** The kernel writes a piece that size to a pipe whole or not at all, so when
 *   the reader stalls and the process is then ended by a signal, the reader has whole lines only: a write longer
 *   than a piece is split between its lines, and only a single line longer than a piece (written alone) can be
 *   cut. The next piece is handed on only once the previous one has left the process, so no more than one piece
 *   is ever queued in it (Node would join queued pieces into one larger write).
 * - **Files: 64 KiB**, any number in a row.
 *
 * {@link GatheredOutput.flush} hands on what was gathered at once, and {@link GatheredOutput.aside} runs a write
 * to the other stream (stderr) only once every piece gathered before it has left the process: the two streams keep
 * the order they were written in under `2>&1` even when the reader of stdout is behind (a note written at once
 * would pass the runs still queued for the pipe). Live commands (`watch`) are not gathered at all: their reader
 * leaving (`| head`) is only seen when a write fails, which needs a write per run.
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
  /**
   * The writes not handed on yet, from `head` on (a read index: taking a piece does not shift the array), and the
   * asides (functions) to run once the writes before them have left.
   */
  private pending: Array<string | (() => void)> = []
  private head = 0
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

  /**
   * Runs `f` (a write to another stream) once everything written before it has left the process: now when
   * nothing is gathered or queued, else in its place among the pieces. After {@link stop}, at once.
   */
  aside(f: () => void): void {
    this.flush()
    if (this.idle) f()
    else this.pending.push(f)
  }

  /** Hands on what was gathered now (as much as the target takes without queueing), running asides in order. */
  flush(): void {
    while (!this.waiting && this.head < this.pending.length) {
      const next = this.pending[this.head]
      if (typeof next === 'function') {
        this.head++
        next()
        continue
      }
      const piece = this.take()
      // Node calls `done` a tick later even for a write that went out at once: only the callback of the piece that
      // is waited on may hand on the next, or the late callbacks of earlier pieces would queue several at once
      let left = false
      let waitedOn = false
      this.target.write(piece, () => {
        left = true
        if (!waitedOn) return
        this.waiting = false
        this.flush()
      })
      if (!left && this.target.backlog > 0) {
        this.waiting = true
        waitedOn = true
      }
    }
    // the writes handed on are let go: at once when all were, else once they are most of the array
    if (this.head === this.pending.length) {
      this.pending = []
      this.head = 0
    } else if (this.head > 1024 && this.head * 2 > this.pending.length) {
      this.pending = this.pending.slice(this.head)
      this.head = 0
    }
  }

  /**
   * Drops the writes not handed on and takes no more (the reader has gone, or the process is ending); the asides
   * among them still run, in order, now.
   */
  stop(): void {
    this.stopped = true
    const left = this.pending.slice(this.head)
    this.pending = []
    this.head = 0
    this.waiting = false
    for (const f of left) if (typeof f === 'function') f()
  }

  /** Nothing gathered and nothing queued. */
  get idle(): boolean {
    return this.head === this.pending.length && !this.waiting
  }

  /**
   * The next piece: whole writes while they fit `pieceBytes` (up to the next aside); a longer write is split
   * between its lines.
   */
  private take(): string {
    const first = this.pending[this.head] as string
    const firstBytes = Buffer.byteLength(first)
    if (firstBytes > this.pieceBytes) {
      const cut = lineCut(first, this.pieceBytes)
      if (cut < first.length) {
        this.pending[this.head] = first.slice(cut)
        return first.slice(0, cut)
      }
      this.head++
      return first
    }
    let bytes = firstBytes
    let end = this.head + 1
    while (end < this.pending.length) {
      const next = this.pending[end]
      if (typeof next !== 'string') break
      const b = Buffer.byteLength(next)
      if (bytes + b > this.pieceBytes) break
      bytes += b
      end++
    }
    const piece = end === this.head + 1 ? first : this.pending.slice(this.head, end).join('')
    this.head = end
    return piece
  }
}

/**
 * Where to cut `s` so that its first part is whole lines of at most `bytes` bytes: just after the last newline
 * that fits, or after its first line when that one alone is longer (then it goes alone), or its length.
 */
const lineCut = (s: string, bytes: number): number => {
  let cut = 0
  let used = 0
  for (;;) {
    const nl = s.indexOf('\n', cut)
    const end = nl === -1 ? s.length : nl + 1
    const b = Buffer.byteLength(s.slice(cut, end))
    if (cut > 0 && used + b > bytes) return cut
    used += b
    cut = end
    if (end === s.length || used > bytes) return cut
  }
}
