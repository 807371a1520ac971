// Preloaded with `node --require` into the CLI and so into each of its worker threads (Node runs `--require`
// preloads in workers, not `--import` ones): a worker thread that opens a file whose name holds `DIE-` ends at
// once (`process.exit` in a worker ends that thread only), as a worker killed by a crash or an out-of-memory
// would. The main thread is left alone.
const fs = require('node:fs')
const { syncBuiltinESMExports } = require('node:module')
const { isMainThread } = require('node:worker_threads')

if (!isMainThread) {
  const original = fs.createReadStream
  fs.createReadStream = function (path, ...rest) {
    if (String(path).includes('DIE-')) process.exit(7)
    return original.call(this, path, ...rest)
  }
  // stats reads regular files with synchronous reads (src/node/fileChunks.ts)
  const originalOpenSync = fs.openSync
  fs.openSync = function (path, ...rest) {
    if (String(path).includes('DIE-')) process.exit(7)
    return originalOpenSync.call(this, path, ...rest)
  }
  syncBuiltinESMExports()
}
