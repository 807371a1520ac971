/**
 * `run-outcome events`: every fixture and example, printed as native events and replayed with
 * `--format native`, gives the same runs as replaying the original (SPEC §4 protocol 2: the events carry every
 * fact the fold needs), except `format` and `source` (the events file is another file).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot, runCli } from '../support/cli.js'

const golden = JSON.parse(readFileSync(new URL('../golden/golden.json', import.meta.url), 'utf8')) as Record<string, unknown>
const files = Object.keys(golden).filter((k) => !k.endsWith('/'))

const withoutFormatAndSource = (stdout: string): Array<string> =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const r = JSON.parse(l) as Record<string, unknown>
      delete r['format']
      delete r['source']
      return JSON.stringify(r)
    })

const inRepo = async <T>(f: () => Promise<T>): Promise<T> => {
  const prev = process.cwd()
  process.chdir(repoRoot)
  try {
    return await f()
  } finally {
    process.chdir(prev)
  }
}

describe('events F | replay --format native  ≡  replay F (minus format and source)', () => {
  it.each(files)('%s', async (file) =>
    inRepo(async () => {
      const direct = await runCli(['replay', '--json', file])
      const events = await runCli(['events', file])
      if (events.code === 3 || events.code === 2) {
        // a malformed native log (3) or an input that is no log (2): events stops where replay stops
        expect(direct.code).toBe(events.code)
        if (events.code === 2) expect(events.stdout).toBe('')
        return
      }
      expect(events.code, events.stderr).toBe(0)
      const again = await runCli(['replay', '--json', '--format', 'native', '-'], events.stdout)
      if (/note: \d+ subagent files? beside it/.test(events.stderr)) {
        // a Claude Code session with subagent files: replay attaches them after the fold, events prints the
        // session file's own records; so the round trip equals the replay of the session file alone
        const dir = mkdtempSync(join(tmpdir(), 'ro-events-'))
        try {
          const alone = join(dir, basename(file))
          copyFileSync(file, alone)
          const single = await runCli(['replay', '--json', alone])
          expect(withoutFormatAndSource(again.stdout)).toStrictEqual(withoutFormatAndSource(single.stdout))
          expect(withoutFormatAndSource(direct.stdout)).not.toStrictEqual(withoutFormatAndSource(single.stdout))
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
        return
      }
      expect(withoutFormatAndSource(again.stdout)).toStrictEqual(withoutFormatAndSource(direct.stdout))
    }),
  )
})

describe('events output', () => {
  it('is one native event per line with the record line and type (codex exec)', async () =>
    inRepo(async () => {
      const r = await runCli(['events', 'examples/codex/stream-output-2.jsonl'])
      expect(r.code).toBe(0)
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(lines[0]).toStrictEqual({ type: 'session/started', sessionId: lines[0]?.['sessionId'], line: 1, recordType: 'thread.started', data: {} })
      expect(lines.filter((e) => e['type'] === 'turn/end').map((e) => e['data'])).toStrictEqual([
        { reason: { kind: 'completed' }, finishReason: 'turn.completed' },
      ])
      expect(lines.every((e) => typeof e['line'] === 'number')).toBe(true)
    }))
  it('a directory prints every log under it; --help exits 0; an unknown format is a usage error', async () =>
    inRepo(async () => {
      expect((await runCli(['events', '--help'])).code).toBe(0)
      expect((await runCli(['events', '--format', 'nope', 'examples'])).code).toBe(2)
      const r = await runCli(['events', 'examples/codex'])
      expect(r.code).toBe(0)
      expect(r.stdout.split('\n').filter((l) => l.includes('"turn/end"')).length).toBe(2)
    }))
})
