/** `stats` over the real corpus copies: counts per ending, totals, and run count = replay --json lines. */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli, spawnCli } from '../support/cli.js'

const fx = (d: string) => new URL(`../fixtures/${d}`, import.meta.url).pathname
// the single-run corpus captures (EXPECTED.md), by name: other fixtures in these folders are synthetic cases
const corpus: Record<string, ReadonlyArray<string>> = {
  'claude-code-stream-json': ['claude-error.jsonl', 'claude.jsonl', 'custom_agent_output.jsonl', 'stream.jsonl', 'task_tool_output.jsonl'],
  'codex-exec-json': [
    'codex-error.jsonl',
    'codex.jsonl',
    'stream-output-1.jsonl',
    'stream-output-2.jsonl',
    'stream-output-3.jsonl',
    'stream-output-4.jsonl',
    'stream-output-5.jsonl',
    'stream-output-multi-1.jsonl',
  ],
  'gemini-stream-json': ['gemini-error.jsonl', 'gemini.jsonl'],
}
const singleRun = Object.entries(corpus).flatMap(([dir, files]) => files.map((f) => fx(`${dir}/${f}`)))

describe('run-outcome stats', () => {
  it('counts the single-run corpus logs per ending as EXPECTED.md says (11 answered, 3 failed, 1 unfinished)', async () => {
    const r = await runCli(['stats', '--json', ...singleRun])
    expect(r.code).toBe(0)
    const s = JSON.parse(r.stdout)
    expect(s.runs).toBe(15)
    expect(s.filesRead).toBe(15)
    expect(Object.fromEntries(Object.entries(s.byEnding).map(([k, v]) => [k, (v as { runs: number }).runs]))).toStrictEqual({
      answered: 11,
      failed: 3,
      unfinished: 1,
    })
    expect(s.successes).toBe(11)
    expect(s.successRate).toBe(0.7333)
    // Claude Code reports cost for its 5 runs; Codex exec logs (8 runs) name no model, so they cannot be priced;
    // of Gemini's 2 runs, gemini.jsonl is estimated from the bundled prices, gemini-error.jsonl used no tokens
    expect(s.cost.runsWithoutCost).toBe(9)
    expect(s.cost.runsWithEstimatedCost).toBe(1)
    // by reason: 6 codex exec runs with usage but no model name; 2 codex and 1 gemini run that used no tokens
    expect(s.unknownCost).toStrictEqual({ byModel: { unknown: 6, '(no usage)': 3 } })
  })

  it('the same through worker threads (spawned CLI) gives the same document', async () => {
    const inProcess = JSON.parse((await runCli(['stats', '--json', ...singleRun])).stdout)
    const spawned = spawnCli(['stats', '--json', '--jobs', '2', ...singleRun])
    expect(spawned.code).toBe(0)
    const s = JSON.parse(spawned.stdout)
    expect(s.byEnding).toStrictEqual(inProcess.byEnding)
    expect(s.runs).toBe(inProcess.runs)
  })

  it('over every corpus copy, its run count equals the number of replay --json lines', async () => {
    const all = new URL('../fixtures', import.meta.url).pathname
    const dirs = [
      'claude-code-stream-json',
      'claude-code-transcript',
      'codex-exec-json',
      'codex-rollout',
      'gemini-stream-json',
      'gemini-session',
      'ai-sdk-ui-message-stream',
      'openai-agents-runstate',
    ].map(fx)
    const replay = await runCli(['replay', '--json', ...dirs])
    const lines = replay.stdout
      .trim()
      .split('\n')
      .filter((l) => l !== '')
    const stats = JSON.parse((await runCli(['stats', '--json', ...dirs])).stdout)
    // a file whose records hold no run is one unfinished run in replay (SPEC §1) and a "file with no run" in stats
    type Line = {
      ending: { kind: string }
      source: { file: string }
      startedAt: unknown
      turns: number
      toolCalls: number
      usage: { byModel: object; inputTokens: number; outputTokens: number }
    }
    const parsed = lines.map((l) => JSON.parse(l) as Line)
    const perFile = new Map<string, number>()
    for (const r of parsed) perFile.set(r.source.file, (perFile.get(r.source.file) ?? 0) + 1)
    const placeholders = parsed.filter(
      (r) =>
        perFile.get(r.source.file) === 1 &&
        r.ending.kind === 'unfinished' &&
        r.startedAt === null &&
        r.turns === 0 &&
        r.toolCalls === 0 &&
        Object.keys(r.usage.byModel).length === 0 &&
        r.usage.inputTokens + r.usage.outputTokens === 0,
    ).length
    expect(stats.filesWithoutRuns).toBe(placeholders)
    expect(stats.runs).toBe(lines.length - placeholders)
    expect(lines.length).toBeGreaterThan(40)
    expect(all).toBeTruthy()
  })

  it('--prices estimates missing costs and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-prices-'))
    const prices = join(dir, 'prices.json')
    // USD per million tokens; codex exec logs name no model, so their usage is under "unknown"
    writeFileSync(prices, JSON.stringify({ unknown: { input: 1, cachedInput: 0.1, output: 10 } }))
    const r = await runCli(['stats', '--json', '--prices', prices, join(fx('codex-exec-json'), 'stream-output-2.jsonl')])
    const s = JSON.parse(r.stdout)
    // 1048 × $1 + 4992 × $0.10 + 129 × $10, per million tokens
    expect(s.cost).toStrictEqual({
      totalUsd: 0.002837,
      reportedUsd: 0,
      estimatedUsd: 0.002837,
      complete: true,
      runsWithoutCost: 0,
      runsWithEstimatedCost: 1,
      estimated: true,
    })
    expect(s.priceData).toStrictEqual({ source: '@pydantic/genai-prices', version: '0.1.8', file: prices })
  })

  it('--by format groups the runs', async () => {
    const s = JSON.parse((await runCli(['stats', '--json', '--by', 'format', ...singleRun])).stdout)
    expect(Object.fromEntries(Object.entries(s.groups).map(([k, v]) => [k, (v as { runs: number }).runs]))).toStrictEqual({
      'claude-code': 5,
      codex: 8,
      gemini: 2,
    })
  })

  it('a table without --json; exit 2 for a missing path', async () => {
    const r = await runCli(['stats', fx('codex-exec-json')])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('8 runs in 8 files')
    expect(r.stdout).toContain('answered')
    const bad = await runCli(['stats', '/nonexistent/path'])
    expect(bad.code).toBe(2)
  })

  // the count came from the list of files named, which stops at 100: 130 such files were reported as 100
  it('130 files stopped at a protocol error: all counted, 100 named in --json, 5 on stderr and the rest counted', async () => {
    const d = mkdtempSync(join(tmpdir(), 'run-outcome-stats-'))
    for (let i = 0; i < 130; i++)
      writeFileSync(join(d, `bad-${String(i).padStart(3, '0')}.jsonl`), `${JSON.stringify({ type: 'turn/end', sessionId: 's', data: {} })}\n`)
    const env = { RUN_OUTCOME_CACHE: '0' }
    const json = await runCli(['stats', '--json', d], '', env)
    const s = JSON.parse(json.stdout) as { filesRead: number; filesWithProtocolErrors: number; protocolErrors: Array<{ file: string }> }
    expect([json.code, s.filesRead, s.filesWithProtocolErrors, s.protocolErrors.length]).toStrictEqual([0, 130, 130, 100])
    const table = await runCli(['stats', d], '', env)
    expect(table.stdout.split('\n')[0]).toContain('(130 stopped at a protocol error)')
    const lines = table.stderr.trim().split('\n')
    expect(lines.filter((l) => l.startsWith('run-outcome stats: protocol error: '))).toHaveLength(5)
    expect(lines.at(-1)).toBe('run-outcome stats: … and 125 more stopped at a protocol error (--json lists up to 100)')
  })

  it('the table has a cache-write column whose total matches --json; a protocol error is counted in the header', async () => {
    const d = mkdtempSync(join(tmpdir(), 'run-outcome-stats-'))
    writeFileSync(join(d, 'bad.jsonl'), `${JSON.stringify({ type: 'turn/end', sessionId: 's', data: {} })}\n`)
    const claude = fx('claude-code-stream-json/claude.jsonl')
    const r = await runCli(['stats', claude, d])
    const header = r.stdout.split('\n')[0]
    expect(header).toContain('1 run in 2 files')
    expect(header).toContain('(1 stopped at a protocol error)')
    const total = r.stdout.split('\n').find((l) => l.includes('total'))
    const json = JSON.parse((await runCli(['stats', '--json', claude])).stdout)
    expect(json.tokens.cacheWriteTokens).toBe(5252)
    // columns: total, runs, success, input, cache read, cache write, output, cost, no cost
    expect(
      total
        ?.split('│')
        .map((c) => c.trim())
        .filter((c) => c !== '')[5],
    ).toBe('5,252')
  })

  it('nothing to read is exit 2, and unknown cost is null, not $0, when there is no run', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'run-outcome-stats-empty-'))
    const r = await runCli(['stats', '--json', empty])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`run-outcome stats: no log files under ${empty}`)
    // an input error prints only the error: no document, no empty table
    expect(r.stdout).toBe('')
    // no run (all left out by --since): the cost is unknown (null), never $0
    const none = JSON.parse((await runCli(['stats', '--json', '--since', '2099-01-01', fx('codex-exec-json')])).stdout)
    expect(none.runs).toBe(0)
    expect(none.cost.totalUsd).toBeNull()
    writeFileSync(join(empty, 'notes.txt'), 'prose\n')
    const p = await runCli(['stats', empty])
    expect(p.code).toBe(2)
    expect(p.stderr).toContain('run-outcome stats: none of the 1 file(s) could be read as a log')
  })
})
