// A `node --import` preload that records every module the process loads, for test/package/lazyImports.test.ts:
// the ESM resolutions (through a module.register resolve hook, which runs in the loader's thread and appends
// each resolved URL to the file named by RUN_OUTCOME_LOADS) and, at exit, every CommonJS module in the require
// cache (rxjs, fp-ts and io-ts resolve to CommonJS under Node, and a require() from CommonJS bypasses the hook).
import { appendFileSync } from 'node:fs'
import { createRequire, register } from 'node:module'
import { pathToFileURL } from 'node:url'

const out = process.env.RUN_OUTCOME_LOADS
if (out !== undefined && out !== '') {
  register(new URL('./recordLoadsHooks.mjs', import.meta.url), { data: { out } })
  const cache = createRequire(import.meta.url).cache
  process.on('exit', () => {
    const files = Object.keys(cache).map((f) => pathToFileURL(f).href)
    if (files.length > 0) appendFileSync(out, `${files.join('\n')}\n`)
  })
}
