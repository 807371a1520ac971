/**
 * A folder of many large files that are no log (other tools' `.jsonl` data beside the transcripts) under a low
 * limit of open files: each such file used to stay open after its replay gave up on it (test/node/replayCloses.test.ts
 * holds the cause), so under `ulimit -n 64` `stats` of 60 such files and one transcript reported "none of the 61
 * file(s) could be read" and exited 2, the transcript lost to EMFILE. Now the transcript's run is counted in both
 * commands, whatever the order the files are read in.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { binPath, repoRoot } from '../support/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'run-outcome-many-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// each file is over stats' first read (1 MiB), so the replay stops with the file still open
const line = `{"hello":"${'x'.repeat(1000)}"}\n`
const data = line.repeat(1200)
for (let i = 0; i < 60; i++) writeFileSync(join(dir, `data-${String(i).padStart(2, '0')}.jsonl`), data)
// read last (name order)
copyFileSync(join(repoRoot, 'examples/claude-code/claude.jsonl'), join(dir, 'zz-session.jsonl'))

/** The CLI (the modules, dist/cli/bin.js) under `ulimit -n 64`. */
const limited = (args: ReadonlyArray<string>): { status: number | null; stdout: string; stderr: string } => {
  const command = `ulimit -n 64 && exec "$0" "$@"`
  const r = spawnSync('bash', ['-c', command, process.execPath, binPath, ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', RUN_OUTCOME_CACHE: '0' },
    timeout: 120_000,
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe('many large files that are no log, under ulimit -n 64', () => {
  it('stats counts the transcript after them and skips each of them as undetected', () => {
    const r = limited(['stats', '--json', '--no-cache', '--jobs', '1', dir])
    expect(r.stderr).not.toMatch(/EMFILE|could not be read|not readable/)
    const report = JSON.parse(r.stdout) as { runs: number; filesRead: number; filesSkipped: number; skipped: Array<{ why: string }> }
    expect(report.runs).toBe(1)
    expect(report.filesSkipped).toBe(60)
    expect(new Set(report.skipped.map((s) => s.why))).toStrictEqual(new Set(['undetected']))
  })

  it('replay prints the transcript run after them', () => {
    const r = limited(['replay', '--json', dir])
    expect(r.stderr).not.toMatch(/EMFILE|cannot read|not readable/)
    const runs = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { ending: { kind: string }; source: { file: string } })
    expect(runs.map((x) => [x.ending.kind, x.source.file.endsWith('zz-session.jsonl')])).toStrictEqual([['answered', true]])
  })
})
