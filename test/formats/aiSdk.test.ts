/**
 * ai-sdk: synthetic fullStream / UI message streams for each ending rule and the bug kinds of
 * shared/reference/bug-kinds.md that this format can show (K1, K2, K3, K4, K5, K7, K13, K14).
 */
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { RunResult } from '../../src/core/RunResult.js'
import { aiSdkFormat, aiSdkReader, readAiSdkDocument } from '../../src/formats/aiSdk.js'
import { replayStream } from '../../src/node/replay.js'

type Encoding = 'jsonl' | 'sse' | 'array' | 'one-line-array'

const encode = (parts: ReadonlyArray<unknown>, encoding: Encoding): string => {
  switch (encoding) {
    case 'jsonl':
      return parts.map((p) => JSON.stringify(p)).join('\n') + '\n'
    case 'sse':
      return parts.map((p) => `data: ${JSON.stringify(p)}\n\n`).join('') + 'data: [DONE]\n\n'
    case 'array':
      return JSON.stringify(parts, null, 2) + '\n'
    case 'one-line-array':
      return JSON.stringify(parts) + '\n'
  }
}

const replayText = async (text: string, format: 'auto' | 'ai-sdk' = 'ai-sdk'): Promise<RunResult[]> => {
  const runs: RunResult[] = []
  const outcome = await replayStream(Readable.from([Buffer.from(text)]), (r) => runs.push(r), { format })
  expect(outcome.error).toBeUndefined()
  return runs
}

/** Replays parts in every encoding, checks they agree (except source), and returns the JSONL runs. */
const replay = async (parts: ReadonlyArray<unknown>): Promise<RunResult[]> => {
  const jsonl = await replayText(encode(parts, 'jsonl'))
  const strip = (rs: RunResult[]) =>
    rs.map((r) => {
      const { source: _s, diagnostics, ...rest } = r
      return { ...rest, diagnostics: diagnostics.map((d) => d.message) }
    })
  for (const enc of ['sse', 'array', 'one-line-array'] as const) {
    expect(strip(await replayText(encode(parts, enc))), enc).toEqual(strip(jsonl))
  }
  return jsonl
}

const only = async (parts: ReadonlyArray<unknown>): Promise<RunResult> => {
  const runs = await replay(parts)
  expect(runs).toHaveLength(1)
  return runs[0] as RunResult
}

// ---- fullStream building blocks (v5/v6 TextStreamPart shapes) ----
const v5usage = (input: number, cached: number, output: number, reasoning?: number) => ({
  inputTokens: input,
  outputTokens: output,
  totalTokens: input + output,
  cachedInputTokens: cached,
  ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
})
const step = (texts: string[], extra: unknown[] = [], finishReason = 'stop', usage?: unknown, modelId = 'gpt-5') => [
  { type: 'start-step', request: {}, warnings: [] },
  ...(texts.length > 0
    ? [{ type: 'text-start', id: 't1' }, ...texts.map((text) => ({ type: 'text-delta', id: 't1', text })), { type: 'text-end', id: 't1' }]
    : []),
  ...extra,
  {
    type: 'finish-step',
    finishReason,
    response: { id: 'resp', modelId, timestamp: '2026-01-01T00:00:00.000Z' },
    ...(usage !== undefined ? { usage } : {}),
    providerMetadata: {},
  },
]
const toolRound = (id: string, toolName: string, input: unknown, output: unknown = 'ok') => [
  { type: 'tool-input-start', id, toolName },
  { type: 'tool-input-delta', id, delta: JSON.stringify(input) },
  { type: 'tool-input-end', id },
  { type: 'tool-call', toolCallId: id, toolName, input },
  { type: 'tool-result', toolCallId: id, toolName, input, output },
]

describe('ai-sdk: endings', () => {
  it('finish stop → answered; the response is the last step’s text, not the preamble before tool calls', async () => {
    const r = await only([
      { type: 'start' },
      ...step(['Let me ', 'check.'], toolRound('c1', 'weather', { city: 'Oslo' }), 'tool-calls'),
      ...step(['It is ', 'sunny.']),
      { type: 'finish', finishReason: 'stop', totalUsage: v5usage(0, 0, 0) },
    ])
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.finishReason).toBe('stop')
    expect(r.response).toBe('It is sunny.')
    expect(r.toolCalls).toBe(1)
    expect(r.turns).toBe(2)
    expect(r.inferred).toBe(false)
    expect(r.source).toEqual({ file: null, firstLine: 1, lastLine: 19 })
  })

  it('K13: finish length → cut_off max_tokens, the partial text kept as the response', async () => {
    const r = await only([{ type: 'start' }, ...step(['Once upon a'], [], 'length'), { type: 'finish', finishReason: 'length', totalUsage: v5usage(10, 0, 4) }])
    expect(r.ending).toEqual({ kind: 'cut_off', finishReason: 'max_tokens' })
    expect(r.finishReason).toBe('length')
    expect(r.response).toBe('Once upon a')
  })

  it('content-filter → cut_off content_filter; v6 rawFinishReason refines it and is the finishReason', async () => {
    const a = await only([{ type: 'start' }, ...step(['x'], [], 'content-filter'), { type: 'finish', finishReason: 'content-filter' }])
    expect(a.ending).toEqual({ kind: 'cut_off', finishReason: 'content_filter' })
    expect(a.finishReason).toBe('content-filter')
    const b = await only([{ type: 'start' }, { type: 'finish', finishReason: 'content-filter', rawFinishReason: 'refusal' }])
    expect(b.ending).toEqual({ kind: 'cut_off', finishReason: 'refusal' })
    expect(b.finishReason).toBe('refusal')
    const c = await only([{ type: 'start' }, { type: 'finish', finishReason: 'length', rawFinishReason: 'model_context_window_exceeded' }])
    expect(c.ending).toEqual({ kind: 'cut_off', finishReason: 'context_window' })
    const d = await only([{ type: 'start' }, { type: 'finish', finishReason: 'stop', rawFinishReason: 'end_turn' }])
    expect(d.ending).toEqual({ kind: 'answered' })
    expect(d.finishReason).toBe('end_turn')
  })

  it('K14: an unknown finish reason is failed unrecognized with the raw string kept, never answered', async () => {
    const other = await only([{ type: 'start' }, ...step(['hm'], [], 'other'), { type: 'finish', finishReason: 'other', rawFinishReason: 'brand_new_reason' }])
    expect(other.ending).toEqual({ kind: 'failed', reason: 'unrecognized', raw: 'brand_new_reason' })
    expect(other.finishReason).toBe('brand_new_reason')
    expect(other.response).toBeNull()
    const unknown = await only([{ type: 'start' }, { type: 'finish', finishReason: 'unknown' }])
    expect(unknown.ending).toEqual({ kind: 'failed', reason: 'unrecognized', raw: 'unknown' })
    expect(unknown.finishReason).toBe('unknown')
    const wild = await only([{ type: 'start' }, { type: 'finish', finishReason: 'a-reason-from-the-future' }])
    expect(wild.ending).toEqual({ kind: 'failed', reason: 'unrecognized', raw: 'a-reason-from-the-future' })
    const notString = await only([{ type: 'start' }, { type: 'finish', finishReason: { nested: [1, 2] } }])
    expect(notString.ending).toEqual({ kind: 'failed', reason: 'unrecognized' })
    expect(notString.finishReason).toBeNull()
    expect(notString.diagnostics.map((d) => d.message)).toEqual(['the finish part has a finishReason that is not a string'])
  })

  it('finish error → failed error', async () => {
    const r = await only([{ type: 'start' }, ...step(['x'], [], 'error'), { type: 'finish', finishReason: 'error' }])
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error' })
    expect(r.finishReason).toBe('error')
    expect(r.response).toBeNull()
  })

  it('K1: an error part with no finish after it → failed error, phase stream, with the error message; the partial text is not the answer', async () => {
    const r = await only([
      { type: 'start' },
      { type: 'start-step', request: {}, warnings: [] },
      { type: 'text-delta', id: 't', text: 'partial' },
      { type: 'error', error: { name: 'AI_APICallError', message: 'Overloaded', statusCode: 529 } },
    ])
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', phase: 'stream', error: { message: 'Overloaded', code: 529, name: 'AI_APICallError' } })
    expect(r.finishReason).toBe('error')
    expect(r.response).toBeNull()
    // UI message stream form: errorText
    const ui = await only([
      { type: 'start' },
      { type: 'text-start', id: 'a' },
      { type: 'text-delta', id: 'a', delta: 'par' },
      { type: 'error', errorText: 'An error occurred.' },
    ])
    expect(ui.ending).toEqual({ kind: 'failed', reason: 'error', phase: 'stream', error: { message: 'An error occurred.' } })
    // a string error
    const s = await only([{ type: 'start' }, { type: 'error', error: 'socket hang up' }])
    expect(s.ending).toEqual({ kind: 'failed', reason: 'error', phase: 'stream', error: { message: 'socket hang up' } })
  })

  it('an error part followed by the run’s finish → failed (the error beats the label), not phase stream', async () => {
    const r = await only([
      { type: 'start' },
      ...step(['ok'], [{ type: 'error', error: { message: 'tool crashed' } }], 'stop'),
      { type: 'finish', finishReason: 'stop' },
    ])
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'tool crashed' } })
    expect(r.finishReason).toBe('stop')
    expect(r.response).toBeNull()
  })

  it('K2: an abort → stopped by caller; the partial text is not presented as the answer, even when a finish follows', async () => {
    const plain = await only([{ type: 'start' }, { type: 'start-step' }, { type: 'text-delta', id: 't', text: 'Half an ans' }, { type: 'abort' }])
    expect(plain.ending).toEqual({ kind: 'stopped', by: 'caller' })
    expect(plain.finishReason).toBe('abort')
    expect(plain.response).toBeNull()
    const v6 = await only([{ type: 'start' }, { type: 'text-delta', id: 't', text: 'Half' }, { type: 'abort', reason: 'user pressed stop' }])
    expect(v6.ending).toEqual({ kind: 'stopped', by: 'caller', reason: 'user pressed stop' })
    // re-aggregated / merged streams: a finish stop after the abort must not turn it into an answer
    const merged = await only([
      { type: 'start' },
      ...step(['Half an ans']),
      { type: 'abort' },
      { type: 'finish', finishReason: 'stop', totalUsage: v5usage(5, 0, 3) },
    ])
    expect(merged.ending).toEqual({ kind: 'stopped', by: 'caller' })
    expect(merged.response).toBeNull()
    expect(merged.finishReason).toBe('stop')
    expect(merged.diagnostics.map((d) => d.message)).toEqual(['a finish part after an abort: the run stays stopped by the caller'])
  })

  it('K3: finish tool-calls after executed tools (a step limit ended the loop) → limit max_steps, inferred, with the steps run', async () => {
    const r = await only([
      { type: 'start' },
      ...step(['Looking.'], toolRound('c1', 'search', { q: 'a' }), 'tool-calls'),
      ...step([], toolRound('c2', 'search', { q: 'b' }), 'tool-calls'),
      { type: 'finish', finishReason: 'tool-calls', totalUsage: v5usage(30, 0, 9) },
    ])
    expect(r.ending).toEqual({ kind: 'limit', reason: 'max_steps', actual: 2 })
    expect(r.inferred).toBe(true)
    expect(r.finishReason).toBe('tool-calls')
    expect(r.response).toBeNull()
    expect(r.toolCalls).toBe(2)
  })

  it('finish tool-calls with a tool call left without output (a client-side tool) → suspended on that call, inferred', async () => {
    const r = await only([
      { type: 'start' },
      ...step([], [{ type: 'tool-call', toolCallId: 'ask1', toolName: 'askForConfirmation', input: { message: 'Proceed?' } }], 'tool-calls'),
      { type: 'finish', finishReason: 'tool-calls' },
    ])
    expect(r.ending).toEqual({
      kind: 'suspended',
      pending: [{ id: 'ask1', kind: 'tool_result', toolName: 'askForConfirmation', arguments: { message: 'Proceed?' } }],
    })
    expect(r.inferred).toBe(true)
  })

  it('K5: a v6 tool-approval-request then finish tool-calls → suspended with the pending approval', async () => {
    const call = { toolCallId: 'c9', toolName: 'deleteFile', input: { path: '/tmp/x' } }
    const r = await only([
      { type: 'start' },
      ...step(
        [],
        [
          { type: 'tool-input-start', id: 'c9', toolName: 'deleteFile' },
          { type: 'tool-call', ...call },
          { type: 'tool-approval-request', approvalId: 'ap-1', toolCall: call },
        ],
        'tool-calls',
      ),
      { type: 'finish', finishReason: 'tool-calls', rawFinishReason: 'tool_use' },
    ])
    expect(r.ending).toEqual({ kind: 'suspended', pending: [{ id: 'ap-1', kind: 'approval', toolName: 'deleteFile', arguments: { path: '/tmp/x' } }] })
    expect(r.inferred).toBe(false)
    expect(r.finishReason).toBe('tool_use')
    expect(r.toolCalls).toBe(1)
  })

  it('an approval request answered by an output or a denial is no longer pending', async () => {
    const denied = await only([
      { type: 'start' },
      { type: 'tool-input-available', toolCallId: 'c1', toolName: 'rm', input: {} },
      { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' },
      { type: 'tool-output-denied', toolCallId: 'c1' },
      { type: 'start-step' },
      { type: 'text-delta', id: 't', delta: 'Not deleted.' },
      { type: 'finish-step' },
      { type: 'finish' },
    ])
    expect(denied.ending).toEqual({ kind: 'answered' })
    expect(denied.response).toBe('Not deleted.')
  })

  it('a UI finish without finishReason → answered (corpus convention); with an open approval → suspended', async () => {
    const a = await only([
      { type: 'start', messageId: 'msg-1' },
      { type: 'text-start', id: 'a' },
      { type: 'text-delta', id: 'a', delta: 'Hi' },
      { type: 'text-end', id: 'a' },
      { type: 'finish' },
    ])
    expect(a.ending).toEqual({ kind: 'answered' })
    expect(a.sessionId).toBe('msg-1')
    expect(a.finishReason).toBeNull()
    expect(a.response).toBe('Hi')
    const s = await only([
      { type: 'start' },
      { type: 'tool-input-start', toolCallId: 'c1', toolName: 'send_mail' },
      { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: '{"to":' },
      { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: '"a@b.c"}' },
      { type: 'tool-approval-request', approvalId: 'ap', toolCallId: 'c1' },
      { type: 'finish' },
    ])
    expect(s.ending).toEqual({ kind: 'suspended', pending: [{ id: 'ap', kind: 'approval', toolName: 'send_mail', arguments: { to: 'a@b.c' } }] })
  })

  it('no finish and no error → unfinished with the last part type', async () => {
    const r = await only([{ type: 'start' }, { type: 'start-step' }, { type: 'text-delta', id: 't', text: 'trunc' }])
    expect(r.ending).toEqual({ kind: 'unfinished', lastEventType: 'text-delta' })
    expect(r.finishReason).toBeNull()
    expect(r.response).toBeNull()
  })

  it('K7: a late error or abort after the finish is a diagnostic; the answer stands', async () => {
    const r = await only([
      { type: 'start' },
      ...step(['Done.']),
      { type: 'finish', finishReason: 'stop' },
      { type: 'error', error: { message: 'connection reset on close' } },
      { type: 'abort' },
      { type: 'finish', finishReason: 'error' },
    ])
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBe('Done.')
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      'ignored an error part after the run had finished',
      'ignored an abort part after the run had finished',
      'ignored a second finish part for the same run',
    ])
    expect(r.source?.lastLine).toBe(10)
  })
})

describe('ai-sdk: usage (no cost anywhere)', () => {
  const steps = (withStepUsage: boolean) => [
    ...step(['a'], toolRound('c1', 't', {}), 'tool-calls', withStepUsage ? v5usage(100, 40, 20, 5) : undefined),
    ...step(['b'], [], 'stop', withStepUsage ? v5usage(200, 100, 30) : undefined),
  ]
  const expectedBuckets = { inputTokens: 160, cacheReadTokens: 140, cacheWriteTokens: 0, outputTokens: 50, reasoningTokens: 5 }

  it('K4: finish-step usages and finish.totalUsage are counted once; the same figures whether steps carried usage or not', async () => {
    const both = await only([{ type: 'start' }, ...steps(true), { type: 'finish', finishReason: 'stop', totalUsage: v5usage(300, 140, 50, 5) }])
    const totalOnly = await only([{ type: 'start' }, ...steps(false), { type: 'finish', finishReason: 'stop', totalUsage: v5usage(300, 140, 50, 5) }])
    const stepsOnly = await only([{ type: 'start' }, ...steps(true), { type: 'finish', finishReason: 'stop' }])
    for (const r of [both, totalOnly, stepsOnly]) {
      expect(r.usage).toMatchObject(expectedBuckets)
      expect(r.usage.byModel['gpt-5']).toEqual({ ...expectedBuckets, costUsd: null })
      expect(r.cost.totalUsd).toBeNull()
      expect(r.cost.complete).toBe(false)
    }
    // items: one per step when the steps carry the usage, one for the run's total otherwise
    expect(both.cost.missing).toBe(2)
    expect(stepsOnly.cost.missing).toBe(2)
    expect(totalOnly.cost.missing).toBe(1)
  })

  it('when the steps disagree with totalUsage, the total wins (never both)', async () => {
    const r = await only([
      { type: 'start' },
      ...step(['a'], [], 'stop', v5usage(10, 0, 1)),
      { type: 'finish', finishReason: 'stop', totalUsage: v5usage(50, 10, 7) },
    ])
    expect(r.usage).toMatchObject({ inputTokens: 40, cacheReadTokens: 10, outputTokens: 7 })
    expect(r.cost.missing).toBe(1)
  })

  it('v6 usage: inputTokenDetails / outputTokenDetails give disjoint buckets', async () => {
    const total = {
      inputTokens: 1000,
      inputTokenDetails: { noCacheTokens: 100, cacheReadTokens: 800, cacheWriteTokens: 100 },
      outputTokens: 300,
      outputTokenDetails: { textTokens: 200, reasoningTokens: 100 },
      totalTokens: 1300,
    }
    const r = await only([{ type: 'start' }, ...step(['x'], [], 'stop', undefined, 'claude-x'), { type: 'finish', finishReason: 'stop', totalUsage: total }])
    expect(r.usage).toEqual({
      inputTokens: 100,
      cacheReadTokens: 800,
      cacheWriteTokens: 100,
      outputTokens: 300,
      reasoningTokens: 100,
      byModel: { 'claude-x': { inputTokens: 100, cacheReadTokens: 800, cacheWriteTokens: 100, outputTokens: 300, reasoningTokens: 100, costUsd: null } },
    })
  })

  it('several models: the steps’ split by model is kept when their sum equals the total', async () => {
    const r = await only([
      { type: 'start' },
      ...step(['a'], [], 'tool-calls', v5usage(10, 0, 2), 'm-small'),
      ...step(['b'], [], 'stop', v5usage(20, 5, 3), 'm-large'),
      { type: 'finish', finishReason: 'stop', totalUsage: v5usage(30, 5, 5) },
    ])
    expect(Object.keys(r.usage.byModel).sort()).toEqual(['m-large', 'm-small'])
    expect(r.usage).toMatchObject({ inputTokens: 25, cacheReadTokens: 5, outputTokens: 5 })
  })

  it('a v5 cached count above the input count is read as input excluding the cache, with a diagnostic', async () => {
    const r = await only([
      { type: 'start' },
      { type: 'finish', finishReason: 'stop', totalUsage: { inputTokens: 12, cachedInputTokens: 900, outputTokens: 4 } },
    ])
    expect(r.usage).toMatchObject({ inputTokens: 12, cacheReadTokens: 900, outputTokens: 4 })
    expect(r.diagnostics.map((d) => d.message)).toEqual(['cached input tokens exceed the input tokens; read the input as excluding the cache'])
  })

  it('UI message streams have no usage: zero buckets and no priced items', async () => {
    const r = await only([{ type: 'start' }, { type: 'start-step' }, { type: 'text-delta', id: 'a', delta: 'x' }, { type: 'finish-step' }, { type: 'finish' }])
    expect(r.usage).toEqual({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0, byModel: {} })
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 0 })
  })

  it('a count of the wrong type is ignored with a diagnostic', async () => {
    const r = await only([{ type: 'start' }, { type: 'finish', finishReason: 'stop', totalUsage: { inputTokens: '12', outputTokens: 4 } }])
    expect(r.usage).toMatchObject({ inputTokens: 0, outputTokens: 4 })
    expect(r.diagnostics.map((d) => d.message)).toEqual(['ignored a token count that is not a number'])
  })
})

describe('ai-sdk: runs, encodings and leniency', () => {
  it('a stream with several runs gives one result per run, with its own lines', async () => {
    const runs = await replay([
      { type: 'start', messageId: 'm1' },
      { type: 'text-delta', id: 'a', delta: 'one' },
      { type: 'finish' },
      { type: 'start', messageId: 'm2' },
      { type: 'text-delta', id: 'a', delta: 'two' },
      { type: 'abort' },
      { type: 'start', messageId: 'm3' },
      { type: 'text-delta', id: 'a', delta: 'three' },
    ])
    expect(runs.map((r) => [r.sessionId, r.ending.kind, r.response, r.source?.firstLine, r.source?.lastLine])).toEqual([
      ['m1', 'answered', 'one', 1, 3],
      ['m2', 'stopped', null, 4, 6],
      ['m3', 'unfinished', null, 7, 8],
    ])
  })

  it('a run that names no session after one that did has no session id (each run its own)', async () => {
    const runs = await replay([
      { type: 'start', messageId: 'm1' },
      { type: 'text-delta', id: 'a', delta: 'one' },
      { type: 'finish' },
      { type: 'start' },
      { type: 'text-delta', id: 'a', delta: 'two' },
      { type: 'finish' },
      { type: 'start', messageId: 'm1' },
      { type: 'finish' },
    ])
    expect(runs.map((r) => [r.sessionId, r.response])).toEqual([
      ['m1', 'one'],
      [null, 'two'],
      ['m1', null],
    ])
  })

  it('content after a finish with no start begins the next run', async () => {
    const runs = await replay([
      { type: 'text-delta', id: 'a', delta: 'one' },
      { type: 'finish', finishReason: 'stop' },
      { type: 'text-delta', id: 'b', delta: 'two' },
      { type: 'finish', finishReason: 'length' },
    ])
    expect(runs.map((r) => [r.ending.kind, r.response])).toEqual([
      ['answered', 'one'],
      ['cut_off', 'two'],
    ])
  })

  it('SSE: event/id/retry/comment/blank lines are skipped; [DONE] ends the run (replaying, it is handed out when the next run begins)', () => {
    const emitted: RunResult[] = []
    const reader = aiSdkReader((r) => emitted.push(r), { file: 'live.sse' })
    const lines = [
      ': keep-alive',
      'event: message',
      'id: 7',
      'retry: 100',
      'data: {"type":"start"}',
      'data:{"type":"text-delta","id":"a","delta":"hey"}',
      'data: {"type":"finish"}',
    ]
    lines.forEach((l, i) => expect(reader.line(l, i + 1, false)).toBeUndefined())
    expect(emitted).toHaveLength(0) // a late part could still belong to the run
    reader.line('data: [DONE]', 8, false)
    // the fold holds a closed run until the next run's content (replay, every format): the next part shows it
    reader.line('data: {"type":"start"}', 9, false)
    expect(emitted).toHaveLength(1)
    expect(emitted[0]?.ending).toEqual({ kind: 'answered' })
    expect(emitted[0]?.response).toBe('hey')
    expect(emitted[0]?.source).toEqual({ file: 'live.sse', firstLine: 5, lastLine: 7 })
    reader.end()
    expect(emitted).toHaveLength(2)
    expect(emitted[1]?.source).toEqual({ file: 'live.sse', firstLine: 9, lastLine: 9 })
  })

  it('SSE, live: [DONE] emits a run that has no finish at once', () => {
    const emitted: RunResult[] = []
    const reader = aiSdkReader((r) => emitted.push(r), { file: 'live.sse', live: true })
    const lines = [
      ': keep-alive',
      'event: message',
      'data: {"type":"start"}',
      'data:{"type":"text-delta","id":"a","delta":"hey"}',
      'data: {"type":"error","errorText":"boom"}',
    ]
    lines.forEach((l, i) => expect(reader.line(l, i + 1, false)).toBeUndefined())
    expect(emitted).toHaveLength(0)
    reader.line('data: [DONE]', 6, false)
    expect(emitted).toHaveLength(1)
    expect(emitted[0]?.ending).toEqual({ kind: 'failed', reason: 'error', phase: 'stream', error: { message: 'boom' } })
    expect(emitted[0]?.source).toEqual({ file: 'live.sse', firstLine: 3, lastLine: 5 })
    reader.end()
    expect(emitted).toHaveLength(1)
  })

  it('live: a run is handed out at its finish; a later finish, error or abort is a note, never a run', () => {
    const emitted: RunResult[] = []
    const notes: Array<[number | undefined, string]> = []
    const reader = aiSdkReader((r) => emitted.push(r), { live: true, note: (line, message) => notes.push([line, message]) })
    const lines = ['{"type":"start"}', '{"type":"text-delta","id":"a","delta":"hi"}', '{"type":"finish","finishReason":"stop"}']
    lines.forEach((l, i) => reader.line(l, i + 1, false))
    expect(emitted.map((r) => [r.ending.kind, r.response])).toEqual([['answered', 'hi']])
    reader.line('{"type":"error","error":"socket closed"}', 4, false)
    reader.line('{"type":"finish","finishReason":"error"}', 5, false)
    reader.end()
    expect(emitted).toHaveLength(1)
    expect(notes).toEqual([
      [4, 'ignored a error part after the run had finished; its ending stands'],
      [5, 'ignored a finish part after the run had finished; its ending stands'],
    ])
  })

  it('non-JSON lines, non-objects and records without a type are diagnostics with their line; unknown types too; data-* parts are silent', async () => {
    const text = [
      'Starting server...',
      '42',
      '{"no":"type"}',
      '{"type":"start"}',
      '{"type":"data-weather","data":{"city":"Oslo"}}',
      '{"type":"mystery-part"}',
      '{"type":"text-delta","id":"a","delta":7}',
      '{"type":"finish","finishReason":"stop"}',
      '{"type":"finish-st',
    ].join('\n')
    const runs = await replayText(text)
    expect(runs).toHaveLength(1)
    const r = runs[0] as RunResult
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.diagnostics).toEqual([
      { line: 1, message: 'skipped a line that is not JSON' },
      { line: 2, message: 'skipped a record that is not a JSON object' },
      { line: 3, message: 'skipped a record without a string type' },
      { line: 6, message: 'skipped a part of unknown type "mystery-part"' },
      { line: 7, message: 'skipped a text part without string text: "text-delta"' },
      { line: 9, message: 'skipped the last line: it was cut off (no newline) and is not valid JSON' },
    ])
  })

  it('an input with no run gives one unfinished run; metadata alone does not make a run', async () => {
    const empty = await replayText('\n\n', 'ai-sdk')
    expect(empty.map((r) => r.ending)).toEqual([{ kind: 'unfinished' }])
    const meta = await replay([
      { type: 'message-metadata', messageMetadata: {} },
      { type: 'raw', rawValue: {} },
    ])
    expect(meta[0]?.ending).toEqual({ kind: 'unfinished' })
  })

  it('a long type name in a diagnostic is truncated to 60 characters, and no input value is echoed', async () => {
    const t = 'x'.repeat(500)
    const r = await only([{ type: 'start' }, { type: t, secret: 'hunter2' }, { type: 'finish' }])
    const msg = r.diagnostics[0]?.message ?? ''
    expect(msg.length).toBeLessThan(100)
    expect(msg).not.toContain('hunter2')
  })

  it('a 100,000-level nested value in a part never throws, as a line or in a document', () => {
    const deepText = '{"e":'.repeat(100_000) + '1' + '}'.repeat(100_000)
    const emitted: RunResult[] = []
    const reader = aiSdkReader((r) => emitted.push(r), {})
    const lines = ['{"type":"start"}', `{"type":"error","error":${deepText}}`, `{"type":"finish","finishReason":${deepText},"totalUsage":${deepText}}`]
    lines.forEach((l, i) => expect(reader.line(l, i + 1, false)).toBeUndefined())
    reader.end()
    expect(emitted.map((r) => r.ending)).toEqual([{ kind: 'failed', reason: 'error', error: { message: 'the stream reported an error without a message' } }])
    expect(() => JSON.stringify(emitted[0])).not.toThrow()
    const deep = JSON.parse(deepText) as unknown
    const runs = readAiSdkDocument(
      [
        { type: 'start' },
        { type: 'tool-approval-request', approvalId: 'a', toolCall: { toolCallId: 'c', toolName: 'x', input: 1 } },
        { type: 'finish', finishReason: deep },
        deep,
      ],
      {},
    )
    expect(runs.map((r) => r.ending.kind)).toEqual(['suspended'])
  })

  it('detection: fullStream JSONL is ai-sdk; other tools’ lines score 0', () => {
    const sniff = aiSdkFormat.sniffLines
    expect(sniff?.([{ type: 'start' }, { type: 'start-step', request: {} }, { type: 'text-delta', id: 'a', text: 'x' }])).toBeGreaterThan(0.6)
    expect(sniff?.([{ type: 'thread.started', thread_id: 'x' }, { type: 'turn.started' }, { type: 'error', message: 'x' }])).toBe(0)
    expect(
      sniff?.([
        { type: 'system', subtype: 'init' },
        { type: 'assistant', message: {} },
        { type: 'result', subtype: 'success' },
      ]),
    ).toBe(0)
    expect(sniff?.([{ type: 'init' }, { type: 'message', role: 'user' }, { type: 'result', status: 'success' }])).toBe(0)
    expect(sniff?.([{ type: 'turn/start', sessionId: 's', data: { turn: 1 } }])).toBe(0)
    expect(sniff?.([undefined, undefined])).toBe(0)
    // raw provider chunks are recognised, below the AI SDK's own parts
    const provider = sniff?.([{ type: 'message_start', message: {} }, { type: 'ping' }]) ?? 0
    expect(provider).toBeGreaterThan(0)
    expect(provider).toBeLessThanOrEqual(0.6)
  })

  it('auto-detects a fullStream JSONL through replayStream', async () => {
    const runs = await replayText(encode([{ type: 'start' }, ...step(['ok']), { type: 'finish', finishReason: 'stop' }], 'jsonl'), 'auto')
    expect(runs.map((r) => [r.format, r.ending.kind, r.response])).toEqual([['ai-sdk', 'answered', 'ok']])
  })
})
