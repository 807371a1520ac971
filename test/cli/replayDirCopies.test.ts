/**
 * `replay DIR` over copies (K15), as a new user hit it: a transcript file whose records all repeat those of a file
 * read before it printed an `unfinished` run of 0 tokens and made the exit status 1.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'

const fx = (p: string): string => new URL(`../fixtures/${p}`, import.meta.url).pathname
const session = readFileSync(fx('claude-code-transcript/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl'), 'utf8')
const COPY_NOTE = ": no run of its own: its records repeat those of a file read before it (a resumed or forked session's copy)\n"

/** The fields of a `--json` run these tests read. */
interface RunJson {
  readonly source: { readonly file: string }
  readonly ending: { readonly kind: string }
  readonly startedAt: string | null
  readonly turns: number
  readonly usage: { readonly inputTokens: number; readonly cacheReadTokens: number; readonly cacheWriteTokens: number; readonly outputTokens: number }
}

const runsOf = (stdout: string): Array<RunJson> =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as RunJson)

describe('replay DIR: a file that only repeats an earlier one (K15)', () => {
  it('prints no run for the copy, notes it, and keeps the exit status of the runs it read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-copies-'))
    writeFileSync(join(dir, 'a.jsonl'), session)
    writeFileSync(join(dir, 'b.jsonl'), session)
    const r = await runCli(['replay', '--json', dir])
    expect(r.code).toBe(0)
    const runs = runsOf(r.stdout)
    expect(runs).toHaveLength(1)
    expect(runs[0]?.source.file).toBe(join(dir, 'a.jsonl'))
    expect(runs[0]?.ending).toStrictEqual({ kind: 'answered' })
    expect(runs[0]?.usage).toMatchObject({ inputTokens: 93, cacheReadTokens: 103_219, cacheWriteTokens: 12_698, outputTokens: 953 })
    expect(runs[0]?.turns).toBe(7)
    expect(r.stderr).toBe(`run-outcome replay: ${join(dir, 'b.jsonl')}${COPY_NOTE}`)
    // the human forms the same
    const brief = await runCli(['replay', '--brief', dir])
    expect(brief.code).toBe(0)
    expect(brief.stdout.trim().split('\n')).toHaveLength(1)
    expect(brief.stdout).toContain('a.jsonl #1')
    expect(brief.stdout).not.toContain('b.jsonl')
  })

  it('a copy with a prompt of its own still prints that run; an empty file still prints its unfinished run (SPEC §1)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-copies-'))
    writeFileSync(join(dir, 'a.jsonl'), session)
    const sid = '1af7fc5e-8455-4414-9ccd-011d40f70b2a'
    const prompt = {
      type: 'user',
      uuid: 'f0000000-0000-4000-8000-000000000001',
      sessionId: sid,
      timestamp: '2025-09-01T10:00:00.000Z',
      message: { role: 'user', content: 'and now the tests' },
    }
    writeFileSync(join(dir, 'b.jsonl'), `${session.endsWith('\n') ? session : `${session}\n`}${JSON.stringify(prompt)}\n`)
    writeFileSync(join(dir, 'c.jsonl'), '')
    const r = await runCli(['replay', '--json', dir])
    const runs = runsOf(r.stdout)
    expect(runs.map((x) => [x.source.file, x.ending.kind])).toStrictEqual([
      [join(dir, 'a.jsonl'), 'answered'],
      [join(dir, 'b.jsonl'), 'unfinished'],
      [join(dir, 'c.jsonl'), 'unfinished'],
    ])
    // b's run is its own prompt, with none of a's usage
    expect(runs[1]?.startedAt).toBe('2025-09-01T10:00:00.000Z')
    expect(runs[1]?.usage).toMatchObject({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 })
    expect(r.code).toBe(1)
    expect(r.stderr).not.toContain('no run of its own')
  })

  it('a file replayed alone is an input of its own: its one run is printed, copy or not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-copies-'))
    writeFileSync(join(dir, 'b.jsonl'), session)
    const r = await runCli(['replay', '--json', join(dir, 'b.jsonl')])
    expect(r.code).toBe(0)
    expect(runsOf(r.stdout).map((x) => x.ending.kind)).toStrictEqual(['answered'])
  })
})
