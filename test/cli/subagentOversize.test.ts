/**
 * A line over the line cap in a Claude Code subagent file is skipped, as in any log, and said (found by the
 * hostile-input trial: `replay DIR`, `replay SESSION.jsonl` and `stats` said nothing, though the subagent file
 * replayed alone notes it). The line here is over the value cap (1,000,000 JSON values in 2 MB).
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { replayFile } from '../../src/node/replay.js'
import { runCli } from '../support/cli.js'

const demo = new URL('../fixtures/homes/basic/.claude/projects/-path-to-Demo', import.meta.url).pathname
const SESSION = '5c0375b4-57a5-4f26-b12d-d022ee4e51b7'
const NOTE =
  'the subagent file agent-83e2917c.jsonl: line 3: skipped a line of 2,000,009 bytes holding over 1,000,000 JSON values (over the line cap of 64 MiB or 1,000,000 JSON values)'

/** The Demo project with a line of 1,000,001 values inserted as line 3 of one subagent file. */
const project = (): string => {
  const dir = join(mkdtempSync(join(tmpdir(), 'ro-sub-cap-')), '-path-to-Demo')
  cpSync(demo, dir, { recursive: true })
  const sub = join(dir, SESSION, 'subagents', 'agent-83e2917c.jsonl')
  const lines = readFileSync(sub, 'utf8').split('\n')
  lines.splice(2, 0, `{"a":[${Array(1_000_001).fill('0').join(',')}]}`)
  writeFileSync(sub, lines.join('\n'))
  return dir
}

describe('an over-cap line in a subagent file', () => {
  it('replay of the session and of its folder print the note on stderr, naming the subagent file and line', async () => {
    const dir = project()
    for (const input of [join(dir, `${SESSION}.jsonl`), dir]) {
      const r = await runCli(['replay', '--brief', input], '', {})
      expect(r.stderr.split('\n')).toContain(`run-outcome replay: ${join(dir, `${SESSION}.jsonl`)}: ${NOTE}`)
    }
  })

  it('stats counts the file among those with notes and lists the note', async () => {
    const dir = project()
    const r = await runCli(['stats', '--json', dir], '', { TZ: 'UTC' })
    const json = JSON.parse(r.stdout) as { filesWithNotes: number; notes: Array<{ file: string; message: string }> }
    expect(json.filesWithNotes).toBe(1)
    expect(json.notes).toStrictEqual([{ file: join(dir, `${SESSION}.jsonl`), message: NOTE }])
  })

  it('replayFile gives it as a diagnostic of the run the subagent belongs to', async () => {
    const runs = await replayFile(join(project(), `${SESSION}.jsonl`))
    expect(runs.flatMap((r) => r.diagnostics.filter((d) => d.message === NOTE))).toHaveLength(1)
  })
})
