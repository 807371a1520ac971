/**
 * `stats` loses nothing when a worker dies (issue 14), as a real process: the built CLI runs with a preload
 * (`support/dieOnRead.cjs`) that ends any worker thread opening a file named `DIE-…`, as a crash or an
 * out-of-memory would. The dead file is named on stderr and counted as skipped; every other file is read (its
 * queued files go to the other workers, a replacement, or past the restart budget this thread); the exit status
 * is the documented one (0: the inputs could be read).
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const bin = new URL('../../dist/cli/bin.js', import.meta.url).pathname
const preload = new URL('./support/dieOnRead.cjs', import.meta.url).pathname
const log = new URL('../fixtures/claude-code-stream-json/claude.jsonl', import.meta.url).pathname

/** A folder of two projects (two units, so the pool is used) holding `names` (`p/name`), each a one-run log. */
const tree = (names: ReadonlyArray<string>): string => {
  const root = mkdtempSync(join(tmpdir(), 'run-outcome-workers-'))
  for (const n of names) {
    mkdirSync(join(root, n.split('/')[0] as string), { recursive: true })
    copyFileSync(log, join(root, n))
  }
  return root
}

const stats = (args: ReadonlyArray<string>): { code: number | null; stdout: string; stderr: string } => {
  const r = spawnSync(process.execPath, ['--require', preload, bin, 'stats', '--jobs', '2', ...args], { encoding: 'utf8', timeout: 60_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe.skipIf(!existsSync(bin))('stats when a worker dies (a real process)', () => {
  it('two of ten files kill their worker: both named and counted as skipped, the eight others read, exit 0', () => {
    const names = [
      'p1/a.jsonl',
      'p1/b.jsonl',
      'p1/c-DIE-1.jsonl',
      'p1/d.jsonl',
      'p1/e.jsonl',
      'p2/f.jsonl',
      'p2/g-DIE-2.jsonl',
      'p2/h.jsonl',
      'p2/i.jsonl',
      'p2/j.jsonl',
    ]
    const root = tree(names)
    const json = stats(['--json', root])
    expect(json.code).toBe(0)
    const doc = JSON.parse(json.stdout) as {
      runs: number
      files: number
      filesRead: number
      filesSkipped: number
      skipped: Array<{ file: string; why: string }>
    }
    expect({ runs: doc.runs, files: doc.files, filesRead: doc.filesRead, filesSkipped: doc.filesSkipped }).toStrictEqual({
      runs: 8,
      files: 10,
      filesRead: 8,
      filesSkipped: 2,
    })
    // the order of the skipped files is the order the workers died in
    expect([...doc.skipped].sort((a, b) => (a.file < b.file ? -1 : 1))).toStrictEqual([
      { file: join(root, 'p1/c-DIE-1.jsonl'), why: 'crashed' },
      { file: join(root, 'p2/g-DIE-2.jsonl'), why: 'crashed' },
    ])
    const text = stats([root])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain('8 runs in 8 files (2 skipped)')
    expect(
      text.stderr
        .split('\n')
        .filter((l) => l.includes('crashed'))
        .sort(),
    ).toStrictEqual([
      `run-outcome stats: skipped ${join(root, 'p1/c-DIE-1.jsonl')}: the reader crashed on it`,
      `run-outcome stats: skipped ${join(root, 'p2/g-DIE-2.jsonl')}: the reader crashed on it`,
    ])
  })

  it('every file kills its worker: past the restart budget the rest is read in this thread; every file is read or named', () => {
    const names = ['p1/DIE-1.jsonl', 'p1/DIE-2.jsonl', 'p1/DIE-3.jsonl', 'p2/DIE-1.jsonl', 'p2/DIE-2.jsonl', 'p2/DIE-3.jsonl']
    const root = tree(names)
    const r = stats(['--json', root])
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout) as { runs: number; files: number; filesRead: number; filesSkipped: number; skipped: Array<{ file: string; why: string }> }
    // 2 workers and 2 replacements (--jobs 2) die; the 2 files left are read here
    expect({ files: doc.files, filesRead: doc.filesRead, filesSkipped: doc.filesSkipped, runs: doc.runs }).toStrictEqual({
      files: 6,
      filesRead: 2,
      filesSkipped: 4,
      runs: 2,
    })
    expect(doc.skipped.every((s) => s.why === 'crashed')).toBe(true)
  })
})
