/**
 * Attack on the synchronous reads of `stats` (issue 15, src/node/fileChunks.ts): Ctrl-C (SIGINT) or SIGTERM while
 * `stats` reads a folder's files in its own thread (one folder is one unit, read without workers; so is any input
 * with `--jobs 1`) must still stop it. Each file is read with synchronous reads; the reader gives the event loop a
 * turn every few milliseconds, counted across files (a first version counted chunks of one file, so a folder of
 * small files, one chunk each, was read with no turn at all and a signal waited for the last of them).
 *
 * As a real process: a preload (written here) sends the process SIGINT, or SIGTERM, from the main thread as it
 * opens the 20th of 400 small logs, and counts the logs opened after that. Measured as counts, not time: the
 * process must end by the signal (no summary printed) having opened at most a few dozen more files.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const bin = new URL('../../dist/cli/bin.js', import.meta.url).pathname
const log = new URL('../fixtures/hostile/crlf-native.jsonl', import.meta.url).pathname

const FILES = 400

const preload = (counter: string, signal: string): string => `
const fs = require('node:fs')
const { syncBuiltinESMExports } = require('node:module')
const { isMainThread } = require('node:worker_threads')
if (isMainThread) {
  let opened = 0
  let after = -1
  const seen = (path) => {
    if (!String(path).includes('log-')) return
    opened++
    if (after >= 0) fs.writeFileSync(${JSON.stringify(counter)}, String(++after))
    if (opened === 20) {
      after = 0
      fs.writeFileSync(${JSON.stringify(counter)}, '0')
      process.kill(process.pid, ${JSON.stringify(signal)})
    }
  }
  const openSync = fs.openSync
  fs.openSync = function (path, ...rest) { seen(path); return openSync.call(this, path, ...rest) }
  const createReadStream = fs.createReadStream
  fs.createReadStream = function (path, ...rest) { seen(path); return createReadStream.call(this, path, ...rest) }
  syncBuiltinESMExports()
}
`

const run = (signal: 'SIGINT' | 'SIGTERM', extra: ReadonlyArray<string>) => {
  const root = mkdtempSync(join(tmpdir(), 'run-outcome-stats-signal-'))
  const dir = join(root, 'project')
  mkdirSync(dir)
  for (let i = 0; i < FILES; i++) copyFileSync(log, join(dir, `log-${String(i).padStart(4, '0')}.jsonl`))
  const counter = join(root, 'opened-after-signal')
  writeFileSync(join(root, 'preload.cjs'), preload(counter, signal))
  const r = spawnSync(process.execPath, ['--require', join(root, 'preload.cjs'), bin, 'stats', '--json', ...extra, dir], { encoding: 'utf8', timeout: 120_000 })
  return { status: r.status, signal: r.signal, stdout: r.stdout, openedAfter: Number(readFileSync(counter, 'utf8')) }
}

describe.skipIf(!existsSync(bin))('stats stops on a signal while it reads many small files in its own thread', () => {
  for (const [signal, extra] of [
    ['SIGINT', []],
    ['SIGTERM', ['--jobs', '1']],
  ] as const) {
    it(`${signal}${extra.length > 0 ? ` (${extra.join(' ')})` : ''}: ends by the signal, no summary, at most 50 of the ${FILES - 20} files left opened`, () => {
      const r = run(signal, extra)
      expect({ signal: r.signal, stdout: r.stdout }).toStrictEqual({ signal, stdout: '' })
      expect(r.openedAfter).toBeLessThanOrEqual(50)
    })
  }
})
