/**
 * A `stats` worker thread: reads the units it is sent (`PoolUnit`: one folder's files at a time) and
 * posts back the files' outcomes in batches (`{ outcomes }`; the unit's last batch carries `done: true`)
 * (`pool.ts`). `workerData` is the job's {@link RecordJob}; a `null` message ends the worker.
 *
 * Why batches: a message to the main thread takes the port's lock, and on a machine with as many workers as cores
 * the main thread is often descheduled while it holds it; one message per file (thousands of small transcripts)
 * measured ~0.4 ms per post on 2 cores, a fifth of a worker's time. A batch is posted when it holds
 * `BATCH_FILES` outcomes or its first is `BATCH_MS` old, so progress still moves; the shared counter
 * `progress` (`PoolWorkerData`) tells the pool, should the thread die, which file it was reading.
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { PoolMessage, PoolUnit, PoolWorkerData } from './pool.js'
import { type FileOutcome, readUnitRecords, type RecordJob } from './records.js'

const BATCH_FILES = 64
const BATCH_MS = 100

const { data, progress } = workerData as PoolWorkerData
const job = data as RecordJob
parentPort?.on('message', (unit: PoolUnit | null) => {
  if (unit === null) {
    parentPort?.close()
    return
  }
  let batch: Array<FileOutcome> = []
  let since = 0
  const post = (done: boolean): void => {
    const m: PoolMessage = done ? { outcomes: batch, done: true } : { outcomes: batch }
    batch = []
    parentPort?.postMessage(m)
  }
  void readUnitRecords(
    unit.files,
    job,
    (outcome) => {
      if (batch.length === 0) since = Date.now()
      batch.push(outcome)
      if (batch.length >= BATCH_FILES || Date.now() - since >= BATCH_MS) post(false)
    },
    {
      silent: unit.silent,
      // the pool reads this if the thread dies: the files after it were not reached, the ones before it are done
      onRead: (done) => Atomics.store(progress, 0, done),
    },
  ).then(() => post(true))
})
