/**
 * The worker-thread pool of `stats`: units of work (the files of one folder, or one file; `records.ts`
 * `unitsOf`) are handed out one at a time to `jobs` workers; a worker posts the files' outcomes as they are read
 * (`{ outcomes }`, in batches) and `done` with the unit's last ones, then gets the next unit.
 *
 * A worker that dies (an uncaught error, an exit, an out-of-memory kill) takes only the file it was reading: that
 * file is reported as skipped (`why: 'crashed'`, named, counted), the rest of its unit goes back to the queue, and
 * the queued units go to the other workers and to a replacement (at most `maxRestarts` replacements; past that,
 * the rest are read in this thread). No file is dropped silently: every file gets exactly one outcome.
 * @module
 */
import { Worker } from 'node:worker_threads'
import type { FileOutcome } from './records.js'
import { fileLabel, type UnitFile } from './units.js'

/**
 * A message from a pool worker: outcomes of the unit's files, in the order read, and with `done` the end of the
 * unit. @since 0.2.0
 */
export type PoolMessage = { readonly outcomes: ReadonlyArray<FileOutcome>; readonly done?: true }

/**
 * What a pool worker is started with: its job (`PoolOptions.workerData`), and a shared counter a worker that posts
 * outcomes in batches keeps at the number of files of the current unit it has finished (`Atomics.store(progress,
 * 0, n)`), so that if it dies the pool knows which file it was reading and which finished files it never posted
 * (those are read again). A worker that posts every outcome at once may leave it alone.
 * @since 0.2.0
 */
export interface PoolWorkerData {
  readonly data: unknown
  readonly progress: Int32Array
}

/** Options of {@link runPool}. @since 0.2.0 */
export interface PoolOptions<F extends UnitFile = UnitFile> {
  /** The worker script: sent a unit (an array of file paths; `null` ends it), posts {@link PoolMessage}s. */
  readonly workerUrl: URL
  /**
   * The worker's job: it is given as `workerData.data`, beside `workerData.progress` (see {@link PoolWorkerData}).
   */
  readonly workerData: unknown
  /** Workers to start (≥ 1). */
  readonly jobs: number
  /** Replacement workers allowed after deaths (default: `jobs`). */
  readonly maxRestarts?: number
  /**
   * Reads one unit in this thread (when the restart budget is spent), handing out each file's outcome but the first
   * `silent` files' (see {@link PoolUnit}).
   */
  readonly inProcess: (files: ReadonlyArray<F>, onOutcome: (o: FileOutcome) => void, silent: number) => Promise<void>
  /**
   * Told of a unit queued again without its already-posted files (a worker died re-reading one of them): the files
   * read then miss those files' record claims (K15), so their outcomes may differ from a proper reading.
   */
  readonly onReread?: (files: ReadonlyArray<F>) => void
}

/**
 * What a worker is sent: a unit's files, of which the first `silent` are read only for the records they claim (a
 * unit read again after its worker died: those files' outcomes were handed out already, and the files after them
 * must see their records as read, K15), with no outcome. `null` ends the worker.
 * @since 0.2.0
 */
export interface PoolUnit<F extends UnitFile = UnitFile> {
  readonly files: ReadonlyArray<F>
  readonly silent: number
}

/**
 * Reads every unit through the pool; `onOutcome` gets one outcome per file (in completion order). Resolves when
 * all are done; never rejects.
 * @since 0.2.0
 */
export const runPool = async <F extends UnitFile>(
  units: ReadonlyArray<ReadonlyArray<F>>,
  options: PoolOptions<F>,
  onOutcome: (o: FileOutcome) => void,
): Promise<void> => {
  const queue: Array<PoolUnit<F>> = units.filter((u) => u.length > 0).map((files) => ({ files, silent: 0 }))
  let restarts = 0
  const maxRestarts = options.maxRestarts ?? options.jobs
  const drainHere = async (): Promise<void> => {
    for (let u = queue.shift(); u !== undefined; u = queue.shift()) await options.inProcess(u.files, onOutcome, u.silent)
  }
  const start = (): Promise<void> =>
    new Promise<void>((resolve) => {
      let worker: Worker
      const progress = new Int32Array(new SharedArrayBuffer(4))
      try {
        worker = new Worker(options.workerUrl, { workerData: { data: options.workerData, progress } satisfies PoolWorkerData })
      } catch {
        void drainHere().then(resolve)
        return
      }
      // the unit being read and how many of its outcomes have arrived
      let current: PoolUnit<F> | null = null
      let reported = 0
      let finished = false
      const finish = (dead: boolean): void => {
        if (finished) return
        finished = true
        if (dead && current !== null) {
          // the worker's count says which file it was reading: that one is the crash; the files it finished but had
          // not posted are read again, after the posted ones are read silently (so their records stay claimed)
          const { files, silent } = current
          const posted = silent + reported
          const at = Atomics.load(progress, 0)
          if (at < silent) {
            // it died reading again a file whose outcome was given already: no file to blame; the rest is read
            // without the silent files (their copies may count twice rather than the unit never being read)
            options.onReread?.(files)
            queue.unshift({ files: files.slice(silent), silent: 0 })
          } else {
            const done = Math.min(files.length, Math.max(posted, at))
            const file = files[done]
            if (file !== undefined) onOutcome({ file: fileLabel(file), ok: false, why: 'crashed', message: 'the reader crashed on this file' })
            const rest: PoolUnit<F> = { files: [...files.slice(0, done), ...files.slice(done + 1)], silent: posted }
            if (rest.files.length > rest.silent) queue.unshift(rest)
          }
          current = null
        }
        if (dead && queue.length > 0) {
          // the units not yet read go to a replacement (the other workers keep taking them too)
          if (restarts < maxRestarts) {
            restarts++
            void start().then(resolve)
          } else void drainHere().then(resolve)
          return
        }
        resolve()
      }
      const feed = (): void => {
        current = queue.shift() ?? null
        reported = 0
        Atomics.store(progress, 0, 0)
        if (current !== null) worker.postMessage(current)
        else
          void worker.terminate().then(
            () => finish(false),
            () => finish(false),
          )
      }
      // an uncaught error is known before the outcomes the worker posted ahead of it have all arrived: the death
      // is settled at 'exit', one turn later, so every file it finished keeps its outcome
      let died = false
      worker.on('message', (m: PoolMessage) => {
        if (finished) return
        for (const o of m.outcomes) {
          reported++
          onOutcome(o)
        }
        if (m.done === true && !died) feed()
      })
      worker.on('error', () => {
        died = true
      })
      // an exit while a unit is being read is a death; after the last unit it is the normal end
      worker.on('exit', () => setImmediate(() => finish(died || current !== null)))
      feed()
    })
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.jobs, queue.length)) }, () => start()))
}
