/**
 * Attack on the batched worker outcomes (issue 15): a worker that dies must not change what the files it did
 * not die on count. A Claude Code project folder holds an original session and a resumed copy of it; the resumed
 * file's copied records count once (K15), because the files of one folder are read with one shared set of the
 * records seen. When the worker dies on a later file of the folder after it finished the resumed file but before
 * it posted that file's outcome, the pool reads the resumed file again — alone, with a fresh set — and its copied
 * run is counted a second time.
 *
 * As a real process: the built CLI with a preload (written here) that, in worker threads only, holds the read of
 * a file named `SLOW-…` for 300 ms (so the worker posts its batch when that file ends: the batch's first outcome
 * is then over 100 ms old) and ends the thread on a file named `DIE-…`, as a crash or an out-of-memory would.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const bin = new URL('../../dist/cli/bin.js', import.meta.url).pathname
const fixtures = new URL('../fixtures/', import.meta.url).pathname
const original = join(fixtures, 'claude-code-transcript/resumed-session/1-original.jsonl')
const resumed = join(fixtures, 'claude-code-transcript/resumed-session/2-resumed.jsonl')
const native = join(fixtures, 'hostile/crlf-native.jsonl')

const PRELOAD = `
const fs = require('node:fs')
const { syncBuiltinESMExports } = require('node:module')
const { isMainThread } = require('node:worker_threads')
if (!isMainThread) {
  const hold = (path) => {
    const p = String(path)
    if (p.includes('DIE-')) process.exit(7)
    if (p.includes('SLOW-')) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300)
  }
  const openSync = fs.openSync
  fs.openSync = function (path, ...rest) { hold(path); return openSync.call(this, path, ...rest) }
  const createReadStream = fs.createReadStream
  fs.createReadStream = function (path, ...rest) { hold(path); return createReadStream.call(this, path, ...rest) }
  syncBuiltinESMExports()
}
`

interface Doc {
  runs: number
  files: number
  filesRead: number
  filesSkipped: number
  groups: Record<string, { runs: number }>
  skipped: Array<{ file: string; why: string }>
}

/** Two project folders (two units, so the pool is used); `last` is the name of p1's last file. */
const tree = (last: string): string => {
  const root = mkdtempSync(join(tmpdir(), 'run-outcome-batch-dedup-'))
  mkdirSync(join(root, 'p1'))
  mkdirSync(join(root, 'p2'))
  copyFileSync(native, join(root, 'p1/0-filler.jsonl'))
  copyFileSync(original, join(root, 'p1/1-SLOW-original.jsonl'))
  copyFileSync(resumed, join(root, 'p1/2-resumed.jsonl'))
  copyFileSync(native, join(root, `p1/${last}`))
  copyFileSync(native, join(root, 'p2/a.jsonl'))
  writeFileSync(join(root, 'preload.cjs'), PRELOAD)
  return root
}

const stats = (root: string): Doc => {
  const r = spawnSync(
    process.execPath,
    ['--require', join(root, 'preload.cjs'), bin, 'stats', '--jobs', '2', '--by', 'session', '--json', join(root, 'p1'), join(root, 'p2')],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  )
  expect(r.status).toBe(0)
  return JSON.parse(r.stdout) as Doc
}

describe.skipIf(!existsSync(bin))('stats: a worker that dies after finishing files it had not posted yet', () => {
  it('the resumed session counts its copied run once, as when no worker dies', () => {
    const calmRoot = tree('3-ok.jsonl')
    const calm = stats(calmRoot)
    const root = tree('3-DIE-x.jsonl')
    const crashed = stats(root)
    // no crash: the resumed file's copy of the original run is skipped (K15), one run of its own is left
    expect(calm.skipped).toStrictEqual([])
    expect(calm.groups[join(calmRoot, 'p1/2-resumed.jsonl')]?.runs).toBe(1)
    expect(crashed.skipped).toStrictEqual([{ file: join(root, 'p1/3-DIE-x.jsonl'), why: 'crashed' }])
    expect({ files: crashed.files, filesRead: crashed.filesRead, filesSkipped: crashed.filesSkipped }).toStrictEqual({
      files: 5,
      filesRead: 4,
      filesSkipped: 1,
    })
    // the crash takes the dead file's runs (one, as the file is the native log of one run) and nothing else
    expect(crashed.groups[join(root, 'p1/2-resumed.jsonl')]?.runs).toBe(1)
    expect(crashed.runs).toBe(calm.runs - 1)
  })
})
