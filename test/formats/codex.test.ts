/**
 * The codex format against the real logs copied under test/fixtures/codex-exec-json and
 * test/fixtures/codex-rollout (see their PROVENANCE.md): every file replays, with format auto and with
 * `format: 'codex'`, to the expectation of shared/corpus/expected.json (copied as expected.json beside the
 * fixtures) for its last run, plus the per-file facts the corpus notes call out.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import type { RunResult } from '../../src/core/RunResult.js'
import { codexFormat } from '../../src/formats/codex.js'
import { detectLines, formatByName } from '../../src/formats/index.js'
import { replayFile } from '../../src/node/replay.js'

const fixtures = join(import.meta.dirname, '..', 'fixtures')

interface Expectation {
  readonly eq?: Record<string, unknown>
  readonly contains?: Record<string, string>
  readonly oneOf?: Record<string, ReadonlyArray<unknown>>
  readonly parseOnly?: boolean
}

const at = (o: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined), o)

const last = (runs: ReadonlyArray<RunResult>): RunResult => {
  const r = runs[runs.length - 1]
  if (r === undefined) throw new Error('no run')
  return r
}

const BIG = 'rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl'

describe.each(['codex-exec-json', 'codex-rollout'])('corpus %s', (dir) => {
  const expected = JSON.parse(readFileSync(join(fixtures, dir, 'expected.json'), 'utf8')) as Record<string, Expectation>
  const files = readdirSync(join(fixtures, dir)).filter((f) => f.endsWith('.jsonl'))

  it('has an expectation for every fixture', () => {
    expect(files.sort()).toEqual(Object.keys(expected).sort())
  })

  describe.each(files)('%s', (file) => {
    const exp = expected[file] as Expectation
    it.each(['auto', 'codex'] as const)('replays with format %s to the expected last run', async (format) => {
      const runs = await replayFile(join(fixtures, dir, file), { format })
      expect(runs.length).toBeGreaterThan(0)
      const r = last(runs)
      expect(r.format).toBe('codex')
      if (exp.parseOnly === true) return
      for (const [k, v] of Object.entries(exp.eq ?? {})) expect([k, at(r, k)]).toEqual([k, v])
      for (const [k, v] of Object.entries(exp.contains ?? {})) expect(String(at(r, k))).toContain(v)
      for (const [k, v] of Object.entries(exp.oneOf ?? {})) expect(v).toContain(at(r, k))
    })
  })
})

describe('codex exec --json corpus facts', () => {
  const dir = join(fixtures, 'codex-exec-json')

  it('stream-output-2: buckets are disjoint (input 6040 includes 4992 cached), one unpriced item', async () => {
    const r = last(await replayFile(join(dir, 'stream-output-2.jsonl')))
    expect(r.usage.inputTokens).toBe(1048)
    expect(r.usage.cacheReadTokens).toBe(4992)
    expect(r.usage.outputTokens).toBe(129)
    expect(r.usage.cacheWriteTokens).toBe(0)
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
    expect(r.sessionId).toBe('019a2d7a-6455-7170-a661-c6d8b94c630a')
    expect(r.finishReason).toBe('turn.completed')
    expect(r.response).toBe('Files here: `stream-output-1.jsonl`, `stream-output-2.jsonl`, `test.js`.')
    expect(r.toolCalls).toBe(1)
    expect(r.turns).toBe(1)
    expect(r.inferred).toBe(false)
    expect(r.source).toEqual({ file: join(dir, 'stream-output-2.jsonl'), firstLine: 1, lastLine: 7 })
  })

  it('stream-output-multi-1: thread and turn started, nothing after → unfinished, never answered', async () => {
    const runs = await replayFile(join(dir, 'stream-output-multi-1.jsonl'))
    expect(runs).toHaveLength(1)
    expect(last(runs).ending).toEqual({ kind: 'unfinished', lastEventType: 'turn.started' })
    expect(last(runs).finishReason).toBeNull()
    expect(last(runs).response).toBeNull()
  })

  it('codex.jsonl: the non-JSON first line is a diagnostic at line 1, the run is answered', async () => {
    const r = last(await replayFile(join(dir, 'codex.jsonl')))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.diagnostics).toEqual([{ line: 1, message: 'skipped a line that is not JSON' }])
    expect(r.usage.inputTokens).toBe(20643 - 10240)
    expect(r.usage.cacheReadTokens).toBe(10240)
    expect(r.toolCalls).toBe(1)
    expect(r.response).toMatch(/^1\. `2 \+ 2 = 4`/)
  })

  it('codex-error.jsonl: failed with the quota message, no response', async () => {
    const r = last(await replayFile(join(dir, 'codex-error.jsonl')))
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'Quota exceeded. Check your plan and billing details.' } })
    expect(r.finishReason).toBe('turn.failed')
    expect(r.response).toBeNull()
    expect(r.diagnostics[0]).toEqual({ line: 1, message: 'skipped a line that is not JSON' })
  })
})

describe('codex rollout corpus facts', () => {
  const dir = join(fixtures, 'codex-rollout')

  const countUserMessages = (file: string): number =>
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { type: string; payload?: { type?: string } })
      .filter((r) => r.type === 'event_msg' && r.payload?.type === 'user_message').length

  const finalTotal = (file: string): Record<string, number> => {
    let total: Record<string, number> = {}
    for (const l of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (l.trim() === '') continue
      const r = JSON.parse(l) as { type: string; payload?: { type?: string; info?: { total_token_usage?: Record<string, number> } | null } }
      const t = r.payload?.info?.total_token_usage
      if (r.type === 'event_msg' && r.payload?.type === 'token_count' && t !== undefined) total = t
    }
    return total
  }

  it('the big rollout: one run per user_message (13), the 4 interrupted turns stopped by caller, the last answered (inferred)', async () => {
    expect(countUserMessages(BIG)).toBe(13)
    const runs = await replayFile(join(dir, BIG))
    expect(runs).toHaveLength(13)
    const kinds = runs.map((r) => r.ending.kind)
    expect(kinds).toEqual([
      'stopped',
      'answered',
      'answered',
      'stopped',
      'answered',
      'answered',
      'stopped',
      'stopped',
      'answered',
      'answered',
      'answered',
      'answered',
      'answered',
    ])
    for (const r of runs.filter((x) => x.ending.kind === 'stopped')) {
      expect(r.ending).toEqual({ kind: 'stopped', by: 'caller', reason: 'interrupted' })
      expect(r.finishReason).toBe('interrupted')
      expect(r.inferred).toBe(false)
      expect(r.response).toBeNull()
    }
    // Turn boundaries: the aborts are at lines 169, 262, 552 and 615; the next prompt follows each.
    expect(runs.filter((x) => x.ending.kind === 'stopped').map((x) => x.source?.firstLine)).toEqual([1, 191, 507, 554])
    const r = last(runs)
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.inferred).toBe(true)
    expect(r.finishReason).toBeNull()
    expect(r.sessionId).toBe('01997e76-d124-7592-9cac-2ec05abbca08')
    expect(r.response).toMatch(/^Branch `fix\/team-optimization-v2` is now/)
    expect(r.source).toMatchObject({ firstLine: 763, lastLine: 823 })
    expect(r.startedAt).toBe('2025-09-25T02:09:35.508Z')
    expect(r.endedAt).toBe('2025-09-25T02:10:21.777Z')
    expect(r.turns).toBe(1)
    expect(r.toolCalls).toBe(9)
    for (const x of runs) expect(x.diagnostics).toEqual([])
  })

  it('the big rollout: per-run usages are differences of the running total and add up exactly to the final total (K11)', async () => {
    const runs = await replayFile(join(dir, BIG))
    const t = finalTotal(BIG)
    expect(t).toEqual({ input_tokens: 7494343, cached_input_tokens: 7290112, output_tokens: 99678, reasoning_output_tokens: 72192, total_tokens: 7594021 })
    const sum = (k: 'inputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'outputTokens' | 'reasoningTokens'): number =>
      runs.reduce((s, r) => s + r.usage[k], 0)
    expect(sum('inputTokens')).toBe(7494343 - 7290112)
    expect(sum('cacheReadTokens')).toBe(7290112)
    expect(sum('cacheWriteTokens')).toBe(0)
    expect(sum('outputTokens')).toBe(99678)
    expect(sum('reasoningTokens')).toBe(72192)
    // The last run alone: its last total (7494343 / 7290112 / 99678 / 72192) minus the total before its
    // prompt (line 759: 6566358 / 6365056 / 98344 / 71808).
    const r = last(runs)
    expect(r.usage).toMatchObject({
      inputTokens: 7494343 - 7290112 - (6566358 - 6365056),
      cacheReadTokens: 7290112 - 6365056,
      outputTokens: 99678 - 98344,
      reasoningTokens: 72192 - 71808,
    })
    expect(r.usage.byModel['gpt-5-codex']?.cacheReadTokens).toBe(7290112 - 6365056)
    // 10 token counts in the last run, each a model response without a price.
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 10 })
    // Summing the running totals instead would have counted the cache reads many times over.
    expect(sum('cacheReadTokens')).toBeLessThan(2 * 7290112)
  })

  it('the other rollouts end answered (inferred); a counter restart is differenced from zero with a diagnostic', async () => {
    for (const f of readdirSync(dir).filter((x) => x.startsWith('rollout-') && x !== BIG)) {
      const runs = await replayFile(join(dir, f))
      expect(runs).toHaveLength(countUserMessages(f))
      const r = last(runs)
      expect(r.ending).toEqual({ kind: 'answered' })
      expect(r.inferred).toBe(true)
      expect(typeof r.response).toBe('string')
    }
    // 08-02-05: the second prompt comes from a new process whose running total restarts (1355071 → 37208).
    const runs = await replayFile(join(dir, 'rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl'))
    expect(runs.map((r) => r.ending)).toEqual([{ kind: 'unfinished', lastEventType: 'function_call_output' }, { kind: 'answered' }])
    expect(runs[0]?.usage).toMatchObject({ inputTokens: 1355071 - 1307776, cacheReadTokens: 1307776, outputTokens: 8337 })
    expect(last(runs).usage).toMatchObject({ inputTokens: 37208 - 2432, cacheReadTokens: 2432, outputTokens: 335, reasoningTokens: 128 })
    expect(last(runs).diagnostics).toEqual([{ line: 353, message: 'the running total went down; counted it as a new total from zero' }])
  })

  it('a gzipped copy of the big rollout replays the same (gunzipped by magic bytes)', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'codex-gz-'))
    const gz = join(tmp, 'rollout.jsonl.gz')
    writeFileSync(gz, gzipSync(readFileSync(join(dir, BIG))))
    const plain = await replayFile(join(dir, BIG))
    for (const format of ['auto', 'codex'] as const) {
      const runs = await replayFile(gz, { format })
      expect(runs).toHaveLength(13)
      expect(runs.map((r) => ({ ...r, source: null }))).toEqual(plain.map((r) => ({ ...r, source: null })))
      expect(last(runs).source).toEqual({ file: gz, firstLine: 763, lastLine: 823 })
    }
  })

  it('small.jsonl (redacted, newest record types) parses without error, with the first session id', async () => {
    for (const format of ['auto', 'codex'] as const) {
      const runs = await replayFile(join(dir, 'small.jsonl'), { format })
      expect(runs.length).toBeGreaterThan(0)
      expect(runs[0]?.sessionId).toBe('019fc8be-3658-7ca3-9e29-000000000000')
      // Its first turn ends with turn_aborted "interrupted"; the later task_complete records are diagnostics.
      expect(runs[0]?.ending).toEqual({ kind: 'stopped', by: 'caller', reason: 'interrupted' })
      expect(runs[0]?.durationMs).toBe(10)
      expect(runs[0]?.usage).toMatchObject({ inputTokens: 16341 - 3584, cacheReadTokens: 3584, outputTokens: 81, reasoningTokens: 63 })
    }
  })
})

describe('detection', () => {
  it('sniffs both shapes as codex, and is registered under its name', () => {
    expect(formatByName('codex')).toBe(codexFormat)
    for (const [dir, file] of [
      ['codex-exec-json', 'codex.jsonl'],
      ['codex-exec-json', 'stream-output-multi-1.jsonl'],
      ['codex-rollout', BIG],
      ['codex-rollout', 'small.jsonl'],
    ] as const) {
      const values = readFileSync(join(fixtures, dir, file), 'utf8')
        .split('\n')
        .slice(0, 20)
        .filter((l) => l !== '')
        .map((l) => {
          try {
            return JSON.parse(l) as unknown
          } catch {
            return undefined
          }
        })
      expect(codexFormat.sniffLines?.(values)).toBeGreaterThan(0.5)
      expect(detectLines(values)?.name).toBe('codex')
    }
  })

  it('scores 0 for records that are not Codex (native events, a lone error, plain text)', () => {
    const sniff = codexFormat.sniffLines as (v: ReadonlyArray<unknown>) => number
    expect(sniff([{ type: 'turn/start', sessionId: 's', data: { turn: 1 } }])).toBe(0)
    expect(sniff([{ type: 'error', message: 'x' }])).toBe(0)
    expect(sniff([undefined, 'text', 3, null])).toBe(0)
    expect(sniff([{ type: 'event_msg' }])).toBe(0)
    expect(sniff([{ type: 'event_msg', payload: {} }, { type: 'other' }])).toBe(0.75)
  })
})
