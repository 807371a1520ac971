/**
 * What `stats` reads of a file besides its records — the first lines that name its project, a session's subagent
 * files — reads the same bytes the replay read, as the replay read them (found by a hostile-input trial):
 * - a FIFO is read once: its project comes from a copy of its first bytes (opening it again to look waited
 *   forever for a writer that had gone, and `stats` never ended);
 * - gzip is told by its bytes, never by its name (a plain log named `.gz` lost its project, and so did a gzip log
 *   named `.jsonl`; a gzip subagent file named `.jsonl` was read as text).
 */
import { execFileSync, spawn } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'

const fx = (p: string): string => new URL(`../fixtures/${p}`, import.meta.url).pathname
const dir = (): string => mkdtempSync(join(tmpdir(), 'ro-stats-head-'))

interface Report {
  readonly runs: number
  readonly groups: Record<string, { runs: number }>
  readonly tokens: { inputTokens: number; outputTokens: number }
}
const report = async (...args: Array<string>): Promise<Report> => {
  const r = await runCli(['stats', '--json', '--no-cache', '--by', 'project', ...args])
  expect(r.code).toBe(0)
  return JSON.parse(r.stdout) as Report
}

describe('stats: a file read once, gzip told by its bytes', () => {
  it.each([
    ['codex-rollout/small.jsonl', '/tmp/repo', 4],
    ['claude-code-transcript/small.jsonl', '/tmp', 6],
  ])('a FIFO holding %s: its runs, under the project its first lines name', async (fixture, project, runs) => {
    const fifo = join(dir(), 'pipe.jsonl')
    execFileSync('mkfifo', [fifo])
    const writer = spawn('sh', ['-c', `cat '${fx(fixture)}' > '${fifo}'`], { stdio: 'ignore' })
    try {
      const hung = new Promise<'hung'>((resolve) => setTimeout(resolve, 30_000, 'hung'))
      const r = await Promise.race([report(fifo), hung])
      expect(r).not.toBe('hung')
      const s = r as Report
      expect(s.runs).toBe(runs)
      expect(Object.keys(s.groups)).toStrictEqual([project])
      // the same as the file itself gives
      expect(Object.keys((await report(fx(fixture))).groups)).toStrictEqual([project])
    } finally {
      writer.kill()
    }
  })

  it('a plain log named .gz and a gzip log named .jsonl keep the projects their first lines name', async () => {
    const d = dir()
    cpSync(fx('claude-code-transcript/full-session-two.jsonl'), join(d, 'plain.jsonl.gz'))
    writeFileSync(join(d, 'gzip.jsonl'), gzipSync(readFileSync(fx('codex-rollout/small.jsonl'))))
    expect(Object.keys((await report(join(d, 'plain.jsonl.gz'))).groups)).toStrictEqual(['/Users/user/Dev/sourceborn/src/agent-workflows-monorepo-v2'])
    expect(Object.keys((await report(join(d, 'gzip.jsonl'))).groups)).toStrictEqual(['/tmp/repo'])
  })

  it('a gzip log with bytes after its data that are no gzip: every run, and a note (it was skipped as unreadable)', async () => {
    const file = join(dir(), 'tail.jsonl.gz')
    writeFileSync(file, Buffer.concat([gzipSync(readFileSync(fx('claude-code-transcript/full-session-two.jsonl'))), Buffer.from('trailing garbage')]))
    const r = await runCli(['stats', '--json', '--no-cache', file])
    expect(r.code).toBe(0)
    const s = JSON.parse(r.stdout) as { runs: number; filesSkipped: number; notes: Array<{ message: string }> }
    expect([s.runs, s.filesSkipped]).toStrictEqual([4, 0])
    expect(s.notes.map((n) => n.message)).toStrictEqual(['bytes after the gzip data are no gzip data (as gzip -d, the data was read and they were left out)'])
  })

  it("a session's subagent file in gzip without a .gz name is read as gzip", async () => {
    const d = dir()
    const home = fx('homes/basic/.claude/projects/-path-to-Demo')
    const session = '5c0375b4-57a5-4f26-b12d-d022ee4e51b7'
    cpSync(join(home, `${session}.jsonl`), join(d, `${session}.jsonl`))
    cpSync(join(home, session), join(d, session), { recursive: true })
    const plain = await report(d)
    const agent = join(d, session, 'subagents', 'agent-6340ddef.jsonl')
    writeFileSync(agent, gzipSync(readFileSync(agent)))
    const gz = await report(d)
    expect(gz.runs).toBe(plain.runs)
    expect(gz.tokens).toStrictEqual(plain.tokens)
    expect(plain.tokens.inputTokens).toBeGreaterThan(0)
  })
})
