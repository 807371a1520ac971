// A stand-in `stats` worker that posts outcomes in batches, as src/cli/stats/worker.ts does: it keeps the shared
// `progress` counter (workerData.progress) at the files of the unit it has finished (silent ones too), posts a
// batch every `workerData.data.batch` files and at the unit's end (with done), and dies by an uncaught error on a
// file whose name contains "crash" — with finished files of the unit still unposted, which the pool must read
// again (after reading the posted ones silently: `{ files, silent }`).
import { parentPort, workerData } from 'node:worker_threads'

const { data, progress } = workerData
parentPort?.on('message', (unit) => {
  if (unit === null) {
    parentPort?.close()
    return
  }
  let batch = []
  unit.files.forEach((file, i) => {
    if (file.includes('crash')) throw new Error(`dies on ${file}`)
    if (i >= unit.silent) batch.push({ file, ok: true, format: 'native', runs: [] })
    Atomics.store(progress, 0, i + 1)
    if (batch.length >= data.batch) {
      parentPort?.postMessage({ outcomes: batch })
      batch = []
    }
  })
  parentPort?.postMessage({ outcomes: batch, done: true })
})
