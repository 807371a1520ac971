/**
 * A Claude Code session replayed by name says which entries of its subagents folder it could not read (a FIFO, a
 * link to a device): the hostile-input trial found them left out silently, where a replay of the folder names them.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { skippedSubagentEntriesSync, subagentFilesOfSync } from '../../src/node/claudeSubagentFiles.js'
import { runCli } from '../support/cli.js'

const fx = (p: string): string => new URL(`../fixtures/${p}`, import.meta.url).pathname

describe('replay SESSION.jsonl with unreadable subagent entries', () => {
  it('prints the run and names each entry left out', async () => {
    const d = mkdtempSync(join(tmpdir(), 'ro-subskips-'))
    const session = join(d, 'sess.jsonl')
    const sub = join(d, 'sess', 'subagents')
    mkdirSync(sub, { recursive: true })
    copyFileSync(fx('claude-code-transcript/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl'), session)
    execFileSync('mkfifo', [join(sub, 'agent-f.jsonl')])
    symlinkSync('/dev/zero', join(sub, 'agent-z.jsonl'))
    mkdirSync(join(sub, 'agent-d.jsonl'))
    expect(subagentFilesOfSync(session)).toStrictEqual([])
    expect(skippedSubagentEntriesSync(session)).toStrictEqual([join(sub, 'agent-d.jsonl'), join(sub, 'agent-f.jsonl'), join(sub, 'agent-z.jsonl')])
    const r = await runCli(['replay', '--json', session])
    expect(r.code).toBe(0)
    expect((JSON.parse(r.stdout) as { ending: unknown }).ending).toStrictEqual({ kind: 'answered' })
    expect(r.stderr).toBe(
      ['agent-d', 'agent-f', 'agent-z']
        .map((n) => `run-outcome replay: ${session}: skipped its subagent entry ${join(sub, `${n}.jsonl`)}: not a regular file\n`)
        .join(''),
    )
  })

  it('a session without a subagents folder, or with readable files only, says nothing', async () => {
    const d = mkdtempSync(join(tmpdir(), 'ro-subskips-'))
    const session = join(d, 'sess.jsonl')
    copyFileSync(fx('claude-code-transcript/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl'), session)
    expect(skippedSubagentEntriesSync(session)).toStrictEqual([])
    expect((await runCli(['replay', session])).stderr).toBe('')
  })
})
