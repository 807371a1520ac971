/**
 * A `stats` worker thread: reads the files it is sent and posts back their run records.
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { EndingKind } from '../../core/RunEnding.js'
import type { PriceTable } from '../../core/prices.js'
import { readFileRecords } from './records.js'

interface Setup {
  readonly format: string
  readonly accept: ReadonlyArray<EndingKind>
  readonly prices?: PriceTable
}

const setup = workerData as Setup
parentPort?.on('message', (file: string | null) => {
  if (file === null) {
    parentPort?.close()
    return
  }
  void readFileRecords(file, setup.format, setup.accept, setup.prices).then((outcome) => parentPort?.postMessage(outcome))
})
