/**
 * One user's Claude Code history under both config folders (`~/.claude/projects` and `~/.config/claude/projects`,
 * e.g. copied while moving from one to the other) counts once (K15; found by the fresh-user trial: `stats` said 20
 * runs and twice the cost, `replay` printed 20 runs). A session copied with its `subagents/` folder stays a copy:
 * its subagents are not attached to the copy's placeholder (they made it an unfinished run of 157,362 tokens).
 */
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'
import { unitsOf } from '../../src/cli/stats/units.js'
import { runCli } from '../support/cli.js'

const basic = new URL('../fixtures/homes/basic', import.meta.url).pathname

/** A home holding the fixture home's Claude Code projects under both config folders. */
const twoRoots = (): string => {
  const home = mkdtempSync(join(tmpdir(), 'ro-two-roots-'))
  cpSync(join(basic, '.claude'), join(home, '.claude'), { recursive: true })
  mkdirSync(join(home, '.config', 'claude'), { recursive: true })
  cpSync(join(basic, '.claude', 'projects'), join(home, '.config', 'claude', 'projects'), { recursive: true })
  return home
}

const statsJson = async (home: string): Promise<Record<string, unknown>> => {
  const r = await runCli(['stats', '--json'], '', { HOME: home, TZ: 'UTC' })
  expect(r.code).toBe(0)
  return JSON.parse(r.stdout) as Record<string, unknown>
}

describe('Claude Code sessions under both config folders', () => {
  it('stats counts each session once: the runs, tokens and cost of one copy, the other copies as files without runs', async () => {
    const one = mkdtempSync(join(tmpdir(), 'ro-one-root-'))
    cpSync(join(basic, '.claude'), join(one, '.claude'), { recursive: true })
    const single = await statsJson(one)
    const both = await statsJson(twoRoots())
    expect(single['runs']).toBe(10)
    expect(both['runs']).toBe(10)
    expect(both['files']).toBe(10)
    expect(both['filesWithoutRuns']).toBe(5)
    expect(both['tokens']).toStrictEqual({ inputTokens: 1_504, cacheReadTokens: 943_066, cacheWriteTokens: 191_721, outputTokens: 5_899, reasoningTokens: 0 })
    expect(both['tokens']).toStrictEqual(single['tokens'])
    expect((both['cost'] as { totalUsd: number }).totalUsd).toBeCloseTo(1.843511, 6)
  })

  it('replay with no input prints each run once and names each copy, the one with a subagents folder too', async () => {
    const home = twoRoots()
    let stdout = ''
    let stderr = ''
    const code = await main(['replay', '--json'], {
      stdin: Object.assign(Readable.from([]), { isTTY: true }),
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      env: { HOME: home, NO_COLOR: '1', TZ: 'UTC' },
    })
    expect(code).toBe(1)
    const runs = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { usage: { inputTokens: number; outputTokens: number } })
    expect(runs).toHaveLength(10)
    expect(runs.reduce((n, r) => n + r.usage.inputTokens, 0)).toBe(1_504)
    expect(runs.reduce((n, r) => n + r.usage.outputTokens, 0)).toBe(5_899)
    const copies = stderr
      .split('\n')
      .filter((l) => l.includes('no run of its own'))
      .map((l) => l.replace(/^run-outcome replay: .*\/\.config\/claude\/projects\//, '').replace(/: no run of its own.*/, ''))
    expect(copies.sort()).toStrictEqual([
      '-Users-user-Dev-sourceborn-src-agent-workflows-monorepo-v2/full-session-three.jsonl',
      '-Users-user-Dev-sourceborn-src-agent-workflows-monorepo-v2/full-session-two.jsonl',
      '-Users-user-Develop-slopus-happy-cli/task_sdk.jsonl',
      '-path-to-Demo/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl',
      '-path-to-Demo/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl',
    ])
  })

  it('replay DIR: a session kept with a subagents folder in one place and inline (older layout) in another counts once, either way round', async () => {
    const inline = new URL('../fixtures/claude-code-transcript/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl', import.meta.url).pathname
    const demo = join(basic, '.claude', 'projects', '-path-to-Demo')
    const name = '5c0375b4-57a5-4f26-b12d-d022ee4e51b7'
    for (const [first, second] of [
      ['split', 'inline'],
      ['inline', 'split'],
    ]) {
      const root = mkdtempSync(join(tmpdir(), 'ro-layouts-'))
      const dirs: Record<string, string> = { split: join(root, first === 'split' ? 'a' : 'b'), inline: join(root, first === 'inline' ? 'a' : 'b') }
      mkdirSync(dirs['inline'] as string)
      cpSync(inline, join(dirs['inline'] as string, `${name}.jsonl`))
      mkdirSync(dirs['split'] as string)
      cpSync(join(demo, `${name}.jsonl`), join(dirs['split'] as string, `${name}.jsonl`))
      cpSync(join(demo, name), join(dirs['split'] as string, name), { recursive: true })
      const r = await runCli(['replay', '--json', root], '', { TZ: 'UTC' })
      const runs = r.stdout.trim().split('\n')
      expect(runs, `${first} first`).toHaveLength(1)
      expect(r.stderr).toContain(`${join(dirs[second as string] as string, `${name}.jsonl`)}: no run of its own`)
    }
  })

  it('unitsOf reads a project folder of one name under every projects root as one unit, in the order listed', () => {
    const files = [
      '/h/.claude/projects/A/1.jsonl',
      '/h/.claude/projects/B/2.jsonl',
      '/h/.config/claude/projects/A/1.jsonl',
      '/h/logs/A/3.jsonl',
      '/x/A/4.jsonl',
    ]
    expect(unitsOf(files)).toStrictEqual([
      ['/h/.claude/projects/A/1.jsonl', '/h/.config/claude/projects/A/1.jsonl'],
      ['/h/.claude/projects/B/2.jsonl'],
      ['/h/logs/A/3.jsonl'],
      ['/x/A/4.jsonl'],
    ])
  })
})
