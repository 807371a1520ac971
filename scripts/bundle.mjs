#!/usr/bin/env node
/**
 * The build's last step (`npm run build`, after `tsc`): bundles the programs and the library entries of dist/ with
 * esbuild, so a process starts without resolving and compiling a hundred modules one by one.
 *
 * - dist/cli/run-outcome.js: the executable (`bin` in package.json), from dist/cli/bin.js. Each command stays its
 *   own chunk (dist/cli/chunk-*.js, loaded when the command runs: `--version` loads none); io-ts and fp-ts are
 *   bundled in, the other packages (prices, progress bar, NATS clients) are loaded from node_modules as before.
 *   The chunks sit in dist/cli, beside the modules whose `import.meta.url` they carry (the stats worker and
 *   package.json are found relative to it). `replay --json` of a small log: ~0.14 s instead of ~0.20 s.
 * - dist/cli/stats/worker.bundle.js: the `stats` worker thread (statsCommand.ts prefers it when not older than
 *   worker.js): a thread starts in ~45 ms instead of ~110.
 * - dist/bundle/: the four library entries (`index.js`, `browser.js`, `replay.js`, `jetstream/index.js`), what the
 *   package's `exports` name as `default`; their types stay tsc's (dist/*.d.ts). One build with shared chunks
 *   (dist/bundle/chunk-*.js), so a class two entries export is one class (`instanceof` holds across entries), and an
 *   entry loads only the chunks its code reaches: `run-outcome/replay` no RxJS, `run-outcome/core` no `node:`
 *   module. Every package is left external: the peers (rxjs, fp-ts, io-ts) must be the consumer's own copies, and
 *   the others are loaded when used. Import of `run-outcome/replay`: ~40 ms instead of ~63; of the root ~88
 *   instead of ~120.
 *
 * dist/cli/bin.js and the unbundled library modules stay as tsc wrote them (the tests run them;
 * test/package/cliBundle.test.ts holds the executable's output equal to bin.js, test/package/libraryBundle.test.ts
 * the entries' exports and behaviour equal to the modules').
 */
import { chmodSync, readdirSync, rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const cli = fileURLToPath(new URL('../dist/cli/', import.meta.url)) // ends with a separator; decoded (a space, not %20)
// chunks are named by content hash: remove the previous build's so none is left behind
for (const f of readdirSync(cli)) if (/^chunk-[A-Z0-9]+\.js$/.test(f) || f === 'run-outcome.js') rmSync(cli + f)

const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning', legalComments: 'none' }
// packages loaded at run time from node_modules: the price data (large, read lazily), the progress bar and
// table (CommonJS), the optional NATS clients, and rxjs (no command reaches it; external so one never would be
// bundled by accident)
const external = ['@pydantic/genai-prices', 'cli-progress', 'cli-table3', '@nats-io/*', 'rxjs']

await build({
  ...common,
  entryPoints: { 'run-outcome': `${cli}bin.js` },
  outdir: cli,
  splitting: true,
  chunkNames: 'chunk-[hash]',
  external,
})
chmodSync(`${cli}run-outcome.js`, 0o755)

await build({
  ...common,
  entryPoints: [`${cli}stats/worker.js`],
  outfile: `${cli}stats/worker.bundle.js`,
  external: ['@pydantic/genai-prices'],
})

const dist = fileURLToPath(new URL('../dist/', import.meta.url))
const lib = `${dist}bundle/`
rmSync(lib, { recursive: true, force: true })
await build({
  ...common,
  entryPoints: {
    index: `${dist}index.js`,
    browser: `${dist}browser.js`,
    replay: `${dist}replay.js`,
    'jetstream/index': `${dist}jetstream/index.js`,
  },
  outdir: lib,
  splitting: true,
  chunkNames: 'chunk-[hash]',
  packages: 'external',
  // through tsc's maps to src/ (in the package): a stack trace or a debugger shows the TypeScript line
  sourcemap: true,
})
