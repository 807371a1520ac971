/**
 * `stats` says what it could not read of a file whose runs it counts, as `replay` does (found by the hostile-input
 * trial: a line over the cap, a gzip stream cut off were counted in silence). The notes are `replay`'s own words,
 * on stderr and in `--json` (`notes`, `filesWithNotes`), and they come back when the report is answered from the
 * result cache (the built CLI with the cache on).
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { LINE_CAP_TEXT, MAX_LINE_VALUES } from '../../src/io/lines.js'
import { binPath, repoRoot, runCli } from '../support/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'ro-statsnotes-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const real = join(repoRoot, 'test/fixtures/claude-code-transcript/full-session-two.jsonl')
const project = join(dir, 'projects', '-x')
mkdirSync(project, { recursive: true })
copyFileSync(real, join(project, 'plain.jsonl'))
// the same session, with a line of more JSON values than the line cap allows inserted after its third line
const lines = readFileSync(real, 'utf8').split('\n')
const overCap = `[${new Array(MAX_LINE_VALUES + 10).fill('0').join(',')}]`
// each in a folder of its own: files of one folder that repeat each other's records count once (K15)
mkdirSync(join(dir, 'a'))
mkdirSync(join(dir, 'b'))
const capped = join(dir, 'a', 'capped.jsonl')
writeFileSync(capped, [...lines.slice(0, 3), overCap, ...lines.slice(3)].join('\n'))
// a gzipped session cut before its trailer
const gz = gzipSync(readFileSync(real))
const cut = join(dir, 'b', 'cut.jsonl.gz')
writeFileSync(cut, gz.subarray(0, gz.length - 8))

const capNote = `line 4: skipped a line of ${Buffer.byteLength(overCap).toLocaleString('en-US')} bytes holding over ${MAX_LINE_VALUES.toLocaleString('en-US')} JSON values (over the line cap of ${LINE_CAP_TEXT})`
const gzNote = 'the gzip stream ended before its end marker (cut off); read what it held'

describe('stats: the notes of a reading', () => {
  it('are the notes replay prints, in --json with their files; the runs are counted as replay reads them', async () => {
    for (const [file, note] of [
      [capped, capNote],
      [cut, gzNote],
    ] as const) {
      const replay = await runCli(['replay', '--json', file])
      expect(replay.stderr).toBe(`run-outcome replay: ${file}: ${note}\n`)
      const s = await runCli(['stats', '--json', file])
      expect(s.code, s.stderr).toBe(0)
      const j = JSON.parse(s.stdout) as Record<string, unknown>
      expect([j['filesWithNotes'], j['notes']]).toStrictEqual([1, [{ file, message: note }]])
      const runs = replay.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { usage: { outputTokens: number } })
      expect(j['runs']).toBe(runs.length)
      expect((j['tokens'] as { outputTokens: number }).outputTokens).toBe(runs.reduce((n, r) => n + r.usage.outputTokens, 0))
    }
  })

  it('a file read whole has none; an empty file is a file with no run, not a note', async () => {
    writeFileSync(join(project, 'empty.jsonl'), '')
    const s = await runCli(['stats', '--json', project])
    const j = JSON.parse(s.stdout) as Record<string, unknown>
    expect([j['filesRead'], j['filesWithoutRuns'], j['filesWithNotes'], j['notes']]).toStrictEqual([2, 1, 0, []])
    expect(s.stderr).toBe('')
  })

  it('the table says how many files have notes and names them on stderr', async () => {
    const s = await runCli(['stats', capped, cut, join(project, 'plain.jsonl')])
    expect(s.code, s.stderr).toBe(0)
    expect(s.stdout).toMatch(/ in 3 files \(2 with notes\)/)
    expect(s.stderr).toBe(`run-outcome stats: ${capped}: ${capNote}\nrun-outcome stats: ${cut}: ${gzNote}\n`)
  })

  it('past five, the rest are counted', async () => {
    const many = join(dir, 'many')
    mkdirSync(many)
    for (let i = 0; i < 7; i++) copyFileSync(cut, join(many, `s${i}.jsonl.gz`))
    const s = await runCli(['stats', many])
    expect(s.stderr.split('\n').filter((l) => l.endsWith(gzNote))).toHaveLength(5)
    expect(s.stderr).toContain('run-outcome stats: … and 2 more notes (--json lists up to 100)\n')
  })

  it('come back from the result cache', () => {
    const home = join(dir, 'home')
    mkdirSync(home)
    const env = { PATH: process.env['PATH'] ?? '', HOME: home, TZ: 'UTC', NO_COLOR: '1', RUN_OUTCOME_CACHE_DIR: join(dir, 'cache') }
    const run = () => spawnSync(process.execPath, [binPath, 'stats', '--json', cut], { cwd: repoRoot, encoding: 'utf8', env, timeout: 60_000 })
    const first = run()
    const second = run()
    expect(second.stdout).toBe(first.stdout)
    expect((JSON.parse(second.stdout) as { notes: unknown }).notes).toStrictEqual([{ file: cut, message: gzNote }])
  })
})
