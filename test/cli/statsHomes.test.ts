/**
 * `stats` (and `replay`) on a fixture tree laid out as a real home (test/fixtures/homes/basic: `.claude/projects`
 * with a subagents folder, `.codex/sessions/YYYY/MM/DD` and `archived_sessions`, `.gemini/tmp/<hash>/chats`):
 * the usual places found with no path, exact tokens and costs per group, days / weeks / months in several time
 * zones, `--since` / `--until`, and runs whose model has no price.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'
import { runCli } from '../support/cli.js'

const home = new URL('../fixtures/homes/basic', import.meta.url).pathname
const env = { HOME: home, TZ: 'UTC' }

interface Group {
  runs: number
  successes: number
  tokens: { inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; outputTokens: number }
  cost: { totalUsd: number | null; runsWithoutCost: number; estimated: boolean }
  models?: Record<string, Group>
}

const stats = async (...args: Array<string>): Promise<{ code: number; json: Record<string, unknown> & { groups: Record<string, Group> }; stderr: string }> => {
  const r = await runCli(['stats', '--json', ...args], '', env)
  return { code: r.code, json: r.stdout === '' ? ({} as never) : JSON.parse(r.stdout), stderr: r.stderr }
}

/** `{ key: runs }` of the groups. */
const runsOf = (groups: Record<string, Group>): Record<string, number> => Object.fromEntries(Object.entries(groups).map(([k, g]) => [k, g.runs]))

/** Cost to a millionth of a dollar (the JSON rounds there). */
const usd = (g: Group | undefined): number | null => (g?.cost.totalUsd === null || g === undefined ? null : Math.round(g.cost.totalUsd * 1e6) / 1e6)

/** `stats` with no path and `home` as HOME: exit 2, nothing on stdout, and exactly these lines on stderr. */
const expectUsageError = async (home: string, lines: ReadonlyArray<string>): Promise<void> => {
  const r = await runCli(['stats'], '', { HOME: home })
  expect(r.code).toBe(2)
  expect(r.stdout).toBe('')
  expect(r.stderr).toBe([...lines, ''].join('\n'))
}
describe('stats with no path: the usual places of a home', () => {
  it('reads Claude Code, Codex (sessions and archived) and Gemini, says where, and reports all three tools', async () => {
    const r = await stats('--by', 'format')
    expect(r.code).toBe(0)
    expect(r.stderr).toBe(
      [
        'run-outcome stats: no path given; reading the usual places:',
        '  claude-code ~/.claude/projects: 5 files',
        '  codex       ~/.codex/sessions: 2 files',
        '  codex       ~/.codex/archived_sessions: 1 file',
        '  gemini      ~/.gemini/tmp (1 chats folder): 2 files',
        '',
      ].join('\n'),
    )
    expect(r.json.files).toBe(10)
    expect(runsOf(r.json.groups)).toStrictEqual({ 'claude-code': 10, codex: 5, gemini: 2 })
    const g = r.json.groups
    expect(g['claude-code']?.tokens).toMatchObject({ inputTokens: 1_504, cacheReadTokens: 943_066, cacheWriteTokens: 191_721, outputTokens: 5_899 })
    expect(g.codex?.tokens).toMatchObject({ inputTokens: 175_842, cacheReadTokens: 1_902_720, cacheWriteTokens: 0, outputTokens: 20_134 })
    // Gemini 2.5 Pro: $1.25 input, $10 output per million tokens (output includes the thoughts)
    expect(g.gemini?.tokens).toMatchObject({ inputTokens: 21_380, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 689 })
    expect(usd(g.gemini)).toBe(Math.round(((21_380 * 1.25 + 689 * 10) / 1e6) * 1e6) / 1e6)
    expect(usd(g['claude-code'])).toBe(1.843511)
    expect(usd(g.codex)).toBeCloseTo(0.658983, 6)
    expect(r.json.cost).toMatchObject({ complete: true, runsWithoutCost: 0, runsWithEstimatedCost: 17, reportedUsd: 0 })
    expect(r.json.priceData).toStrictEqual({ source: '@pydantic/genai-prices', version: '0.1.8', file: null })
  })

  it('the human report names the three tools and the estimate source, within 80 columns', async () => {
    const r = await runCli(['stats', '--by', 'format'], '', { ...env, COLUMNS: '80' })
    expect(r.code).toBe(0)
    const lines = r.stdout.split('\n')
    expect(lines.slice(0, 3)).toStrictEqual([
      '17 runs in 10 files · success 70.6%',
      'cost ~$2.54 estimated (17 runs)',
      '~ priced per request from @pydantic/genai-prices 0.1.8',
    ])
    for (const tool of ['claude-code', 'codex', 'gemini']) expect(lines.some((l) => l.startsWith(`│ ${tool} `))).toBe(true)
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(80)
  })

  it('CLAUDE_CONFIG_DIR (comma-separated) and CODEX_HOME move the places; none found is exit 2 naming them', async () => {
    const other = mkdtempSync(join(tmpdir(), 'ro-homes-'))
    cpSync(join(home, '.claude'), join(other, 'claude-a'), { recursive: true })
    cpSync(join(home, '.codex'), join(other, 'codex'), { recursive: true })
    const empty = mkdtempSync(join(tmpdir(), 'ro-empty-home-'))
    const r = await runCli(['stats', '--json', '--by', 'format'], '', {
      HOME: empty,
      CLAUDE_CONFIG_DIR: `${join(other, 'claude-a')},${join(other, 'missing')}`,
      CODEX_HOME: join(other, 'codex'),
      TZ: 'UTC',
    })
    expect(r.code).toBe(0)
    expect(runsOf(JSON.parse(r.stdout).groups)).toStrictEqual({ 'claude-code': 10, codex: 5 })
    await expectUsageError(empty, [
      'run-outcome stats: no path given, and none of the usual places exists:',
      '  ~/.claude/projects',
      '  ~/.config/claude/projects',
      '  ~/.codex/sessions',
      '  ~/.codex/archived_sessions',
      '  ~/.gemini/tmp',
      'Give a log file or directory, e.g. run-outcome stats ./logs',
    ])
  })

  it('a usual place that is there but holds no log: exit 2 naming it, the places not there, and what to do', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'ro-bare-home-'))
    mkdirSync(join(bare, '.claude', 'projects'), { recursive: true })
    await expectUsageError(bare, [
      'run-outcome stats: no path given; reading the usual places:',
      '  claude-code ~/.claude/projects: 0 files',
      'run-outcome stats: no log files under ~/.claude/projects (looked for .jsonl, .ndjson, .json, .log, .txt and their .gz)',
      '(not there: ~/.config/claude/projects, ~/.codex/sessions, ~/.codex/archived_sessions, ~/.gemini/tmp)',
      'Give a log file or directory, e.g. run-outcome stats ./logs',
    ])
  })

  it('replay with no input and nothing piped reads the same places', async () => {
    let stdout = ''
    let stderr = ''
    const stdin = Object.assign(Readable.from([]), { isTTY: true })
    const code = await main(['replay', '--brief'], {
      stdin,
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      env: { NO_COLOR: '1', ...env },
    })
    expect(code).toBe(1)
    expect(stderr).toBe(
      'run-outcome replay: no input given; reading the usual places:\n  ~/.claude/projects\n  ~/.codex/sessions\n  ~/.codex/archived_sessions\n  ~/.gemini/tmp\n',
    )
    expect(stdout.trim().split('\n')).toHaveLength(17)
  })
})

describe('stats groups on the home tree', () => {
  it('--by project: the Claude Code and Codex working directory (one repository is one row for both), the Gemini project', async () => {
    const r = await stats('--by', 'project')
    expect(runsOf(r.json.groups)).toStrictEqual({
      '/Users/user/Dev/sourceborn/src/agent-workflows-monorepo-v2': 6,
      '/Users/user/Develop/slopus/happy-cli': 2,
      '/path/to/Demo': 2,
      '/Users/user/Dev/example/src/example-labs-monorepo-v2': 5,
      'gemini:cde65581': 2,
    })
    const g = r.json.groups
    expect(g['/path/to/Demo']?.tokens).toMatchObject({ inputTokens: 222, cacheReadTokens: 427_478, cacheWriteTokens: 60_445, outputTokens: 4_582 })
    expect(usd(g['/path/to/Demo'])).toBe(0.424308)
    expect(usd(g['/Users/user/Develop/slopus/happy-cli'])).toBe(0.935801)
    expect(usd(g['/Users/user/Dev/sourceborn/src/agent-workflows-monorepo-v2'])).toBe(0.483402)
  })

  it('--by session --breakdown: one group per log file, with its models', async () => {
    const r = await stats('--by', 'session', '--breakdown')
    const keys = Object.keys(r.json.groups)
    expect(keys).toHaveLength(10)
    // sessions come in order of last activity
    expect(keys[0]).toMatch(/task_sdk\.jsonl$/)
    expect(keys[9]).toMatch(/session-2025-10-29T10-40-359abdd0\.json$/)
    const demo = r.json.groups[join(home, '.claude/projects/-path-to-Demo/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl')] as Group & {
      project: string
      sessionId: string
    }
    expect(demo.project).toBe('/path/to/Demo')
    expect(demo.sessionId).toBe('5c0375b4-57a5-4f26-b12d-d022ee4e51b7')
    expect(Object.keys(demo.models ?? {})).toStrictEqual(['claude-sonnet-4-20250514'])
    expect(demo.models?.['claude-sonnet-4-20250514']?.tokens).toMatchObject({
      inputTokens: 129,
      cacheReadTokens: 324_259,
      cacheWriteTokens: 47_747,
      outputTokens: 3_629,
    })
    expect(usd(demo)).toBe(0.331151)
  })

  it('--by day: a run just after midnight UTC is on the previous day in Denver; Tokyo moves others', async () => {
    const utc = await stats('--by', 'day', '--timezone', 'UTC')
    expect(runsOf(utc.json.groups)).toStrictEqual({
      '2025-08-11': 2,
      '2025-09-03': 1,
      '2025-09-07': 1,
      '2025-09-25': 5,
      '2025-10-21': 2,
      '2025-10-24': 4,
      '2025-10-29': 2,
    })
    expect(utc.json.timeZone).toBe('UTC')
    const denver = await stats('--by', 'day', '--timezone', 'America/Denver')
    // rollout-2025-09-24T20-12-23 starts at 02:12 UTC on 25 September: 20:12 on the 24th in Denver (MDT, UTC−6)
    expect(runsOf(denver.json.groups)).toStrictEqual({
      '2025-08-10': 2,
      '2025-09-02': 1,
      '2025-09-07': 1,
      '2025-09-24': 2,
      '2025-09-25': 3,
      '2025-10-20': 2,
      '2025-10-24': 4,
      '2025-10-29': 2,
    })
    expect(denver.json.groups['2025-09-24']?.tokens).toMatchObject({ inputTokens: 29_257, cacheReadTokens: 120_192, cacheWriteTokens: 0, outputTokens: 4_808 })
    expect(usd(denver.json.groups['2025-09-24'])).toBe(0.099675)
    expect(denver.json.groups['2025-09-25']?.tokens).toMatchObject({
      inputTokens: 146_585,
      cacheReadTokens: 1_782_528,
      cacheWriteTokens: 0,
      outputTokens: 15_326,
    })
    expect(usd(denver.json.groups['2025-09-25'])).toBe(0.559307)
    const tokyo = await stats('--by', 'day', '--timezone', 'Asia/Tokyo')
    // 14:02 and 14:12 UTC are 23:02 and 23:12 in Tokyo (still the 25th); 21:12 UTC is 06:12 on the 26th
    expect(runsOf(tokyo.json.groups)).toStrictEqual({
      '2025-08-11': 2,
      '2025-09-03': 1,
      '2025-09-07': 1,
      '2025-09-25': 4,
      '2025-09-26': 1,
      '2025-10-21': 2,
      '2025-10-25': 4,
      '2025-10-29': 2,
    })
  })

  it("the default zone is the machine's (TZ); a bad zone is a usage error", async () => {
    const r = await runCli(['stats', '--json', '--by', 'day'], '', { HOME: home, TZ: 'America/Denver' })
    expect(JSON.parse(r.stdout).timeZone).toBe('America/Denver')
    expect(Object.keys(JSON.parse(r.stdout).groups)).toContain('2025-09-24')
    const bad = await runCli(['stats', '--timezone', 'Mars/Olympus'], '', env)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--timezone takes an IANA time zone')
  })

  it('--by week (ISO weeks, named by their Monday) and --by month, --order desc', async () => {
    const weeks = await stats('--by', 'week')
    expect(runsOf(weeks.json.groups)).toStrictEqual({ '2025-08-11': 2, '2025-09-01': 2, '2025-09-22': 5, '2025-10-20': 6, '2025-10-27': 2 })
    // Sunday 10 August in Denver belongs to the week of Monday 4 August
    const denver = await stats('--by', 'week', '--timezone', 'America/Denver')
    expect(Object.keys(denver.json.groups)[0]).toBe('2025-08-04')
    const months = await stats('--by', 'month', '--order', 'desc')
    expect(Object.entries(months.json.groups).map(([k, g]) => [k, g.runs])).toStrictEqual([
      ['2025-10', 8],
      ['2025-09', 7],
      ['2025-08', 2],
    ])
    expect(months.json.order).toBe('desc')
  })

  it('--since / --until: dates are whole days in the zone, ISO times are instants, runs outside are counted', async () => {
    const day = await stats('--since', '2025-09-25', '--until', '2025-09-25', '--timezone', 'America/Denver', '--by', 'format')
    expect(runsOf(day.json.groups)).toStrictEqual({ codex: 3 })
    expect(day.json.excluded).toStrictEqual({ outsideRange: 14, withoutTime: 0 })
    expect(day.json.tokens).toMatchObject({ inputTokens: 146_585, cacheReadTokens: 1_782_528, outputTokens: 15_326 })
    const utc = await stats('--since', '20250925', '--until', '20250925', '--by', 'format')
    expect(runsOf(utc.json.groups)).toStrictEqual({ codex: 5 })
    const instants = await stats('--since', '2025-09-25T14:00:00Z', '--until', '2025-09-25T15:00:00Z')
    expect(instants.json.runs).toBe(2)
    const october = await stats('--since', '2025-10', '--by', 'format')
    expect(runsOf(october.json.groups)).toStrictEqual({ 'claude-code': 6, gemini: 2 })
    const bad = await runCli(['stats', '--since', 'yesterday'], '', env)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--since takes a date (2025-09-24 or 20250924)')
    expect(bad.stdout).toBe('')
  })

  it('a model the price data does not know: its runs have no cost (null, never $0) and are listed by model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-unknown-model-'))
    const project = join(dir, '.claude', 'projects', '-w-acme')
    mkdirSync(project, { recursive: true })
    const text = readFileSync(join(home, '.claude/projects/-path-to-Demo/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl'), 'utf8')
    writeFileSync(join(project, 'acme.jsonl'), text.replaceAll('"model":"claude-sonnet-4-20250514"', '"model":"acme-coder-9"'))
    cpSync(join(home, '.codex'), join(dir, '.codex'), { recursive: true })
    const r = await runCli(['stats', '--json', '--by', 'model'], '', { HOME: dir, TZ: 'UTC' })
    const s = JSON.parse(r.stdout)
    expect(s.groups['acme-coder-9'].cost.totalUsd).toBeNull()
    expect(s.groups['acme-coder-9'].tokens).toMatchObject({ inputTokens: 93, cacheReadTokens: 103_219, cacheWriteTokens: 12_698, outputTokens: 953 })
    expect(s.unknownCost).toStrictEqual({ byModel: { 'acme-coder-9': 1 } })
    expect(s.cost).toMatchObject({ complete: false, runsWithoutCost: 1, runsWithEstimatedCost: 5 })
    expect(s.cost.totalUsd).toBeCloseTo(0.658983, 6)
    const human = await runCli(['stats'], '', { HOME: dir, TZ: 'UTC' })
    const lines = human.stdout.split('\n')
    expect(lines[1]).toBe('cost ~$0.6590 estimated (5 runs) · 1 run of unknown cost, not in it')
    expect(lines[2]).toBe('unknown cost: 1 used acme-coder-9 (no price)')
    // the total row says the sum is not the whole (+)
    expect(lines.find((l) => l.startsWith('│ total'))).toContain('~$0.6590+')
  })
})

describe('stats at 80 columns', () => {
  it('--by model: every line fits, and the note on runs of several models is whole', async () => {
    const r = await runCli(['stats', '--by', 'model', '--breakdown'], '', { ...env, COLUMNS: '80' })
    expect(r.code).toBe(0)
    const lines = r.stdout.split('\n')
    // the table's box characters and names are one column each here
    expect(lines.filter((l) => [...l].length > 80)).toStrictEqual([])
    expect(lines).toContain("a run of several models counts under each, with that model's tokens and cost")
  })
})
