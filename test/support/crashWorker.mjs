// A stand-in `stats` worker for test/cli/statsPool.test.ts (the protocol of src/cli/stats/worker.ts): posts an
// empty outcome for each file of a unit (`{ files, silent }`: the first `silent` files give none), then done,
// except that it dies on a file whose name contains "crash" (by an uncaught error) or "exit" (by process.exit), as
// a reader that runs out of memory or hits a bug would. It keeps no progress counter: it posts each outcome as soon as it has it.
import { parentPort } from 'node:worker_threads'

parentPort?.on('message', (unit) => {
  if (unit === null) {
    parentPort?.close()
    return
  }
  unit.files.forEach((file, i) => {
    if (file.includes('crash')) throw new Error(`dies on ${file}`)
    if (file.includes('exit')) process.exit(7)
    if (i >= unit.silent) parentPort?.postMessage({ outcomes: [{ file, ok: true, format: 'native', runs: [] }] })
  })
  parentPort?.postMessage({ outcomes: [], done: true })
})
