/**
 * A `stats` worker thread: reads the units it is sent (arrays of file paths, one folder's files at a time) and
 * posts back each file's outcome (`{ outcome }`), then `{ done: true }` (`pool.ts`). `workerData` is the job's
 * {@link RecordJob}; a `null` message ends the worker.
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { PoolMessage } from './pool.js'
import { readUnitRecords, type RecordJob, type UnitFile } from './records.js'

const job = workerData as RecordJob
parentPort?.on('message', (unit: ReadonlyArray<UnitFile> | null) => {
  if (unit === null) {
    parentPort?.close()
    return
  }
  void readUnitRecords(unit, job, (outcome) => parentPort?.postMessage({ outcome } satisfies PoolMessage)).then(() =>
    parentPort?.postMessage({ done: true } satisfies PoolMessage),
  )
})
