#!/usr/bin/env node
/**
 * The build's native step (`npm run build`, after the bundles): compiles the skim kernel `native/skim.c` into
 * dist/native/skim-<platform>-<arch>.node, a Node-API addon, with the system's C compiler (`CC`, else `cc`) and
 * Node's own headers (`npm_config_nodedir`, else the include folder beside the running `node`).
 *
 * Optional by design: without a compiler or headers it prints one note and succeeds, and run-outcome parses
 * every line in JavaScript (the same results, slower on large logs). `RUN_OUTCOME_NATIVE=0` skips it.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const out = join(root, 'dist', 'native', `skim-${process.platform}-${process.arch}.node`)
const note = (why) => {
  process.stderr.write(`note: the native skim kernel was not built (${why}); every line will be parsed in JavaScript\n`)
  process.exit(0)
}
rmSync(out, { force: true })
if (process.env.RUN_OUTCOME_NATIVE === '0') note('RUN_OUTCOME_NATIVE=0')
if (process.platform === 'win32') note('no build recipe for Windows')
const dirs = [process.env.npm_config_nodedir, dirname(dirname(process.execPath))].filter(Boolean).map((d) => join(d, 'include', 'node'))
const include = dirs.find((d) => existsSync(join(d, 'node_api.h')))
if (include === undefined) note(`no node_api.h under ${dirs.join(' or ')}`)
mkdirSync(dirname(out), { recursive: true })
const cc = process.env.CC || 'cc'
const flags = ['-O2', '-std=c11', '-fPIC', '-shared', '-Wall', '-Wextra', '-Wno-unused-parameter', '-DNAPI_VERSION=8', `-I${include}`]
if (process.platform === 'darwin') flags.push('-undefined', 'dynamic_lookup')
const r = spawnSync(cc, [...flags, '-o', out, join(root, 'native', 'skim.c')], { encoding: 'utf8' })
if (r.error !== undefined) note(`${cc}: ${r.error.message}`)
if (r.status !== 0) {
  process.stderr.write(r.stderr)
  rmSync(out, { force: true })
  note(`${cc} exited ${r.status}`)
}
if (r.stderr) process.stderr.write(r.stderr)
