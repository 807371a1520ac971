/**
 * A subagent transcript is read with its parent session, once, however the paths are given (found by the
 * hostile trial): `stats proj/*` names both `s.jsonl` and the folder `s/`, whose `subagents/` files were read as
 * runs of their own and again as the parent's children (34 % more cost on the fixture home); naming the
 * `subagents` folder before the projects folder made the parent's cost unknown.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot, runCli } from '../support/cli.js'

const projects = join(repoRoot, 'test/fixtures/homes/basic/.claude/projects')
const demo = join(projects, '-path-to-Demo')
const session = join(demo, '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl')
const subagents = join(demo, '5c0375b4-57a5-4f26-b12d-d022ee4e51b7', 'subagents')
/** What the shell's `demo/*` expands to: both session files, and the session folder. */
const glob = readdirSync(demo)
  .sort()
  .map((n) => join(demo, n))

interface Stats {
  runs: number
  files: number
  cost: { totalUsd: number | null }
  tokens: { total: number }
}
const stats = async (paths: ReadonlyArray<string>): Promise<Stats> => {
  const r = await runCli(['stats', '--json', '--no-cache', ...paths], '', { HOME: '/nonexistent', TZ: 'UTC' })
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as Stats
}
interface Run {
  sessionId: string | null
  cost: { totalUsd: number | null }
  children: ReadonlyArray<unknown>
}
const replay = async (paths: ReadonlyArray<string>): Promise<{ code: number; runs: Array<Run>; stderr: string }> => {
  const r = await runCli(['replay', '--json', ...paths], '', { HOME: '/nonexistent' })
  expect(r.code, r.stderr).toBeLessThan(2)
  return {
    code: r.code,
    runs: r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Run),
    stderr: r.stderr,
  }
}
const summary = (runs: ReadonlyArray<Run>) => runs.map((r) => [r.sessionId, r.cost.totalUsd, r.children.length])

describe('a subagent transcript named with its session is read once, as its child', () => {
  it('stats over the shell glob of a project folder equals stats of the folder', async () => {
    expect(glob).toHaveLength(3)
    const folder = await stats([demo])
    expect([folder.runs, folder.files]).toStrictEqual([2, 2])
    expect(folder.cost.totalUsd).toBeCloseTo(0.4243, 4)
    const globbed = await stats(glob)
    expect([globbed.runs, globbed.files, globbed.cost.totalUsd, globbed.tokens.total]).toStrictEqual([
      folder.runs,
      folder.files,
      folder.cost.totalUsd,
      folder.tokens.total,
    ])
  })

  it('stats and replay with the subagents folder named too, before or after the projects folder', async () => {
    const alone = await stats([projects])
    for (const paths of [
      [projects, subagents],
      [subagents, projects],
    ]) {
      const s = await stats(paths)
      expect([s.runs, s.files, s.cost.totalUsd]).toStrictEqual([alone.runs, alone.files, alone.cost.totalUsd])
      const both = await replay(paths)
      const one = await replay([projects])
      expect([both.code, summary(both.runs)]).toStrictEqual([one.code, summary(one.runs)])
      expect(one.runs).toHaveLength(10)
    }
  })

  it('replay over the glob: two runs, the subagent files among the session’s children', async () => {
    const { runs } = await replay(glob)
    expect(summary(runs)).toStrictEqual(summary((await replay([demo])).runs))
    expect(runs.map((r) => r.children.length)).toStrictEqual([0, 5])
    expect(runs[1]?.cost.totalUsd).toBeCloseTo(0.3312, 4)
  })

  it('a subagent file named beside its session: a note, and read once', async () => {
    const agent = join(subagents, 'agent-6340ddef.jsonl')
    const { runs, stderr } = await replay([session, agent])
    expect(summary(runs)).toStrictEqual(summary((await replay([session])).runs))
    expect(stderr).toContain(`skipped ${agent}: read with its session, which is named too (a subagent transcript)`)
    const s = await stats([session, agent])
    expect([s.runs, s.cost.totalUsd]).toStrictEqual([(await stats([session])).runs, (await stats([session])).cost.totalUsd])
    // named alone, it is a run of its own (its session is not given)
    expect((await replay([agent])).runs).toHaveLength(1)
  })
})
