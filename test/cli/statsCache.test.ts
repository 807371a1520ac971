/**
 * The stats result cache (src/cli/stats/cache.ts), through the built CLI: a report from the cache is the report
 * read from the files, byte for byte; an entry is used only while every file of its unit (and what is read beside
 * it: a session's subagent files, a Gemini `.project_root`) is as it was; a damaged or unwritable cache changes
 * nothing; estimates priced at the reading's clock are never kept; `--no-cache` neither reads nor writes.
 *
 * That the cache is used is shown by doctoring an entry (a figure no file holds comes back) — and that it is left
 * is shown by the true figure coming back once the file changes.
 */
import { spawnSync } from 'node:child_process'
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { binPath, repoRoot } from '../support/cli.js'

const fixtureHome = new URL('../fixtures/homes/basic', import.meta.url).pathname

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** The built CLI with the cache on, in `cacheDir`, for the home `home` (the test config turns it off by default). */
const stats = (home: string, cacheDir: string, args: ReadonlyArray<string>, extraEnv: Record<string, string> = {}): Run => {
  const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', HOME: home, TZ: 'UTC', NO_COLOR: '1', RUN_OUTCOME_CACHE_DIR: cacheDir, ...extraEnv }
  const r = spawnSync(process.execPath, [binPath, 'stats', '--json', ...args], { cwd: repoRoot, encoding: 'utf8', env, timeout: 60_000 })
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }
}

const freshHome = (): { home: string; cache: string } => {
  const dir = mkdtempSync(join(tmpdir(), 'ro-cache-'))
  const home = join(dir, 'home')
  cpSync(fixtureHome, home, { recursive: true })
  return { home, cache: join(dir, 'cache') }
}

const cacheFiles = (cache: string): Array<string> => (existsSync(cache) ? readdirSync(cache).filter((n) => n.endsWith('.json')) : [])

interface CacheFile {
  entries: Record<string, { key: string; used: number; outcomes: Array<{ file: string; ok: boolean; runs?: Array<Record<string, unknown>> }> }>
}
const readCache = (cache: string): CacheFile => JSON.parse(readFileSync(join(cache, cacheFiles(cache)[0] as string), 'utf8')) as CacheFile

/** Sets the output tokens of every kept run of `file` to `n`, in place. */
const doctor = (cache: string, file: string, n: number): void => {
  const name = cacheFiles(cache)[0] as string
  const c = readCache(cache)
  let hit = 0
  for (const e of Object.values(c.entries))
    for (const o of e.outcomes)
      if (o.file === file)
        for (const r of o.runs ?? []) {
          r['outputTokens'] = n
          hit++
        }
  expect(hit).toBeGreaterThan(0)
  writeFileSync(join(cache, name), JSON.stringify(c))
}

const outputTokens = (r: Run): number => (JSON.parse(r.stdout) as { tokens: { outputTokens: number } }).tokens.outputTokens

describe('stats cache', () => {
  it('a report from the cache is the report read from the files, for every view, jobs 1 and 2', () => {
    const { home, cache } = freshHome()
    for (const view of [[], ['--by', 'model', '--breakdown'], ['--by', 'project'], ['--by', 'day', '--jobs', '1'], ['--by', 'session', '--jobs', '2']]) {
      const truth = stats(home, cache, [...view, '--no-cache'])
      expect(truth.code).toBe(0)
      const cold = stats(home, cache, view)
      const warm = stats(home, cache, view)
      expect(cold.stdout).toBe(truth.stdout)
      expect(warm.stdout).toBe(truth.stdout)
      expect(warm.stderr).toBe(truth.stderr)
      expect(warm.code).toBe(0)
    }
    // one file for the job (the views are aggregations of the same entries): 10 files, 9 units (a Claude Code
    // project folder of two sessions is one unit)
    expect(cacheFiles(cache)).toHaveLength(1)
    const c = readCache(cache)
    expect(Object.values(c.entries).reduce((a, e) => a + e.outcomes.length, 0)).toBe(10)
  })

  it('is used while the files are unchanged, and left for a file that changes (appended, touched, rewritten)', () => {
    const { home, cache } = freshHome()
    const session = join(home, '.claude/projects/-Users-user-Develop-slopus-happy-cli/task_sdk.jsonl')
    const truth = outputTokens(stats(home, cache, []))
    doctor(cache, session, 1_000_000_000)
    const used = outputTokens(stats(home, cache, []))
    expect(used).toBeGreaterThan(truth + 900_000_000)
    // touched: same bytes, a new modification time
    const st = statSync(session)
    utimesSync(session, st.atime, new Date(st.mtimeMs + 5_000))
    expect(outputTokens(stats(home, cache, []))).toBe(truth)
    // rewritten with the same bytes (a new change time): read again
    doctor(cache, session, 1_000_000_000)
    writeFileSync(session, readFileSync(session))
    expect(outputTokens(stats(home, cache, []))).toBe(truth)
    // appended: read again, and the new record counts
    const last = readFileSync(session, 'utf8').trimEnd().split('\n').at(-1) as string
    appendFileSync(session, `${last}\n`)
    const after = stats(home, cache, [])
    expect(after.stdout).toBe(stats(home, cache, ['--no-cache']).stdout)
  })

  it("a session's subagent files and a Gemini .project_root are part of its entry", () => {
    const { home, cache } = freshHome()
    const project = join(home, '.claude/projects/-path-to-Demo')
    const session = join(project, '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl')
    stats(home, cache, [])
    doctor(cache, session, 1_000_000_000)
    expect(outputTokens(stats(home, cache, []))).toBeGreaterThan(1_000_000_000)
    // a subagent file changes: the session's unit is read again
    const sub = join(project, '5c0375b4-57a5-4f26-b12d-d022ee4e51b7/subagents/agent-6340ddef.jsonl')
    const st = statSync(sub)
    utimesSync(sub, st.atime, new Date(st.mtimeMs + 5_000))
    expect(stats(home, cache, []).stdout).toBe(stats(home, cache, ['--no-cache']).stdout)
    // a session gains a subagent folder: read again
    const other = join(project, '1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl')
    doctor(cache, other, 1_000_000_000)
    mkdirSync(join(project, '1af7fc5e-8455-4414-9ccd-011d40f70b2a/subagents'), { recursive: true })
    expect(stats(home, cache, []).stdout).toBe(stats(home, cache, ['--no-cache']).stdout)
    // a Gemini project names its root: the project of its runs changes at once
    const byProject = (r: Run): Array<string> => Object.keys((JSON.parse(r.stdout) as { groups: Record<string, unknown> }).groups).sort()
    const before = byProject(stats(home, cache, ['--by', 'project']))
    const gem = join(home, '.gemini/tmp', readdirSync(join(home, '.gemini/tmp'))[0] as string)
    writeFileSync(join(gem, '.project_root'), '/work/gemini-app\n')
    const now = byProject(stats(home, cache, ['--by', 'project']))
    expect(now).toContain('/work/gemini-app')
    expect(now).not.toStrictEqual(before)
    expect(now).toStrictEqual(byProject(stats(home, cache, ['--by', 'project', '--no-cache'])))
  })

  it('a damaged cache file, an unwritable cache folder and --no-cache change nothing and say nothing', () => {
    const { home, cache } = freshHome()
    const truth = stats(home, cache, ['--no-cache'])
    expect(existsSync(cache)).toBe(false)
    stats(home, cache, [])
    const name = cacheFiles(cache)[0] as string
    for (const junk of ['', '{', 'null', '[]', '{"layout":1,"job":"x","entries":{}}', JSON.stringify({ ...readCache(cache), layout: 99 })]) {
      writeFileSync(join(cache, name), junk)
      const r = stats(home, cache, [])
      expect([r.code, r.stdout, r.stderr]).toStrictEqual([truth.code, truth.stdout, truth.stderr])
    }
    // entries of the wrong shape for their files are not used
    const c = readCache(cache)
    for (const e of Object.values(c.entries)) for (const o of e.outcomes) (o as { file: string }).file = 'elsewhere.jsonl'
    writeFileSync(join(cache, name), JSON.stringify(c))
    expect(stats(home, cache, []).stdout).toBe(truth.stdout)
    // a file where the folder should be
    const blocked = join(mkdtempSync(join(tmpdir(), 'ro-cache-file-')), 'cache')
    writeFileSync(blocked, 'not a folder')
    const r = stats(home, blocked, [])
    expect([r.code, r.stdout, r.stderr]).toStrictEqual([truth.code, truth.stdout, truth.stderr])
    // RUN_OUTCOME_CACHE=0 (or false, no, off) is --no-cache
    for (const value of ['0', 'false', 'NO', ' off ']) {
      const off = join(mkdtempSync(join(tmpdir(), 'ro-cache-off-')), 'cache')
      expect(stats(home, off, [], { RUN_OUTCOME_CACHE: value }).stdout).toBe(truth.stdout)
      expect(existsSync(off)).toBe(false)
    }
  })

  it("a report that writes the cache deletes cache files unused for 30 days and a killed report's temporary files", () => {
    const { home, cache } = freshHome()
    mkdirSync(cache, { recursive: true })
    const old = new Date(Date.now() - 31 * 86_400_000)
    const lastWeek = new Date(Date.now() - 7 * 86_400_000)
    const hourAgo = new Date(Date.now() - 2 * 3_600_000)
    const write = (name: string, when: Date): string => {
      const p = join(cache, name)
      writeFileSync(p, '{}')
      utimesSync(p, when, when)
      return p
    }
    const yesterday = write('stats-yesterdayJobAAAAAAAAAAAA.json', old)
    const today = write('stats-otherJobTodayBBBBBBBBBBB.json', lastWeek)
    const deadTmp = write('stats-yesterdayJobAAAAAAAAAAAA.json.123.456.tmp', hourAgo)
    const liveTmp = write('stats-otherJobTodayBBBBBBBBBBB.json.789.12.tmp', new Date())
    const mine = write('notes.txt', old)
    const lookalike = write('stats-2025-q3.json', old)
    expect(stats(home, cache, []).code).toBe(0)
    expect([yesterday, today, deadTmp, liveTmp, mine, lookalike].map((p) => existsSync(p))).toStrictEqual([false, true, false, true, true, true])
    expect(cacheFiles(cache).filter((n) => n !== 'stats-otherJobTodayBBBBBBBBBBB.json' && n !== 'stats-2025-q3.json')).toHaveLength(1)
  })

  it('estimates priced at the clock of the reading (requests without a time) are never kept', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-cache-undated-'))
    const cache = join(dir, 'cache')
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    // codex exec --json names no time; a --prices table prices its model, so the run's cost is an estimate
    const lines = [
      { type: 'thread.started', thread_id: 't1' },
      { type: 'turn.started' },
      { type: 'item.completed', item: { id: 'i', type: 'agent_message', text: 'done' } },
      { type: 'turn.completed', usage: { input_tokens: 1_000, cached_input_tokens: 0, output_tokens: 100 } },
    ]
    writeFileSync(join(logs, 'exec.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`)
    // a Claude Code transcript, whose records are dated: kept
    cpSync(join(fixtureHome, '.claude/projects/-Users-user-Develop-slopus-happy-cli/task_sdk.jsonl'), join(logs, 'dated', 'task_sdk.jsonl'))
    const r = stats(dir, cache, [logs])
    expect(r.code).toBe(0)
    const kept = Object.values(readCache(cache).entries).flatMap((e) => e.outcomes.map((o) => o.file))
    expect(kept).toStrictEqual([join(logs, 'dated', 'task_sdk.jsonl')])
    expect(stats(dir, cache, [logs]).stdout).toBe(r.stdout)
  })
})
