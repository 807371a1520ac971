/**
 * Estimated costs from the bundled @pydantic/genai-prices data (src/prices/genaiPrices.ts): the usage convention
 * (its input_tokens is the whole prompt), provider matching, per-request pricing across a price tier, and — on
 * the Claude Code and Codex folders of the fixture home — run costs equal to the sum of the library's own
 * calcPrice over the requests read straight from the logs, and to hand-computed figures from published prices.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { calcPrice } from '@pydantic/genai-prices'
import { describe, expect, it } from 'vitest'
import type { CostEstimator } from '../../src/core/fold.js'
import type { UsageBuckets } from '../../src/core/RunResult.js'
import { replayFile } from '../../src/node/replay.js'
import { bundledEstimator, estimatorOf, genaiUsage, PRICE_DATA_VERSION, priceDataOf, providerOf } from '../../src/prices/genaiPrices.js'
import { runCli } from '../support/cli.js'
import { claudeRequests, codexRequests, sumUsage, type Request } from '../support/requests.js'

const home = new URL('../fixtures/homes/basic', import.meta.url).pathname
const claudeDir = join(home, '.claude/projects')
const sessions = {
  taskSdk: join(claudeDir, '-Users-user-Develop-slopus-happy-cli/task_sdk.jsonl'),
  demo1: join(claudeDir, '-path-to-Demo/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl'),
  demo2: join(claudeDir, '-path-to-Demo/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'),
  three: join(claudeDir, '-Users-user-Dev-sourceborn-src-agent-workflows-monorepo-v2/full-session-three.jsonl'),
  two: join(claudeDir, '-Users-user-Dev-sourceborn-src-agent-workflows-monorepo-v2/full-session-two.jsonl'),
}
const rollouts = [
  join(home, '.codex/sessions/2025/09/24/rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl'),
  join(home, '.codex/sessions/2025/09/25/rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl'),
  join(home, '.codex/archived_sessions/rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl'),
]

const buckets = (inputTokens: number, cacheReadTokens: number, cacheWriteTokens: number, outputTokens: number): UsageBuckets => ({
  inputTokens,
  cacheReadTokens,
  cacheWriteTokens,
  outputTokens,
  reasoningTokens: 0,
})

/** genai-prices' own price of one request: its input_tokens is the whole prompt (uncached + cache read + cache write). */
const libraryPrice = (r: Request, providerId: string): number => {
  const u = r.usage
  const p = calcPrice(
    {
      input_tokens: u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens,
      cache_read_tokens: u.cacheReadTokens,
      cache_write_tokens: u.cacheWriteTokens,
      output_tokens: u.outputTokens,
    },
    r.model,
    { providerId },
  )
  if (p === null) throw new Error(`no price for ${r.model}`)
  return p.total_price
}

const sessionGroups = async (
  ...paths: Array<string>
): Promise<Record<string, { runs: number; tokens: Record<string, number>; cost: { totalUsd: number | null; estimated: boolean } }>> => {
  const r = await runCli(['stats', '--json', '--by', 'session', ...paths])
  expect(r.code).toBe(0)
  return JSON.parse(r.stdout).groups
}

describe('the genai-prices adapter', () => {
  it('converts disjoint buckets to its whole-prompt input_tokens', () => {
    expect(genaiUsage(buckets(10, 100, 5, 7))).toStrictEqual({ input_tokens: 115, cache_read_tokens: 100, cache_write_tokens: 5, output_tokens: 7 })
  })

  it('matches providers by model family, Codex names included', () => {
    expect(
      [
        'claude-sonnet-4-5-20250929',
        'claude-opus-4-1-20250805',
        'gpt-5-codex',
        'gpt-5.2-codex',
        'o3-mini',
        'codex-mini-latest',
        'gemini-2.5-pro',
        'glm-5.1',
      ].map(providerOf),
    ).toStrictEqual(['anthropic', 'anthropic', 'openai', 'openai', 'openai', 'openai', 'google', undefined])
  })

  it('prices one request as calcPrice does; an unknown or missing model has no estimate (never 0)', () => {
    const est = bundledEstimator()
    const u = buckets(1_000, 20_000, 3_000, 500)
    for (const [model, providerId] of [
      ['claude-sonnet-4-20250514', 'anthropic'],
      ['claude-sonnet-4-5-20250929', 'anthropic'],
      ['gpt-5-codex', 'openai'],
      ['gemini-2.5-pro', 'google'],
    ] as const) {
      expect(est(model, u)).toBe(libraryPrice({ model, usage: u }, providerId))
    }
    // claude-sonnet-4 at $3 in, $0.30 cache read, $3.75 cache write, $15 out per million tokens
    expect(est('claude-sonnet-4-20250514', u)).toBeCloseTo((1_000 * 3 + 20_000 * 0.3 + 3_000 * 3.75 + 500 * 15) / 1e6, 12)
    // a provider prefix is understood
    expect(est('anthropic/claude-sonnet-4-20250514', u)).toBe(est('claude-sonnet-4-20250514', u))
    expect(est('acme-coder-9', u)).toBeUndefined()
    expect(est('unknown', u)).toBeUndefined()
    expect(est('<synthetic>', u)).toBeUndefined()
  })

  it('--prices entries win over the bundled data and add models; --no-estimate has no estimator', () => {
    const est = estimatorOf({ enabled: true, table: { 'gpt-5*': { input: 2, output: 20 }, 'acme-*': { input: 1, output: 1 } } })
    expect(est?.('gpt-5-codex', buckets(1e6, 0, 0, 1e6))).toBe(22)
    expect(est?.('acme-coder-9', buckets(1e6, 0, 0, 0))).toBe(1)
    expect(est?.('claude-sonnet-4-20250514', buckets(1e6, 0, 0, 0))).toBeCloseTo(3, 12)
    expect(estimatorOf({ enabled: false })).toBeUndefined()
    expect(priceDataOf({ enabled: true })).toStrictEqual({ source: '@pydantic/genai-prices', version: '0.1.8', file: null })
    expect(PRICE_DATA_VERSION).toBe('0.1.8')
    expect(priceDataOf({ enabled: false })).toBeNull()
  })
})

describe('per-request estimates', () => {
  it('a run whose requests cross the 200k-prompt tier: each request at its own tier, as calcPrice prices it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-tier-'))
    const rec = (type: string, time: string, message: object): string =>
      JSON.stringify({
        parentUuid: null,
        isSidechain: false,
        userType: 'external',
        cwd: '/w',
        sessionId: 'tier',
        version: '2.0.28',
        type,
        uuid: `${type}-${time}`,
        timestamp: time,
        message,
      })
    const asst = (time: string, id: string, text: string, u: [number, number, number, number]): string =>
      rec('assistant', time, {
        id,
        model: 'claude-sonnet-4-5-20250929',
        role: 'assistant',
        type: 'message',
        content: [{ type: 'text', text }],
        stop_reason: null,
        usage: { input_tokens: u[0], cache_read_input_tokens: u[1], cache_creation_input_tokens: u[2], output_tokens: u[3] },
      })
    const file = join(dir, 'tier.jsonl')
    writeFileSync(
      file,
      `${[
        rec('user', '2025-10-28T10:00:00.000Z', { role: 'user', content: 'summarise the repository' }),
        // 161,000 prompt tokens: below the tier
        asst('2025-10-28T10:00:30.000Z', 'msg_a', 'reading', [1_000, 150_000, 10_000, 2_000]),
        // 237,000 prompt tokens: above it
        asst('2025-10-28T10:01:30.000Z', 'msg_b', 'done', [2_000, 230_000, 5_000, 4_000]),
      ].join('\n')}\n`,
    )
    const [run] = await replayFile(file, { estimate: bundledEstimator() })
    expect(run?.cost.estimated).toBe(true)
    const requests = claudeRequests(file)
    expect(requests).toHaveLength(2)
    const library = requests.reduce((a, r) => a + libraryPrice(r, 'anthropic'), 0)
    expect(run?.cost.totalUsd).toBeCloseTo(library, 12)
    // by hand, from Anthropic's published prices per million tokens (claude-sonnet-4-5): up to 200k prompt tokens
    // $3 input, $0.30 cache read, $3.75 cache write, $15 output; above, $6, $0.60, $7.50, $22.50
    const below = (1_000 * 3 + 150_000 * 0.3 + 10_000 * 3.75 + 2_000 * 15) / 1e6
    const above = (2_000 * 6 + 230_000 * 0.6 + 5_000 * 7.5 + 4_000 * 22.5) / 1e6
    expect(below).toBeCloseTo(0.1155, 12)
    expect(above).toBeCloseTo(0.2775, 12)
    expect(run?.cost.totalUsd).toBeCloseTo(0.393, 12)
    // the run's total priced at once would land all of it in the upper tier
    const whole = (3_000 * 6 + 380_000 * 0.6 + 15_000 * 7.5 + 6_000 * 22.5) / 1e6
    expect(whole).toBeCloseTo(0.4935, 12)
    expect(run?.cost.totalUsd).not.toBeCloseTo(whole, 3)
  })

  it('each request is priced at the prices in force at its own time, not at the day of the reading', async () => {
    // a Codex rollout of 2026-07-16 on gpt-5.6-terra, whose bundled price drops on 2026-07-30
    const file = new URL('../fixtures/codex-rollout/fork-copied-parent-history.jsonl', import.meta.url).pathname
    // its one request, as replay reports it (the rollout's running total; the golden record holds the same)
    const u = buckets(904, 20_096, 0, 7)
    const at = (day: string): number => calcPrice(genaiUsage(u), 'gpt-5.6-terra', { providerId: 'openai', timestamp: new Date(day) })?.total_price ?? Number.NaN
    const then = at('2026-07-16T05:31:40.121Z')
    const later = at('2026-08-30T00:00:00.000Z')
    expect(then).toBeCloseTo(0.007389, 12)
    expect(later).toBeCloseTo(0.0059112, 12)
    // the estimator's clock is the day after the drop: a request with no time of its own would take that price
    for (const estimate of [bundledEstimator({ at: new Date('2026-08-30T00:00:00Z') }), estimatorOf({ enabled: true, table: {} }) as CostEstimator]) {
      const [run] = await replayFile(file, { estimate })
      expect(run?.usage.byModel['gpt-5.6-terra']).toMatchObject({ inputTokens: 904, cacheReadTokens: 20_096, outputTokens: 7 })
      expect(run?.cost.totalUsd).toBeCloseTo(then, 12)
      expect(run?.cost.estimated).toBe(true)
    }
    const direct = bundledEstimator({ at: new Date('2026-08-30T00:00:00Z') })
    expect(direct('gpt-5.6-terra', u)).toBeCloseTo(later, 12)
    expect(direct('gpt-5.6-terra', u, '2026-07-16T05:31:40.121Z')).toBeCloseTo(then, 12)
    expect(direct('gpt-5.6-terra', u, Date.parse('2026-07-16T05:31:40.121Z'))).toBeCloseTo(then, 12)
  })

  it("a dated request's estimate does not depend on the estimator's clock (its provider and prices are of its own day)", () => {
    const models = [
      'claude-sonnet-4-5-20250929',
      'claude-opus-4-6',
      'claude-sonnet-4-6',
      'gpt-5.6-terra',
      'gpt-5-codex',
      'gemini-2.5-pro',
      'deepseek-chat',
      'openai/gpt-4o',
      'no-such-model',
    ]
    const times = [
      '2025-06-01T12:00:00Z',
      '2026-03-12T23:59:59Z',
      '2026-03-14T00:00:01Z',
      '2026-07-29T10:00:00Z',
      '2026-07-31T10:00:00Z',
      '2026-12-01T03:00:00Z',
      '2026-12-01T18:00:00Z',
    ]
    const clocks = ['2025-01-01T00:00:00Z', '2026-08-01T00:00:00Z', '2027-06-01T00:00:00Z'].map((t) => bundledEstimator({ at: new Date(t) }))
    const u = buckets(250_000, 40_000, 5_000, 3_000)
    let priced = 0
    for (const m of models)
      for (const t of times) {
        const [first, ...rest] = clocks.map((e) => e(m, u, t))
        for (const x of rest) expect(x).toBe(first)
        if (first !== undefined) priced++
      }
    // every model but the unknown one is priced at every time
    expect(priced).toBe((models.length - 1) * times.length)
  })

  it('Claude Code home tree: each session costs the sum of calcPrice over its requests (subagent files included)', async () => {
    const groups = await sessionGroups(claudeDir)
    expect(Object.keys(groups).sort()).toStrictEqual(Object.values(sessions).sort())
    for (const file of Object.values(sessions)) {
      const requests = claudeRequests(file)
      const g = groups[file]
      expect(g?.tokens).toMatchObject(sumUsage(requests))
      expect(g?.cost.estimated).toBe(true)
      expect(g?.cost.totalUsd).toBeCloseTo(
        requests.reduce((a, r) => a + libraryPrice(r, 'anthropic'), 0),
        6,
      )
    }
    // the session with a subagents folder: its two subagents' requests are in it
    expect(claudeRequests(sessions.demo2)).toHaveLength(20)
  })

  it('Claude Code home tree: the total is the hand-computed figure from published per-million prices', async () => {
    const s = JSON.parse((await runCli(['stats', '--json', '--by', 'model', claudeDir])).stdout)
    const tokens = (m: string) => s.groups[m].tokens
    expect(tokens('claude-opus-4-1-20250805')).toMatchObject({ inputTokens: 14, cacheReadTokens: 22_177, cacheWriteTokens: 46_616, outputTokens: 377 })
    expect(tokens('claude-sonnet-4-20250514')).toMatchObject({ inputTokens: 222, cacheReadTokens: 427_478, cacheWriteTokens: 60_445, outputTokens: 4_582 })
    expect(tokens('claude-sonnet-4-5-20250929')).toMatchObject({ inputTokens: 1_268, cacheReadTokens: 493_411, cacheWriteTokens: 84_660, outputTokens: 940 })
    // USD per million tokens (input, cache read, cache write, output): Opus 4.1 $15, $1.50, $18.75, $75;
    // Sonnet 4 and Sonnet 4.5 (every request under 200k prompt tokens) $3, $0.30, $3.75, $15
    const opus = (14 * 15 + 22_177 * 1.5 + 46_616 * 18.75 + 377 * 75) / 1e6
    const sonnet4 = (222 * 3 + 427_478 * 0.3 + 60_445 * 3.75 + 4_582 * 15) / 1e6
    const sonnet45 = (1_268 * 3 + 493_411 * 0.3 + 84_660 * 3.75 + 940 * 15) / 1e6
    expect(opus).toBeCloseTo(0.9358005, 9)
    expect(sonnet4).toBeCloseTo(0.42430815, 9)
    expect(sonnet45).toBeCloseTo(0.4834023, 9)
    expect(s.groups['claude-opus-4-1-20250805'].cost.totalUsd).toBeCloseTo(opus, 6)
    expect(s.groups['claude-sonnet-4-20250514'].cost.totalUsd).toBeCloseTo(sonnet4, 6)
    expect(s.groups['claude-sonnet-4-5-20250929'].cost.totalUsd).toBeCloseTo(sonnet45, 6)
    expect(s.cost.totalUsd).toBeCloseTo(1.84351095, 6)
    expect(s.cost).toMatchObject({ complete: true, runsWithoutCost: 0, runsWithEstimatedCost: 10, reportedUsd: 0 })
  })

  it('Codex home tree: each rollout costs the sum of calcPrice over its token_count requests, and the hand figure', async () => {
    const groups = await sessionGroups(join(home, '.codex'))
    for (const file of rollouts) {
      const requests = codexRequests(file)
      expect(groups[file]?.tokens).toMatchObject(sumUsage(requests))
      expect(groups[file]?.cost.totalUsd).toBeCloseTo(
        requests.reduce((a, r) => a + libraryPrice(r, 'openai'), 0),
        6,
      )
    }
    const s = JSON.parse((await runCli(['stats', '--json', join(home, '.codex')])).stdout)
    expect(s.tokens).toStrictEqual({ inputTokens: 175_842, cacheReadTokens: 1_902_720, cacheWriteTokens: 0, outputTokens: 20_134, reasoningTokens: 11_008 })
    // gpt-5-codex is priced as gpt-5: $1.25 input, $0.125 cached input, $10 output per million tokens
    const hand = (175_842 * 1.25 + 1_902_720 * 0.125 + 20_134 * 10) / 1e6
    expect(hand).toBeCloseTo(0.6589825, 9)
    expect(s.cost.totalUsd).toBeCloseTo(hand, 6)
    expect(s.runs).toBe(5)
  })

  it('--prices overrides a bundled model; --no-estimate leaves every unreported cost unknown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-prices-'))
    mkdirSync(dir, { recursive: true })
    const prices = join(dir, 'prices.json')
    writeFileSync(prices, JSON.stringify({ 'gpt-5-codex': { input: 2, cachedInput: 0.2, output: 20 } }))
    const s = JSON.parse((await runCli(['stats', '--json', '--prices', prices, join(home, '.codex')])).stdout)
    expect(s.cost.totalUsd).toBeCloseTo((175_842 * 2 + 1_902_720 * 0.2 + 20_134 * 20) / 1e6, 6)
    expect(s.priceData).toStrictEqual({ source: '@pydantic/genai-prices', version: '0.1.8', file: prices })
    const off = JSON.parse((await runCli(['stats', '--json', '--no-estimate', join(home, '.codex')])).stdout)
    expect(off.cost).toMatchObject({ totalUsd: null, runsWithoutCost: 5, runsWithEstimatedCost: 0 })
    expect(off.priceData).toBeNull()
    const both = await runCli(['stats', '--prices', prices, '--no-estimate', join(home, '.codex')])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('--prices and --no-estimate contradict each other')
  })
})
