/**
 * The real Claude Code logs (test/fixtures/claude-code-*, copied unchanged from the corpus) replay to the
 * values of the corpus EXPECTED.md / expected.json for their last run, with format auto-detection and with
 * `format: 'claude-code'`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RunResult } from '../../src/core/RunResult.js'
import { claudeCodeFormat } from '../../src/formats/claudeCode.js'
import { detectLines, formatByName } from '../../src/formats/index.js'
import { replayFile } from '../../src/node/replay.js'

const FIX = join(import.meta.dirname, '..', 'fixtures')

/** expected.json's rows for the Claude Code files (dotted paths into the last run). */
const EXPECTED: Record<string, { eq?: Record<string, unknown>; contains?: Record<string, string>; parseOnly?: true }> = {
  'claude-code-stream-json/custom_agent_output.jsonl': { eq: { 'ending.kind': 'answered', 'cost.totalUsd': 0.03736735 } },
  'claude-code-stream-json/task_tool_output.jsonl': { eq: { 'ending.kind': 'answered', 'permissionDenials.length': 2 } },
  'claude-code-stream-json/stream.jsonl': { eq: { 'ending.kind': 'answered', finishReason: 'completed' } },
  'claude-code-stream-json/claude.jsonl': {
    eq: { 'ending.kind': 'answered', response: 'All tasks completed. The file contains: "Hello, World!"' },
  },
  'claude-code-stream-json/claude-error.jsonl': {
    eq: { 'ending.kind': 'failed', response: null },
    contains: { 'ending.error.message': 'Credit balance is too low' },
  },
  'claude-code-transcript/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl': { eq: { 'ending.kind': 'answered', inferred: true } },
  'claude-code-transcript/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl': { eq: { 'ending.kind': 'answered', inferred: true } },
  'claude-code-transcript/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl': { eq: { 'ending.kind': 'answered', inferred: true } },
  'claude-code-transcript/task_non_sdk.jsonl': { eq: { 'ending.kind': 'answered', inferred: true } },
  'claude-code-transcript/1-continue-run-ls-tool.jsonl': { eq: { 'ending.kind': 'answered', inferred: true } },
  'claude-code-transcript/full-session-two.jsonl': { eq: { 'ending.kind': 'answered', inferred: true } },
  'claude-code-transcript/full-session-four.jsonl': { eq: { 'ending.kind': 'answered', inferred: true } },
  'claude-code-transcript/permission-prompt-aborted-with-interrupt.jsonl': {
    eq: { 'ending.kind': 'stopped', 'ending.by': 'caller', inferred: true },
  },
  'claude-code-transcript/task_sdk.jsonl': { eq: { 'ending.kind': 'unfinished', 'ending.lastEventType': 'tool_use', inferred: true } },
  'claude-code-transcript/full-session-three.jsonl': { eq: { 'ending.kind': 'unfinished', 'ending.lastEventType': 'tool_use', inferred: true } },
  'claude-code-transcript/full-session-five.jsonl': { eq: { 'ending.kind': 'unfinished', 'ending.lastEventType': 'tool_result', inferred: true } },
  'claude-code-transcript/full-session-askuserquestion.jsonl': {
    eq: {
      'ending.kind': 'suspended',
      'ending.pending.length': 1,
      'ending.pending.0.kind': 'approval',
      'ending.pending.0.toolName': 'ExitPlanMode',
      'ending.pending.0.id': 'toolu_01BxsuUhRW9umBEuD9FYvYDu',
      inferred: true,
    },
  },
  'claude-code-transcript/small.jsonl': { parseOnly: true },
}

const at = (v: unknown, path: string): unknown => {
  let cur: unknown = v
  for (const k of path.split('.')) {
    if (cur === null || cur === undefined) return undefined
    cur = (cur as Record<string, unknown>)[k]
  }
  return cur
}

const lastRun = (runs: ReadonlyArray<RunResult>): RunResult => {
  expect(runs.length).toBeGreaterThan(0)
  return runs[runs.length - 1] as RunResult
}

describe('claude-code corpus: last run of each file', () => {
  for (const [rel, exp] of Object.entries(EXPECTED)) {
    for (const format of ['auto', 'claude-code'] as const) {
      it(`${rel} (${format})`, async () => {
        const runs = await replayFile(join(FIX, rel), { format })
        const r = lastRun(runs)
        for (const x of runs) {
          expect(x.format).toBe('claude-code')
          expect(x.schemaVersion).toBe(1)
        }
        if (exp.parseOnly) return
        for (const [p, v] of Object.entries(exp.eq ?? {})) expect(at(r, p), p).toEqual(v)
        for (const [p, v] of Object.entries(exp.contains ?? {})) expect(String(at(r, p))).toContain(v)
      })
    }
  }
})

describe('claude-code corpus: detection', () => {
  const firstValues = (rel: string): Array<unknown> =>
    readFileSync(join(FIX, rel), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(0, 20)
      .map((l) => {
        try {
          return JSON.parse(l) as unknown
        } catch {
          return undefined
        }
      })
  for (const rel of Object.keys(EXPECTED)) {
    it(`${rel} is detected as claude-code with a high score`, () => {
      const values = firstValues(rel)
      expect(detectLines(values)?.name).toBe('claude-code')
      expect(claudeCodeFormat.sniffLines?.(values)).toBeGreaterThanOrEqual(0.9)
    })
  }
  it('is registered under its --format name', () => {
    expect(formatByName('claude-code')).toBe(claudeCodeFormat)
  })
})

describe('claude-code corpus: values checked by hand', () => {
  it('claude.jsonl: usage is the modelUsage of both models (sonnet + haiku side calls), cost from total_cost_usd', async () => {
    // modelUsage: sonnet {inputTokens 18, outputTokens 298, cacheReadInputTokens 69608, cacheCreationInputTokens 5252,
    // costUSD 0.0451014}; haiku {309, 32, 0, 0, costUSD 0.000469}. One run, so the deltas are the totals:
    // input 18 + 309 = 327, output 298 + 32 = 330, cache read 69608, cache write 5252; total_cost_usd 0.0455704.
    const r = lastRun(await replayFile(join(FIX, 'claude-code-stream-json/claude.jsonl')))
    expect(r.usage).toMatchObject({ inputTokens: 327, outputTokens: 330, cacheReadTokens: 69608, cacheWriteTokens: 5252, reasoningTokens: 0 })
    expect(r.usage.byModel['claude-sonnet-4-5-20250929']).toEqual({
      inputTokens: 18,
      cacheReadTokens: 69608,
      cacheWriteTokens: 5252,
      outputTokens: 298,
      reasoningTokens: 0,
      costUsd: 0.0451014,
    })
    expect(r.usage.byModel['claude-haiku-4-5-20251001']?.inputTokens).toBe(309)
    expect(r.cost).toEqual({ totalUsd: 0.0455704, complete: true, missing: 0 })
    expect(r.turns).toBe(4)
    expect(r.toolCalls).toBe(3)
    expect(r.durationMs).toBe(16801)
    expect(r.sessionId).toBe('65206fb7-610c-417e-89cd-7590603606a1')
    expect(r.source).toEqual({ file: join(FIX, 'claude-code-stream-json/claude.jsonl'), firstLine: 1, lastLine: 12 })
  })

  it('custom_agent_output.jsonl: one model, cost complete; the failed Task call is a failed child', async () => {
    // modelUsage haiku: inputTokens 13, outputTokens 261, cacheReadInputTokens 49181, cacheCreationInputTokens 24905.
    const r = lastRun(await replayFile(join(FIX, 'claude-code-stream-json/custom_agent_output.jsonl')))
    expect(r.usage).toMatchObject({ inputTokens: 13, outputTokens: 261, cacheReadTokens: 49181, cacheWriteTokens: 24905 })
    expect(r.cost).toEqual({ totalUsd: 0.03736735, complete: true, missing: 0 })
    expect(r.response).toBe('Done')
    expect(r.children).toHaveLength(1)
    expect(r.children[0]?.sessionId).toBe('toolu_01KvASgC9ivmD1H9D7ty3vjf')
    expect(r.children[0]?.ending.kind).toBe('failed')
  })

  it('task_tool_output.jsonl: the two Bash denials, the subagent as a child, not the response', async () => {
    const r = lastRun(await replayFile(join(FIX, 'claude-code-stream-json/task_tool_output.jsonl')))
    expect(r.permissionDenials).toEqual([
      { toolName: 'Bash', toolCallId: 'toolu_01XMaFPbs37dmBM8hVEaTMg9' },
      { toolName: 'Bash', toolCallId: 'toolu_018Ps5gFeLfCCjFCWDtbpqaG' },
    ])
    expect(r.response).toBe('Done')
    expect(r.children).toEqual([{ sessionId: 'toolu_01EMBD2Ez8pt8LWj5ovow1mU', ending: { kind: 'answered' }, finishReason: null }])
    // modelUsage (includes the subagent): 396 / 4795 / 191182 / 45206, cost 0.0999967
    expect(r.usage).toMatchObject({ inputTokens: 396, outputTokens: 4795, cacheReadTokens: 191182, cacheWriteTokens: 45206 })
    expect(r.cost.totalUsd).toBe(0.0999967)
  })

  it('stream.jsonl: 9 api_retry records are not failures; background bash tasks are children', async () => {
    const r = lastRun(await replayFile(join(FIX, 'claude-code-stream-json/stream.jsonl')))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.finishReason).toBe('completed')
    expect(r.turns).toBe(13)
    expect(r.permissionDenials.map((d) => d.toolName)).toEqual(['Bash', 'Edit'])
    expect(r.children.map((c) => [c.sessionId, c.ending.kind])).toEqual([
      ['call_6426f17c08014b4287b76b2b', 'answered'],
      ['call_20064e412e564897bf842d1c', 'answered'],
      ['call_c425ed13f72e4302b442b57f', 'answered'],
    ])
    expect(r.response?.startsWith("It seems I don't have write access")).toBe(true)
    expect(r.diagnostics).toEqual([])
  })

  it('claude-error.jsonl: the error text is the message, response null, cost 0 complete, the synthetic message adds no usage', async () => {
    const r = lastRun(await replayFile(join(FIX, 'claude-code-stream-json/claude-error.jsonl')))
    expect(r.ending).toEqual({ kind: 'failed', reason: 'provider_error', error: { message: 'Credit balance is too low', code: 'billing_error' } })
    expect(r.finishReason).toBe('success')
    expect(r.response).toBeNull()
    expect(r.cost).toEqual({ totalUsd: 0, complete: true, missing: 0 })
    expect(r.usage.byModel).toEqual({})
  })

  it('task_non_sdk.jsonl: transcript usage deduped by message.id (last copy), root and sidechain, no cost', async () => {
    // Root messages: msg_01RVVmQ4… (lines 2–3; last copy input 4, cache write 6406, cache read 16245, output 170)
    // and msg_01LPPXpo… (line 13: 6, 907, 22651, 49), model claude-opus-4-1.
    // Sidechain (claude-sonnet-4): msg_01GHtjVr… (lines 5–6: 4, 18894, 0, 85), msg_01HXw84y… (8–9: 6, 1409, 18894, 127),
    // msg_01UA9puB… (11: 5, 490, 20303, 732).
    // input 4+6+4+6+5 = 25; cache write 6406+907+18894+1409+490 = 28106; cache read 16245+22651+0+18894+20303 = 78093;
    // output 170+49+85+127+732 = 1163 (the first copy's output 3 is replaced, not added).
    const r = lastRun(await replayFile(join(FIX, 'claude-code-transcript/task_non_sdk.jsonl')))
    expect(r.usage).toMatchObject({ inputTokens: 25, cacheWriteTokens: 28106, cacheReadTokens: 78093, outputTokens: 1163 })
    expect(r.usage.byModel['claude-opus-4-1-20250805']).toEqual({
      inputTokens: 10,
      cacheReadTokens: 38896,
      cacheWriteTokens: 7313,
      outputTokens: 219,
      reasoningTokens: 0,
      costUsd: null,
    })
    expect(r.usage.byModel['claude-sonnet-4-20250514']?.outputTokens).toBe(944)
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 5 })
    expect(r.turns).toBe(2) // two root API responses
    expect(r.children).toEqual([{ sessionId: 'toolu_01EmKA8FJ7B2Ah9seGxK1Wct', ending: { kind: 'answered' }, finishReason: null }])
    expect(r.response?.startsWith('The Task tool successfully searched')).toBe(true)
    expect(r.startedAt).toBe('2025-08-11T01:02:59.544Z')
    expect(r.endedAt).toBe('2025-08-11T01:04:20.550Z')
  })

  it('permission-prompt-aborted-with-interrupt.jsonl: two copies of one message count once', async () => {
    // msg_012JP77PLu6spQV3 appears on lines 2 and 3 with the same usage: 4 / 5678 / 10491 / 5.
    const r = lastRun(await replayFile(join(FIX, 'claude-code-transcript/permission-prompt-aborted-with-interrupt.jsonl')))
    expect(r.usage).toMatchObject({ inputTokens: 4, cacheWriteTokens: 5678, cacheReadTokens: 10491, outputTokens: 5 })
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
    expect(r.response).toBeNull()
  })

  it('full-session-two.jsonl: one run per real prompt; earlier interrupts stop their own runs only', async () => {
    const runs = await replayFile(join(FIX, 'claude-code-transcript/full-session-two.jsonl'))
    expect(runs.map((r) => r.ending.kind)).toEqual(['stopped', 'stopped', 'answered', 'answered'])
    // the /clear command records (lines 2–4) belong to the first run's lines, they make no run of their own
    expect(runs[0]?.source?.firstLine).toBe(1)
    expect(runs[3]?.source).toMatchObject({ firstLine: 38, lastLine: 41 })
  })

  it('full-session-askuserquestion.jsonl: the answered AskUserQuestion is not pending; the Plan subagent is a child named by its agentId', async () => {
    const r = lastRun(await replayFile(join(FIX, 'claude-code-transcript/full-session-askuserquestion.jsonl')))
    if (r.ending.kind !== 'suspended') throw new Error('expected suspended')
    expect(r.ending.pending.map((p) => p.toolName)).toEqual(['ExitPlanMode'])
    expect(typeof (r.ending.pending[0]?.arguments as { plan?: unknown }).plan).toBe('string')
    expect(r.children).toEqual([{ sessionId: '862cae62', ending: { kind: 'answered' }, finishReason: 'completed' }])
  })

  it('fe5e1c67…jsonl: 405 sidechain records and 23 tool errors do not end the first run; the follow-up prompt is a second run', async () => {
    const runs = await replayFile(join(FIX, 'claude-code-transcript/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl'))
    expect(runs.map((r) => r.ending.kind)).toEqual(['answered', 'answered'])
    expect(runs[0]?.children).toHaveLength(5)
    expect(runs[0]?.children.every((c) => c.ending.kind === 'answered')).toBe(true)
  })

  it('small.jsonl (redacted, newest record types) parses without a diagnostic for its known record types', async () => {
    const runs = await replayFile(join(FIX, 'claude-code-transcript/small.jsonl'))
    const messages = runs.flatMap((r) => r.diagnostics.map((d) => d.message))
    // only the two record types that are not Claude Code transcript records (an agent-sessions `started` /
    // `result` pair) are reported; every other record type of the fixture is read without a diagnostic
    expect(messages.sort()).toEqual(['ignored a record of unknown type "result"', 'ignored a record of unknown type "started"'])
  })
})

describe('claude-code --output-format json', () => {
  const records = (rel: string): Array<unknown> =>
    readFileSync(join(FIX, rel), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as unknown)
  const dir = mkdtempSync(join(tmpdir(), 'cc-json-'))

  it('a one-line JSON array of every message reads like the stream', async () => {
    const file = join(dir, 'one-line.json')
    writeFileSync(file, `${JSON.stringify(records('claude-code-stream-json/claude.jsonl'))}\n`)
    const runs = await replayFile(file)
    expect(runs).toHaveLength(1)
    expect(runs[0]?.response).toBe('All tasks completed. The file contains: "Hello, World!"')
    expect(runs[0]?.cost.totalUsd).toBe(0.0455704)
    expect(runs[0]?.source).toEqual({ file, firstLine: 1, lastLine: 1 })
    // K4: the same usage whether the run was streamed or printed as one document
    const streamed = lastRun(await replayFile(join(FIX, 'claude-code-stream-json/claude.jsonl')))
    expect(runs[0]?.usage).toEqual(streamed.usage)
    expect(runs[0]?.ending).toEqual(streamed.ending)
  })

  it('a pretty-printed JSON array is read as a document', async () => {
    const file = join(dir, 'pretty.json')
    writeFileSync(file, JSON.stringify(records('claude-code-stream-json/claude-error.jsonl'), null, 2))
    const runs = await replayFile(file)
    expect(runs).toHaveLength(1)
    expect(runs[0]?.ending.kind).toBe('failed')
    expect(runs[0]?.response).toBeNull()
  })

  it('a single pretty-printed result object is read as a document', async () => {
    const file = join(dir, 'result.json')
    const result = records('claude-code-stream-json/custom_agent_output.jsonl').at(-1)
    writeFileSync(file, JSON.stringify(result, null, 2))
    const runs = await replayFile(file)
    expect(runs.map((r) => [r.ending.kind, r.response, r.cost.totalUsd])).toEqual([['answered', 'Done', 0.03736735]])
    expect(claudeCodeFormat.sniffDocument?.(result)).toBeGreaterThanOrEqual(0.9)
  })
})
