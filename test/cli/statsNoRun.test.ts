/**
 * `stats` over a folder with files that hold no run (an empty file, a Claude Code transcript of only `summary` or
 * `file-history-snapshot` records, as real ~/.claude homes hold many): they are counted as "with no run", not as
 * unfinished runs that pull the success rate down (found by the new-user trial). `replay` of such a file alone
 * still prints one unfinished run (SPEC §1).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { repoRoot, runCli } from '../support/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'ro-norun-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const project = join(dir, 'projects', '-x')
mkdirSync(project, { recursive: true })
writeFileSync(join(project, 'summary.jsonl'), '{"type":"summary","summary":"Fix the tests","leafUuid":"a"}\n')
writeFileSync(join(project, 'snapshot.jsonl'), '{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}\n')
writeFileSync(join(project, 'empty.jsonl'), '')
copyFileSync(join(repoRoot, 'test/fixtures/claude-code-transcript/full-session-two.jsonl'), join(project, 'real.jsonl'))

describe('stats: files with no run', () => {
  it('are counted apart, not as runs; the real session is the only run', async () => {
    const alone = await runCli(['stats', '--json', join(project, 'real.jsonl')])
    const all = await runCli(['stats', '--json', project])
    expect(all.code, all.stderr).toBe(0)
    const a = JSON.parse(alone.stdout) as Record<string, unknown>
    const j = JSON.parse(all.stdout) as Record<string, unknown>
    expect(j['files']).toBe(4)
    expect(j['filesRead']).toBe(4)
    expect(j['filesWithoutRuns']).toBe(3)
    expect(j['runs']).toBe(a['runs'])
    expect(j['successes']).toBe(a['successes'])
    expect(j['successRate']).toBe(a['successRate'])
    expect(j['tokens']).toStrictEqual(a['tokens'])
  })
  it('the headline says how many; replay of one such file is still one unfinished run', async () => {
    const all = await runCli(['stats', project])
    expect(all.stdout).toMatch(/ in 4 files \(3 with no run\)/)
    const one = await runCli(['replay', '--json', join(project, 'summary.jsonl')])
    expect(one.code).toBe(1)
    expect(
      one.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { ending: { kind: string } }).ending.kind),
    ).toStrictEqual(['unfinished'])
  })
})
