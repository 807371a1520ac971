/**
 * The CLI defects a new user hit (issue 13, item 7) and the report's honesty rules, each held to its right value:
 * colour flags, parser messages in our words, a success word that is not believed, estimate markers everywhere a
 * cost is printed, a missing path that prints only the error, `stats -`, one rule for skipped files, terminal-safe
 * names; and `replay --brief` / `--only`.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'

const fx = (p: string): string => new URL(`../fixtures/${p}`, import.meta.url).pathname
const home = fx('homes/basic')
const rollout = join(home, '.codex/sessions/2025/09/24/rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl')
const ESC = '\u001b['

describe('--color / --no-color beside NO_COLOR and FORCE_COLOR', () => {
  it('--color forces colours even with NO_COLOR; --no-color turns them off even with FORCE_COLOR', async () => {
    const file = fx('claude-code-stream-json/claude.jsonl')
    expect((await runCli(['replay', file])).stdout).not.toContain(ESC)
    expect((await runCli(['replay', '--color', file])).stdout).toContain(ESC)
    expect((await runCli(['replay', '--no-color', file], '', { NO_COLOR: '', FORCE_COLOR: '1' })).stdout).not.toContain(ESC)
    expect((await runCli(['replay', file], '', { NO_COLOR: '', FORCE_COLOR: '1' })).stdout).toContain(ESC)
    expect((await runCli(['stats', '--color', file])).stdout).toContain(ESC)
    expect((await runCli(['events', '--no-color', file])).code).toBe(0)
  })
})

describe('argument errors in our words', () => {
  it.each([
    [['replay', '--format'], "run-outcome replay: --format needs a value (e.g. --format codex)\nTry 'run-outcome replay --help'.\n"],
    [['stats', '--by'], "run-outcome stats: --by needs a value (e.g. --by day)\nTry 'run-outcome stats --help'.\n"],
    [['stats', '--json=yes'], "run-outcome stats: --json takes no value (write --json alone, or --no-json to turn it off)\nTry 'run-outcome stats --help'.\n"],
    [['stats', '--no-cache=1'], "run-outcome stats: --no-cache takes no value (write --no-cache alone)\nTry 'run-outcome stats --help'.\n"],
    [['replay', '--no-estimate=yes'], "run-outcome replay: --no-estimate takes no value (write --no-estimate alone)\nTry 'run-outcome replay --help'.\n"],
    [['stats', '--no-estimat'], "run-outcome stats: unknown option --no-estimat (did you mean --no-estimate?)\nTry 'run-outcome stats --help'.\n"],
    [
      ['stats', '--timezone', '--json'],
      'run-outcome stats: --timezone needs a value, and the next word starts with "-"; to give such a value write --timezone=VALUE\nTry \'run-outcome stats --help\'.\n',
    ],
    [
      ['stats', '--by', 'hour'],
      'run-outcome stats: --by takes one of ending, format, model, day, week, month, session, project, not "hour"\nTry \'run-outcome stats --help\'.\n',
    ],
    // a user trial: consume printed Node's three-line message on one line, with literal \n between its lines
    [
      ['consume', '--server', 'nats://127.0.0.1:4222', '--lease', '-1'],
      'run-outcome consume: --lease needs a value, and the next word starts with "-"; to give such a value write --lease=VALUE\nTry \'run-outcome consume --help\'.\n',
    ],
    [['consume', '--leas', '3'], "run-outcome consume: unknown option --leas (did you mean --lease?)\nTry 'run-outcome consume --help'.\n"],
    [['consume', '--server'], "run-outcome consume: --server needs a value (e.g. --server nats://127.0.0.1:4222)\nTry 'run-outcome consume --help'.\n"],
    [['consume', 'events.jsonl'], "run-outcome consume: this command takes no file or folder arguments\nTry 'run-outcome consume --help'.\n"],
    [['consume', '--bogus\u001b[2J'], "run-outcome consume: unknown option --bogus\\x1b[2J\nTry 'run-outcome consume --help'.\n"],
    // the same negative-looking value for every command's option
    ...(
      [
        ['replay', '--format'],
        ['watch', '--format'],
        ['events', '--format'],
        ['stats', '--jobs'],
      ] as const
    ).map(([command, option]): [Array<string>, string] => [
      [command, option, '-1'],
      `run-outcome ${command}: ${option} needs a value, and the next word starts with "-"; to give such a value write ${option}=VALUE\nTry 'run-outcome ${command} --help'.\n`,
    ]),
  ])('%j', async (argv, stderr) => {
    const r = await runCli(argv)
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(stderr)
    expect(r.stderr).not.toContain("Option '")
    expect(r.stderr).not.toContain('\\n')
  })
})

describe('the result block', () => {
  it('a success word the run contradicts says what the log claimed and why it is not believed', async () => {
    const r = await runCli(['replay', fx('claude-code-stream-json/claude-error.jsonl')])
    expect(r.stdout).toContain('  recorded as  “success”, not believed: the log also records an error (provider_error)\n')
    // an answered run keeps the plain word
    expect((await runCli(['replay', fx('claude-code-stream-json/claude.jsonl')])).stdout).toContain('  recorded as  success\n')
  })

  // a fresh-user walkthrough at 80 columns read `…records an error (provider…`: the reason, cut off
  it('on a narrow terminal the reason wraps under itself, never cut', async () => {
    const at = async (columns: number): Promise<string> =>
      (await runCli(['replay', fx('claude-code-stream-json/claude-error.jsonl')], '', {}, { stdout: { isTTY: true, columns } })).stdout
    expect(await at(80)).toContain('  recorded as  “success”, not believed: the log also records an error\n               (provider_error)\n')
    expect(await at(60)).toContain('  recorded as  “success”, not believed: the log also records\n               an error (provider_error)\n')
  })

  it('an estimate is marked ~ in the block; --json carries cost.estimated and the price data; --no-estimate leaves it unknown', async () => {
    const r = await runCli(['replay', rollout])
    expect(r.stdout).toMatch(/\n {2}cost +~\$0\.0763 \(estimated\)\n/)
    const [first] = (await runCli(['replay', '--json', rollout])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(first.cost).toStrictEqual({
      totalUsd: 0.07628275,
      complete: true,
      missing: 0,
      estimated: true,
      priceData: { source: '@pydantic/genai-prices', version: '0.1.8', file: null },
    })
    const off = (await runCli(['replay', '--no-estimate', rollout])).stdout
    // the two runs' token_count changes: 17 and 1 (the 18 requests of the rollout)
    expect([...off.matchAll(/cost +unknown \((\d+) unpriced responses?\)/g)].map((m) => Number(m[1]))).toStrictEqual([17, 1])
    expect(off).not.toContain('~$')
    // a reported cost is never replaced
    const reported = JSON.parse((await runCli(['replay', '--json', fx('claude-code-stream-json/claude.jsonl')])).stdout)
    expect(reported.cost).toStrictEqual({ totalUsd: 0.0455704, complete: true, missing: 0 })
  })

  it('a log without a model name says so instead of counting unpriced responses', async () => {
    const r = await runCli(['replay', fx('codex-exec-json/stream-output-2.jsonl')])
    expect(r.stdout).toContain('  cost         unknown (the log names no model to price)\n')
  })
  it('a price table may start with a byte order mark; a field it does not know is a usage error naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-prices-'))
    const bom = join(dir, 'bom.json')
    writeFileSync(bom, `\ufeff${JSON.stringify({ 'claude-opus-5': { input: 1_000_000, output: 0, cachedInput: 0, cacheWrite: 0 } })}`)
    const r = await runCli(['replay', '--json', '--prices', bom, fx('claude-code-transcript/small.jsonl')])
    const first = JSON.parse(r.stdout.split('\n')[0] as string)
    // $1 per uncached input token, from the table
    expect(first.usage.byModel['claude-opus-5'].inputTokens).toBe(10)
    expect(first.cost).toMatchObject({ totalUsd: 10, estimated: true, priceData: { file: bom } })
    const typo = join(dir, 'typo.json')
    writeFileSync(typo, JSON.stringify({ 'gpt-5': { input: 1.25, cached_input: 0.125, output: 10 } }))
    const t = await runCli(['stats', '--prices', typo, fx('codex-rollout/small.jsonl')])
    expect(t.code).toBe(2)
    expect(t.stderr).toContain('the price of "gpt-5" has a field "cached_input" it does not know (its fields: input, output, cachedInput, cacheWrite)')
  })
  it.each(['*', 'unk*'])('a price pattern %s does not price the usage of a log that names no model', async (pattern) => {
    const prices = join(mkdtempSync(join(tmpdir(), 'ro-prices-')), 'prices.json')
    writeFileSync(prices, JSON.stringify({ [pattern]: { input: 1, output: 2 } }))
    const r = await runCli(['replay', '--prices', prices, fx('codex-exec-json/stream-output-2.jsonl')])
    expect(r.stdout).toContain('  cost         unknown (the log names no model to price)\n')
    const s = JSON.parse((await runCli(['stats', '--json', '--no-cache', '--prices', prices, fx('codex-exec-json/stream-output-2.jsonl')])).stdout)
    expect(s.cost).toMatchObject({ totalUsd: null, estimatedUsd: 0, runsWithoutCost: 1, runsWithEstimatedCost: 0, estimated: false })
    expect(s.unknownCost.byModel).toStrictEqual({ unknown: 1 })
  })
})

describe('replay --brief and --only', () => {
  it('one line per run, fixed columns, the label last', async () => {
    const r = await runCli(['replay', '--brief', fx('claude-code-stream-json/claude.jsonl'), rollout, fx('codex-exec-json/codex-error.jsonl')])
    expect(r.stdout).toBe(
      [
        `✔ answered         75,517 tok    $0.0456       16.8 s  ${fx('claude-code-stream-json/claude.jsonl')} #1`,
        `✔ answered        138,076 tok   ~$0.0763   3 min 53 s  ${rollout} #1`,
        `✔ answered         16,181 tok   ~$0.0234       16.3 s  ${rollout} #2`,
        // its log reports no usage: a dash, not 0 tokens
        `✖ failed                    —          —            —  ${fx('codex-exec-json/codex-error.jsonl')} #1`,
        '',
      ].join('\n'),
    )
    expect(r.code).toBe(1)
  })

  it('--only KIND (repeatable) prints only those runs; the exit status still counts every run', async () => {
    const dir = fx('codex-exec-json')
    const r = await runCli(['replay', '--brief', '--only', 'failed', '--only', 'unfinished', dir])
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/)[1]),
    ).toStrictEqual(['failed', 'unfinished'])
    expect(r.code).toBe(1)
    const bad = await runCli(['replay', '--only', 'crashed', dir])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--only takes an ending kind (answered, cut_off, limit, stopped, suspended, blocked, failed, unfinished), not "crashed"')
  })

  it('a terminal width shortens the label to its name without its extension, cut from the start (its end tells files apart), so no line wraps', async () => {
    let out = ''
    const { main } = await import('../../src/cli/main.js')
    const { Readable } = await import('node:stream')
    await main(['replay', '--brief', rollout], {
      stdin: Readable.from([]),
      stdout: { write: (s: string) => (out += s), isTTY: true, columns: 80 },
      stderr: { write: () => true },
      env: { NO_COLOR: '1' },
    })
    const lines = out.trim().split('\n')
    expect(lines.map((l) => [...l].length)).toStrictEqual([80, 80])
    expect(lines[0]).toBe('✔ answered        138,076 tok   ~$0.0763   3 min 53 s  …da3-8c20-c736db82a7c5 #1')
  })
})

describe('stats: estimate markers, errors, inputs', () => {
  it('estimated costs keep their marker in the top tables and in their JSON', async () => {
    const r = await runCli(['stats', join(home, '.codex')])
    const dear = r.stdout.slice(r.stdout.indexOf('most expensive runs'))
    expect(dear).toContain('~$0.3060')
    const s = JSON.parse((await runCli(['stats', '--json', join(home, '.codex')])).stdout)
    expect(s.mostExpensive[0]).toMatchObject({ index: 1, kind: 'unfinished', costUsd: 0.30596075, estimated: true })
    expect(s.slowest.every((x: { estimated: boolean }) => x.estimated)).toBe(true)
  })

  it('a missing path prints only the error (no table) and exits 2, even beside a good one', async () => {
    for (const argv of [
      ['stats', '/nonexistent/logs'],
      ['stats', fx('codex-exec-json'), '/nonexistent/logs'],
      ['stats', '--json', '/nonexistent/logs'],
    ]) {
      const r = await runCli(argv)
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toBe('run-outcome stats: cannot read /nonexistent/logs: no such file or directory\n')
    }
  })

  it('stats - reads standard input like replay -', async () => {
    const text = readFileSync(rollout)
    const r = await runCli(['stats', '--json', '-'], text)
    expect(r.code).toBe(0)
    const s = JSON.parse(r.stdout)
    expect(s.runs).toBe(2)
    expect(s.tokens).toMatchObject({ inputTokens: 29_257, cacheReadTokens: 120_192, outputTokens: 4_808 })
    expect(s.cost.totalUsd).toBeCloseTo(0.099675, 6)
  })

  it('one rule for skipped files: replay and stats name the first 5, then count the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-skips-'))
    for (let i = 1; i <= 7; i++) writeFileSync(join(dir, `notes-${i}.txt`), 'prose, not a log\n')
    writeFileSync(join(dir, 'run.jsonl'), readFileSync(fx('claude-code-stream-json/claude.jsonl')))
    const named = (s: string): Array<string> => s.split('\n').filter((l) => l.includes(': skipped '))
    const replay = await runCli(['replay', dir])
    const stats = await runCli(['stats', dir])
    expect(named(replay.stderr)).toHaveLength(5)
    expect(named(stats.stderr)).toHaveLength(5)
    expect(replay.stderr).toContain('run-outcome replay: … and 2 more skipped\n')
    expect(stats.stderr).toContain('run-outcome stats: … and 2 more skipped (--json lists up to 100)\n')
    expect(stats.stdout.split('\n')[0]).toBe('1 run in 1 file (7 skipped) · success 100.0%')
  })

  it.skipIf(process.getuid?.() === 0)('an unreadable folder is named on stderr and counted as skipped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-locked-'))
    writeFileSync(join(dir, 'run.jsonl'), readFileSync(fx('claude-code-stream-json/claude.jsonl')))
    mkdirSync(join(dir, 'locked'))
    chmodSync(join(dir, 'locked'), 0o000)
    try {
      const r = await runCli(['stats', dir])
      expect(r.stderr).toContain(`run-outcome stats: skipped ${join(dir, 'locked')}: cannot read the directory\n`)
      expect(JSON.parse((await runCli(['stats', '--json', dir])).stdout).skipped).toStrictEqual([{ file: join(dir, 'locked'), why: 'unreadable-folder' }])
    } finally {
      chmodSync(join(dir, 'locked'), 0o755)
    }
  })

  it('names from the logs are shown with their control characters escaped, in tables and headers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-hostile-'))
    const text = readFileSync(join(home, '.claude/projects/-path-to-Demo/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl'), 'utf8')
    writeFileSync(join(dir, 'x.jsonl'), text.replaceAll('"model":"claude-sonnet-4-20250514"', '"model":"evil\\u001b]0;owned\\u0007"'))
    const r = await runCli(['stats', '--by', 'model', dir])
    expect(r.stdout).not.toContain('\u001b')
    expect(r.stdout).toContain('evil\\x1b]0;owned\\x07')
    const replay = await runCli(['replay', '--brief', join(dir, 'x.jsonl')])
    expect(replay.stdout).not.toContain('\u001b')
  })
})
