/**
 * Synthetic Claude Code logs for each fault kind this format can show (shared/reference/bug-kinds.md) and the
 * ending, usage and run rules of src/formats/claudeCode.ts. Expected values are the right answers, not what a
 * buggy tool reported.
 */
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { RunResult } from '../../src/core/RunResult.js'
import { claudeCodeFormat, createClaudeCodeReader, sniffClaudeCodeLines } from '../../src/formats/claudeCode.js'
import { replayStream } from '../../src/node/replay.js'

const SID = 'sess-1'

/** Feeds records (objects are JSON-encoded, strings passed as lines) to a fresh reader; returns the runs. */
const read = (records: ReadonlyArray<unknown>, subagent?: boolean): Array<RunResult> => {
  const runs: Array<RunResult> = []
  const r = createClaudeCodeReader((x) => runs.push(x), { file: null }, subagent === undefined ? {} : { subagent })
  records.forEach((rec, i) => {
    expect(r.line(typeof rec === 'string' ? rec : JSON.stringify(rec), i + 1, false)).toBeUndefined()
  })
  r.end()
  return runs
}
const last = (runs: ReadonlyArray<RunResult>): RunResult => runs[runs.length - 1] as RunResult

// --- stream-json builders ---
const init = (sid = SID): object => ({ type: 'system', subtype: 'init', session_id: sid, tools: ['Bash'], model: 'claude-x', claude_code_version: '2.1.0' })
const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0): object => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: cacheRead,
  cache_creation_input_tokens: cacheWrite,
})
const asst = (id: string, content: ReadonlyArray<object>, extra: Record<string, unknown> = {}, msgExtra: Record<string, unknown> = {}): object => ({
  type: 'assistant',
  session_id: SID,
  parent_tool_use_id: null,
  message: { id, model: 'claude-x', role: 'assistant', content, stop_reason: null, usage: usage(1, 1), ...msgExtra },
  ...extra,
})
const text = (t: string): object => ({ type: 'text', text: t })
const toolUse = (id: string, name: string, input: unknown = {}): object => ({ type: 'tool_use', id, name, input })
const userText = (t: string, parent: string | null = null): object => ({
  type: 'user',
  session_id: SID,
  parent_tool_use_id: parent,
  message: { role: 'user', content: [{ type: 'text', text: t }] },
})
const toolResult = (id: string, content: string, isError = false, parent: string | null = null): object => ({
  type: 'user',
  session_id: SID,
  parent_tool_use_id: parent,
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }] },
})
const modelUsage = (input: number, output: number, cacheRead: number, cacheWrite: number, cost?: number): object => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadInputTokens: cacheRead,
  cacheCreationInputTokens: cacheWrite,
  webSearchRequests: 0,
  ...(cost !== undefined ? { costUSD: cost } : {}),
  contextWindow: 200000,
})
const result = (over: Record<string, unknown> = {}): object => ({
  type: 'result',
  subtype: 'success',
  is_error: false,
  duration_ms: 1200,
  num_turns: 1,
  result: 'ok',
  session_id: SID,
  total_cost_usd: 0.01,
  usage: usage(1, 1),
  modelUsage: { 'claude-x': modelUsage(1, 1, 0, 0, 0.01) },
  permission_denials: [],
  ...over,
})

describe('K6: is_error beats subtype success', () => {
  it('is failed; the result text is the error message and response stays null', () => {
    const runs = read([
      init(),
      asst('syn-1', [text('API Error: Rate limit reached')], { error: 'rate_limit', is_api_error_message: true }, { model: '<synthetic>', usage: usage(0, 0) }),
      // as Claude Code writes it (shared/corpus claude-error.jsonl): no model ran, so the result's usage is all zero
      result({ is_error: true, result: 'API Error: Rate limit reached', api_error_status: 429, total_cost_usd: 0, modelUsage: {}, usage: usage(0, 0) }),
    ])
    expect(runs).toHaveLength(1)
    const r = last(runs)
    expect(r.ending).toEqual({ kind: 'failed', reason: 'provider_error', error: { message: 'API Error: Rate limit reached', code: 429 } })
    expect(r.response).toBeNull()
    expect(r.finishReason).toBe('success')
    expect(r.usage.byModel).toEqual({})
  })
  it('a plain is_error with subtype success and no API detail is failed error', () => {
    const r = last(read([init(), asst('m1', [text('partial')]), result({ is_error: true, result: 'Something broke' })]))
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'Something broke' } })
    expect(r.response).toBeNull()
  })
})

describe('K7: a second result for one turn', () => {
  it('the success answer stands; the late error result is a diagnostic of that run', () => {
    const runs = read([
      init(),
      asst('m1', [text('The answer')]),
      result({ result: 'The answer', total_cost_usd: 0.02, modelUsage: { 'claude-x': modelUsage(10, 5, 0, 0, 0.02) } }),
      { type: 'system', subtype: 'status', session_id: SID },
      result({ subtype: 'error_during_execution', is_error: true, errors: ['process exited'], result: undefined, total_cost_usd: 0.02 }),
    ])
    expect(runs).toHaveLength(1)
    const r = last(runs)
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBe('The answer')
    expect(r.cost.totalUsd).toBe(0.02)
    expect(r.diagnostics).toHaveLength(1)
    expect(r.diagnostics[0]?.line).toBe(5)
    expect(r.diagnostics[0]?.message).toContain('ignored a further terminal record')
    expect(r.source).toEqual({ file: null, firstLine: 1, lastLine: 5 })
  })
  it('a result after new input is a new run, and the earlier run is handed out before it', () => {
    const runs = read([
      init(),
      asst('m1', [text('one')]),
      result({ result: 'one' }),
      asst('m2', [text('two')]),
      result({ result: 'two', total_cost_usd: 0.03, num_turns: 2, modelUsage: { 'claude-x': modelUsage(2, 2, 0, 0, 0.03) } }),
    ])
    expect(runs.map((r) => [r.ending.kind, r.response, r.diagnostics.length])).toEqual([
      ['answered', 'one', 0],
      ['answered', 'two', 0],
    ])
  })
})

describe('K8: a caller interrupt is not an execution error', () => {
  it('error_during_execution after "[Request interrupted by user]" is stopped by caller', () => {
    const r = last(
      read([
        init(),
        asst('m1', [toolUse('t1', 'Bash', { command: 'sleep 100' })]),
        userText('[Request interrupted by user]'),
        result({ subtype: 'error_during_execution', is_error: true, result: undefined, errors: ['[ede_diagnostic] aborted'] }),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'stopped', by: 'caller' })
    expect(r.finishReason).toBe('error_during_execution')
    expect(r.response).toBeNull()
  })
  it('terminal_reason aborted_streaming / aborted_tools is stopped by caller even with is_error', () => {
    for (const tr of ['aborted_streaming', 'aborted_tools']) {
      const r = last(read([init(), asst('m1', [text('x')]), result({ subtype: 'error_during_execution', is_error: true, terminal_reason: tr })]))
      expect(r.ending).toEqual({ kind: 'stopped', by: 'caller' })
      expect(r.finishReason).toBe(tr)
    }
  })
  it('error_during_execution without an interrupt is failed, with the errors as the message', () => {
    const r = last(
      read([
        init(),
        asst('m1', [text('x')]),
        result({ subtype: 'error_during_execution', is_error: true, result: undefined, errors: ['tool crashed', 'again'] }),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'tool crashed; again' } })
  })
  it('hook_stopped / stop_hook_prevented is stopped by hook', () => {
    for (const tr of ['hook_stopped', 'stop_hook_prevented']) {
      expect(last(read([init(), asst('m1', [text('x')]), result({ terminal_reason: tr })])).ending).toEqual({ kind: 'stopped', by: 'hook' })
    }
  })
})

describe('K9: a subagent result is never the run result', () => {
  it('subagent messages (parent_tool_use_id) neither answer nor end the run; the Task is a child', () => {
    const runs = read([
      init(),
      asst('m1', [toolUse('task-1', 'Task', { prompt: 'look', subagent_type: 'general-purpose' })]),
      userText('look', 'task-1'),
      { ...(asst('sub-1', [text('Subagent final answer')]) as Record<string, unknown>), parent_tool_use_id: 'task-1' },
      toolResult('task-1', 'summary from the subagent'),
      asst('m2', [text('Main answer')]),
      result({ result: 'Main answer' }),
    ])
    expect(runs).toHaveLength(1)
    const r = last(runs)
    expect(r.response).toBe('Main answer')
    expect(r.children).toEqual([{ sessionId: 'task-1', ending: { kind: 'answered' }, finishReason: null }])
  })
  it('a stream cut after the subagent answered is unfinished, not answered with the subagent text', () => {
    const r = last(
      read([
        init(),
        asst('m1', [toolUse('task-1', 'Task', { prompt: 'look' })]),
        { ...(asst('sub-1', [text('Subagent final answer')]) as Record<string, unknown>), parent_tool_use_id: 'task-1' },
      ]),
    )
    expect(r.ending).toEqual({ kind: 'unfinished', lastEventType: 'assistant' })
    expect(r.response).toBeNull()
    expect(r.children.map((c) => [c.sessionId, c.ending.kind])).toEqual([['task-1', 'unfinished']])
  })
  it('a result of another session (a background subagent) becomes a child, not the end of the run', () => {
    const runs = read([
      init(),
      asst('m1', [toolUse('task-bg', 'Agent', { prompt: 'background', run_in_background: true })]),
      toolResult('task-bg', 'launched'),
      result({ session_id: 'bg-session', result: 'background summary', total_cost_usd: 0.5 }),
      asst('m2', [text('Main answer')]),
      result({ result: 'Main answer' }),
    ])
    expect(runs).toHaveLength(1)
    const r = last(runs)
    expect(r.response).toBe('Main answer')
    expect(r.cost.totalUsd).toBe(0.01)
    expect(r.children.map((c) => [c.sessionId, c.ending.kind])).toEqual([
      ['task-bg', 'answered'],
      ['bg-session', 'answered'],
    ])
  })
  it('task_started / task_notification tasks are children with their status', () => {
    const r = last(
      read([
        init(),
        asst('m1', [toolUse('b1', 'Bash', { command: 'make', run_in_background: true })]),
        { type: 'system', subtype: 'task_started', task_id: 'k1', tool_use_id: 'b1', session_id: SID },
        { type: 'system', subtype: 'task_started', task_id: 'k2', session_id: SID },
        { type: 'system', subtype: 'task_notification', task_id: 'k1', tool_use_id: 'b1', status: 'failed', session_id: SID },
        { type: 'system', subtype: 'task_notification', task_id: 'k2', status: 'stopped', session_id: SID },
        asst('m2', [text('done')]),
        result({ result: 'done' }),
      ]),
    )
    expect(r.children).toEqual([
      { sessionId: 'b1', ending: { kind: 'failed', reason: 'error' }, finishReason: 'failed' },
      { sessionId: 'k2', ending: { kind: 'stopped', by: 'parent' }, finishReason: 'stopped' },
    ])
  })
})

describe('K11: running totals are differenced per run, never summed', () => {
  it('the second result of a multi-turn process gives the change in cost, modelUsage and num_turns', () => {
    const runs = read([
      init(),
      asst('m1', [text('first')]),
      result({
        result: 'first',
        num_turns: 2,
        total_cost_usd: 0.1,
        modelUsage: { 'claude-x': modelUsage(100, 10, 1000, 50, 0.1) },
      }),
      asst('m2', [text('second')]),
      result({
        result: 'second',
        num_turns: 5,
        total_cost_usd: 0.25,
        modelUsage: { 'claude-x': modelUsage(250, 30, 3000, 50, 0.22), 'claude-haiku': modelUsage(7, 3, 0, 0, 0.03) },
      }),
    ])
    expect(runs).toHaveLength(2)
    const [a, b] = runs as [RunResult, RunResult]
    expect(a.cost).toEqual({ totalUsd: 0.1, complete: true, missing: 0 })
    expect(a.usage).toMatchObject({ inputTokens: 100, outputTokens: 10, cacheReadTokens: 1000, cacheWriteTokens: 50 })
    expect(a.turns).toBe(2)
    expect(b.cost).toEqual({ totalUsd: 0.15, complete: true, missing: 0 })
    // claude-x: 250-100, 30-10, 3000-1000, 50-50; claude-haiku is new: 7, 3, 0, 0
    expect(b.usage).toMatchObject({ inputTokens: 157, outputTokens: 23, cacheReadTokens: 2000, cacheWriteTokens: 0 })
    expect(b.usage.byModel['claude-x']).toEqual({
      inputTokens: 150,
      cacheReadTokens: 2000,
      cacheWriteTokens: 0,
      outputTokens: 20,
      reasoningTokens: 0,
      costUsd: 0.12,
    })
    expect(b.usage.byModel['claude-haiku']?.costUsd).toBe(0.03)
    expect(b.turns).toBe(3)
  })
  it('a new init session, or totals that go down, restart the baseline', () => {
    const runs = read([
      init('p1'),
      { ...(asst('m1', [text('a')]) as Record<string, unknown>), session_id: 'p1' },
      result({ session_id: 'p1', total_cost_usd: 0.4, num_turns: 4, modelUsage: { 'claude-x': modelUsage(40, 4, 0, 0, 0.4) } }),
      init('p2'),
      { ...(asst('m2', [text('b')]) as Record<string, unknown>), session_id: 'p2' },
      result({ session_id: 'p2', total_cost_usd: 0.05, num_turns: 1, modelUsage: { 'claude-x': modelUsage(5, 1, 0, 0, 0.05) } }),
    ])
    expect(runs.map((r) => [r.sessionId, r.cost.totalUsd, r.turns, r.usage.inputTokens])).toEqual([
      ['p1', 0.4, 4, 40],
      ['p2', 0.05, 1, 5],
    ])
  })
  it('permission denials restated by a later result are not repeated', () => {
    const denial = { tool_name: 'Bash', tool_use_id: 'd1', tool_input: { command: 'rm' } }
    const runs = read([
      init(),
      asst('m1', [text('a')]),
      result({ permission_denials: [denial] }),
      asst('m2', [text('b')]),
      result({ total_cost_usd: 0.02, permission_denials: [denial, { tool_name: 'Write', tool_use_id: 'd2' }] }),
    ])
    expect(runs.map((r) => r.permissionDenials)).toEqual([[{ toolName: 'Bash', toolCallId: 'd1' }], [{ toolName: 'Write', toolCallId: 'd2' }]])
    expect(runs.every((r) => r.ending.kind === 'answered')).toBe(true)
  })
})

describe('K12: a missing cost is not zero', () => {
  it('a model without costUSD makes totalUsd null, complete false, and counts it missing', () => {
    const r = last(
      read([
        init(),
        asst('m1', [text('a')]),
        result({ total_cost_usd: 0.05, modelUsage: { 'claude-x': modelUsage(10, 1, 0, 0, 0.05), 'custom-proxy-model': modelUsage(20, 2, 0, 0) } }),
      ]),
    )
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
    expect(r.usage.byModel['claude-x']?.costUsd).toBe(0.05)
    expect(r.usage.byModel['custom-proxy-model']?.costUsd).toBeNull()
    expect(r.usage.inputTokens).toBe(30)
  })
  it('a result without total_cost_usd has a missing cost', () => {
    const r = last(read([init(), asst('m1', [text('a')]), result({ total_cost_usd: undefined, modelUsage: undefined })]))
    expect(r.cost.totalUsd).toBeNull()
    expect(r.cost.complete).toBe(false)
    expect(r.cost.missing).toBeGreaterThan(0)
  })
  it('a stream without a result has every message unpriced', () => {
    const r = last(read([init(), asst('m1', [text('a')]), asst('m2', [text('b')])]))
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 2 })
  })
})

describe('K13: provider cut-offs are visible', () => {
  it('stop_reason max_tokens on the result is cut_off max_tokens, with the text kept', () => {
    const r = last(read([init(), asst('m1', [text('half an ans')]), result({ result: 'half an ans', stop_reason: 'max_tokens' })]))
    expect(r.ending).toEqual({ kind: 'cut_off', finishReason: 'max_tokens' })
    expect(r.response).toBe('half an ans')
    expect(r.finishReason).toBe('success')
  })
  it('refusal and model_context_window_exceeded', () => {
    expect(last(read([init(), result({ stop_reason: 'refusal' })])).ending).toEqual({ kind: 'cut_off', finishReason: 'refusal' })
    expect(last(read([init(), result({ stop_reason: 'model_context_window_exceeded' })])).ending).toEqual({ kind: 'cut_off', finishReason: 'context_window' })
  })
  it('falls back to the last root assistant stop_reason or its max_output_tokens error when the result has none', () => {
    expect(last(read([init(), asst('m1', [text('x')], {}, { stop_reason: 'max_tokens' }), result({})])).ending).toEqual({
      kind: 'cut_off',
      finishReason: 'max_tokens',
    })
    expect(last(read([init(), asst('m1', [text('x')], { error: 'max_output_tokens' }), result({})])).ending).toEqual({
      kind: 'cut_off',
      finishReason: 'max_tokens',
    })
  })
})

describe('K14: unknown terminal reasons never crash and are never answered', () => {
  it('an unknown terminal_reason is failed unrecognized with the raw string kept', () => {
    const r = last(read([init(), asst('m1', [text('x')]), result({ terminal_reason: 'quantum_decoherence' })]))
    expect(r.ending).toEqual({ kind: 'failed', reason: 'unrecognized', raw: 'quantum_decoherence' })
    expect(r.finishReason).toBe('quantum_decoherence')
    expect(r.response).toBeNull()
  })
  it('an unknown subtype is failed unrecognized too (with or without is_error)', () => {
    expect(last(read([init(), result({ subtype: 'error_new_kind', is_error: true, result: 'boom' })])).ending).toEqual({
      kind: 'failed',
      reason: 'unrecognized',
      error: { message: 'boom' },
      raw: 'error_new_kind',
    })
    expect(last(read([init(), result({ subtype: 'partial_success' })])).ending).toEqual({ kind: 'failed', reason: 'unrecognized', raw: 'partial_success' })
  })
  it('an unknown terminal_reason next to a limit subtype keeps the limit', () => {
    expect(last(read([init(), result({ subtype: 'error_max_turns', is_error: true, terminal_reason: 'new_limit_kind' })])).ending.kind).toBe('limit')
  })
})

describe('limits, suspension and other endings', () => {
  it('error_max_turns with is_error is limit max_turns with the configured figure', () => {
    const r = last(
      read([init(), result({ subtype: 'error_max_turns', is_error: true, num_turns: 6, result: undefined, errors: ['Reached maximum number of turns (5)'] })]),
    )
    expect(r.ending).toEqual({ kind: 'limit', reason: 'max_turns', field: 'num_turns', actual: 6, limit: 5 })
    expect(r.finishReason).toBe('error_max_turns')
  })
  it('budget limits from the subtype or terminal_reason', () => {
    expect(
      last(read([init(), result({ subtype: 'error_max_budget_usd', is_error: true, total_cost_usd: 1.02, errors: ['Reached maximum budget ($1)'] })])).ending,
    ).toEqual({
      kind: 'limit',
      reason: 'cost_limit',
      field: 'total_cost_usd',
      actual: 1.02,
      limit: 1,
    })
    expect(last(read([init(), result({ terminal_reason: 'budget_exhausted', total_cost_usd: 0.5 })])).ending).toMatchObject({
      kind: 'limit',
      reason: 'cost_limit',
      actual: 0.5,
    })
    expect(last(read([init(), result({ subtype: 'error_max_structured_output_retries', is_error: true })])).ending).toEqual({
      kind: 'limit',
      reason: 'structured_output_retries',
    })
  })
  it('tool_deferred is suspended with the deferred call pending', () => {
    const r = last(
      read([
        init(),
        asst('m1', [toolUse('toolu_1', 'Bash', { command: 'rm -rf build' })]),
        result({ terminal_reason: 'tool_deferred', result: '', deferred_tool_use: { id: 'toolu_1', name: 'Bash', input: { command: 'rm -rf build' } } }),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'suspended', pending: [{ id: 'toolu_1', kind: 'approval', toolName: 'Bash', arguments: { command: 'rm -rf build' } }] })
    expect(r.finishReason).toBe('tool_deferred')
  })
  it('structured_output, duration and session id come from the result', () => {
    const r = last(read([init(), result({ structured_output: { ok: true }, duration_ms: 4321 })]))
    expect(r.structuredOutput).toEqual({ ok: true })
    expect(r.durationMs).toBe(4321)
    expect(r.sessionId).toBe(SID)
  })
  it('api_retry records and permission denials do not fail or end the run', () => {
    const runs = read([
      init(),
      { type: 'system', subtype: 'api_retry', attempt: 1, max_retries: 10, error_status: 429, error: 'rate_limit', session_id: SID },
      asst('m1', [toolUse('t1', 'Write', { file_path: '/x' })]),
      toolResult('t1', 'Claude requested permissions to write to /x, but you have not granted it yet.', true),
      { type: 'system', subtype: 'api_retry', attempt: 2, max_retries: 10, error_status: 529, session_id: SID },
      asst('m2', [text('I could not write the file.')]),
      result({ result: 'I could not write the file.', permission_denials: [{ tool_name: 'Write', tool_use_id: 't1', tool_input: {} }] }),
    ])
    expect(runs).toHaveLength(1)
    expect(last(runs).ending).toEqual({ kind: 'answered' })
    expect(last(runs).permissionDenials).toEqual([{ toolName: 'Write', toolCallId: 't1' }])
  })
})

describe('streams without a result', () => {
  it('is unfinished, with the last record type', () => {
    const r = last(read([init(), asst('m1', [toolUse('t1', 'Bash')]), toolResult('t1', 'ok')]))
    expect(r.ending).toEqual({ kind: 'unfinished', lastEventType: 'user' })
    expect(r.finishReason).toBeNull()
    expect(r.response).toBeNull()
    expect(r.inferred).toBe(false)
  })
  it('is failed in phase stream when the last word was a synthetic API-error message', () => {
    const r = last(read([init(), asst('syn', [text('API Error: 500 overloaded')], { error: 'server_error' }, { model: '<synthetic>' })]))
    expect(r.ending).toEqual({
      kind: 'failed',
      reason: 'provider_error',
      phase: 'stream',
      error: { message: 'API Error: 500 overloaded', code: 'server_error' },
    })
  })
  it('an empty input, or one with only banners, gives one unfinished run', () => {
    expect(read([]).map((r) => r.ending)).toEqual([{ kind: 'unfinished' }])
    const only = read(['Reading additional input from stdin...', init()])
    expect(only).toHaveLength(1)
    expect(only[0]?.ending.kind).toBe('unfinished')
    expect(only[0]?.diagnostics).toEqual([{ line: 1, message: 'skipped a non-JSON line' }])
  })
  it('records after the last result (no content) do not make a run; their diagnostics join it', () => {
    const runs = read([
      init(),
      asst('m1', [text('a')]),
      result({ result: 'a' }),
      'garbage',
      { type: 'system', subtype: 'session_state_changed', state: 'idle', session_id: SID },
    ])
    expect(runs).toHaveLength(1)
    expect(runs[0]?.diagnostics).toEqual([{ line: 4, message: 'skipped a non-JSON line' }])
  })
})

describe('usage without modelUsage or result usage: assistant messages, deduped by message.id', () => {
  it('copies of one message count once, with the last copy', () => {
    const r = last(
      read([
        init(),
        asst('m1', [text('thinking aloud')], {}, { usage: usage(5, 1, 100, 10) }),
        asst('m1', [toolUse('t1', 'Read')], {}, { usage: usage(5, 1, 100, 10) }),
        asst('m1', [toolUse('t2', 'Read')], {}, { usage: usage(5, 48, 100, 10) }),
        toolResult('t1', 'a'),
        asst('m2', [text('done')], {}, { usage: usage(3, 7, 200, 0) }),
        result({ result: 'done', modelUsage: {}, usage: undefined, total_cost_usd: 0.004 }),
      ]),
    )
    // m1 once (last copy: 5 / 48 / 100 / 10) + m2 (3 / 7 / 200 / 0)
    expect(r.usage).toMatchObject({ inputTokens: 8, outputTokens: 55, cacheReadTokens: 300, cacheWriteTokens: 10 })
    // one model: the run's total_cost_usd is its cost
    expect(r.usage.byModel['claude-x']?.costUsd).toBe(0.004)
    expect(r.cost).toEqual({ totalUsd: 0.004, complete: true, missing: 0 })
    expect(r.toolCalls).toBe(2)
  })
  it('a usage object with a bad count is a diagnostic, not a crash', () => {
    const r = last(
      read([init(), asst('m1', [text('x')], {}, { usage: { input_tokens: 'many', output_tokens: 1 } }), result({ modelUsage: undefined, usage: undefined })]),
    )
    expect(r.diagnostics.map((d) => d.line)).toEqual([2])
    expect(r.usage.inputTokens).toBe(0)
  })
})

describe('lenient records', () => {
  it('a result whose fields have the wrong types is skipped with a diagnostic', () => {
    const r = last(read([init(), asst('m1', [text('x')]), { type: 'result', subtype: 7, is_error: 'no', session_id: SID }]))
    expect(r.ending.kind).toBe('unfinished')
    expect(r.diagnostics[0]?.message).toContain('"result"')
  })
  it('an assistant record whose message is not an object is skipped with a diagnostic', () => {
    const r = last(read([init(), { type: 'assistant', session_id: SID, message: 'oops' }, result({})]))
    expect(r.ending.kind).toBe('answered')
    expect(r.diagnostics).toEqual([{ line: 2, message: 'skipped a "assistant" record: its message is not an object' }])
  })
  it('unknown record types are diagnostics with the (truncated) type name', () => {
    const r = last(read([init(), { type: 'x'.repeat(100), session_id: SID }, result({})]))
    expect(r.diagnostics[0]?.message).toBe(`ignored a record of unknown type "${'x'.repeat(57)}..."`)
  })
})

// --- transcript builders ---
let uuidN = 0
const env = (type: string, extra: Record<string, unknown>): object => ({
  parentUuid: null,
  isSidechain: false,
  userType: 'external',
  cwd: '/tmp',
  sessionId: 'tx-1',
  version: '2.0.30',
  type,
  uuid: `u${++uuidN}`,
  timestamp: `2025-10-30T12:00:${String(uuidN % 60).padStart(2, '0')}.000Z`,
  ...extra,
})
const tUser = (content: unknown, extra: Record<string, unknown> = {}): object => env('user', { message: { role: 'user', content }, ...extra })
const tAsst = (id: string, content: ReadonlyArray<object>, extra: Record<string, unknown> = {}, msgExtra: Record<string, unknown> = {}): object =>
  env('assistant', { message: { id, model: 'claude-sonnet', role: 'assistant', content, stop_reason: null, usage: usage(3, 2, 10, 1), ...msgExtra }, ...extra })
const tResult = (id: string, content: string, isError = false, extra: Record<string, unknown> = {}): object =>
  tUser([{ type: 'tool_result', tool_use_id: id, content, is_error: isError }], extra)

describe('transcripts: inferred endings', () => {
  it('text last is answered; every ending is inferred', () => {
    const runs = read([tUser('hello'), tAsst('a1', [text('hi there')], {}, { stop_reason: 'end_turn' })])
    expect(runs.map((r) => [r.ending, r.response, r.finishReason, r.inferred])).toEqual([[{ kind: 'answered' }, 'hi there', 'end_turn', true]])
    expect(runs[0]?.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
  })
  it('a max_tokens stop_reason on the last text is cut_off', () => {
    expect(last(read([tUser('write a novel'), tAsst('a1', [text('Once upon')], {}, { stop_reason: 'max_tokens' })])).ending).toEqual({
      kind: 'cut_off',
      finishReason: 'max_tokens',
    })
  })
  it('an interrupt marker is stopped by caller', () => {
    const r = last(
      read([
        tUser('go'),
        tAsst('a1', [toolUse('t1', 'Bash')]),
        tResult('t1', 'Interrupted', true),
        tUser([{ type: 'text', text: '[Request interrupted by user for tool use]' }]),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'stopped', by: 'caller' })
    expect(r.response).toBeNull()
  })
  it('a synthetic API error message is failed', () => {
    const r = last(
      read([
        tUser('go'),
        tAsst(
          'syn',
          [text('API Error: 529 {"type":"overloaded_error"}')],
          { isApiErrorMessage: true, error: 'overloaded' },
          { model: '<synthetic>', usage: usage(0, 0) },
        ),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'failed', reason: 'provider_error', error: { message: 'API Error: 529 {"type":"overloaded_error"}', code: 'overloaded' } })
    expect(r.usage.byModel).toEqual({})
  })
  it('ends on a tool_use or a tool_result: unfinished', () => {
    expect(last(read([tUser('go'), tAsst('a1', [toolUse('t1', 'Bash')])])).ending).toEqual({ kind: 'unfinished', lastEventType: 'tool_use' })
    expect(last(read([tUser('go'), tAsst('a1', [toolUse('t1', 'Bash')]), tResult('t1', 'ok')])).ending).toEqual({
      kind: 'unfinished',
      lastEventType: 'tool_result',
    })
  })
  it('an unanswered AskUserQuestion is suspended with a question pending', () => {
    const q = { questions: [{ question: 'Which one?', options: [{ label: 'A' }, { label: 'B' }] }] }
    const r = last(read([tUser('pick'), tAsst('a1', [text('Let me ask.')]), tAsst('a1', [toolUse('q1', 'AskUserQuestion', q)])]))
    expect(r.ending).toEqual({ kind: 'suspended', pending: [{ id: 'q1', kind: 'question', toolName: 'AskUserQuestion', arguments: q }] })
    expect(r.turns).toBe(1)
  })
  it('an answered AskUserQuestion followed by text is answered', () => {
    const r = last(
      read([
        tUser('pick'),
        tAsst('a1', [toolUse('q1', 'AskUserQuestion', {})]),
        tResult('q1', 'User has answered your questions: A'),
        tAsst('a2', [text('A it is.')]),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.turns).toBe(2)
  })
  it('a max_turns_reached attachment is a limit', () => {
    const r = last(
      read([
        tUser('go'),
        tAsst('a1', [toolUse('t1', 'Bash')]),
        tResult('t1', 'ok'),
        env('attachment', { attachment: { type: 'max_turns_reached', maxTurns: 3, turnCount: 3 } }),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'limit', reason: 'max_turns', field: 'turns', actual: 3, limit: 3 })
  })
})

describe('transcripts: runs', () => {
  it('each real prompt starts a run; slash commands, local command output, meta and hook feedback do not', () => {
    const runs = read([
      tUser('Caveat: The messages below were generated by the user while running local commands.', { isMeta: true }),
      tUser('<command-name>/clear</command-name>\n<command-message>clear</command-message>'),
      tUser('<local-command-stdout></local-command-stdout>'),
      tUser('first question'),
      tAsst('a1', [text('first answer')]),
      tUser('<command-name>/cost</command-name>'),
      tUser('<local-command-stdout>Total cost: $0.00</local-command-stdout>'),
      tUser('second question'),
      tAsst('a2', [text('checking')]),
      tUser([{ type: 'text', text: 'Stop hook feedback:\nrun the tests' }]),
      tAsst('a3', [text('tests pass')]),
    ])
    expect(runs.map((r) => [r.ending.kind, r.response, r.source?.firstLine, r.source?.lastLine])).toEqual([
      ['answered', 'first answer', 1, 5],
      ['answered', 'tests pass', 6, 11],
    ])
    expect(runs[1]?.turns).toBe(2)
  })
  it('a slash command that makes the model work is a run of its own', () => {
    const runs = read([
      tUser('hello'),
      tAsst('a1', [text('hi')]),
      tUser('<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>'),
      tUser([{ type: 'text', text: 'Please analyze this codebase and create a CLAUDE.md file' }], { isMeta: true }),
      tAsst('a2', [text('Created CLAUDE.md')]),
    ])
    expect(runs.map((r) => r.response)).toEqual(['hi', 'Created CLAUDE.md'])
  })
  it('sidechain records never set the ending or the response, but add usage, tool calls and children', () => {
    const runs = read([
      tUser('research this'),
      tAsst('a1', [toolUse('task-1', 'Task', { prompt: 'dig' })]),
      tUser('dig', { isSidechain: true }),
      tAsst('s1', [toolUse('s-t1', 'WebSearch')], { isSidechain: true }, { model: 'claude-haiku', usage: usage(4, 40, 0, 0) }),
      tAsst('a2', [text('Main answer')]),
      tAsst('s2', [text('Subagent text written last')], { isSidechain: true }, { model: 'claude-haiku', usage: usage(1, 10, 0, 0) }),
    ])
    const r = last(runs)
    expect(runs).toHaveLength(1)
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBe('Main answer')
    expect(r.turns).toBe(2)
    expect(r.toolCalls).toBe(2)
    expect(r.usage.byModel['claude-haiku']).toMatchObject({ inputTokens: 5, outputTokens: 50 })
    expect(r.usage).toMatchObject({ inputTokens: 11, outputTokens: 54 })
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 4 })
    expect(r.children).toEqual([{ sessionId: 'task-1', ending: { kind: 'unfinished' }, finishReason: null }])
  })
  it('a Task result naming an agentId renames the child; an error result fails it', () => {
    const r = last(
      read([
        tUser('go'),
        tAsst('a1', [toolUse('task-1', 'Task', {}), toolUse('task-2', 'Task', {})]),
        tResult('task-1', 'summary', false, { toolUseResult: { status: 'completed', agentId: 'ag-1', content: [] } }),
        tResult('task-2', 'Agent type not found', true),
        tAsst('a2', [text('done')]),
      ]),
    )
    expect(r.children).toEqual([
      { sessionId: 'ag-1', ending: { kind: 'answered' }, finishReason: 'completed' },
      { sessionId: 'task-2', ending: { kind: 'failed', reason: 'error', error: { message: 'Agent type not found' } }, finishReason: null },
    ])
  })
  it('a subagent file (all sidechain, with agentId) is read as one run of its own', () => {
    const side = { isSidechain: true, agentId: 'ag-9' }
    const runs = read([
      tUser('dig', side),
      tAsst('s1', [toolUse('t1', 'Grep')], side),
      tResult('t1', 'found', false, side),
      tUser('more context', side),
      tAsst('s2', [text('Found it')], side),
    ])
    expect(runs.map((r) => [r.ending.kind, r.response])).toEqual([['answered', 'Found it']])
  })
})

describe('detection', () => {
  it('scores unmistakable shapes high and other tools\u2019 records 0', () => {
    expect(sniffClaudeCodeLines([init(), asst('m', [text('x')])])).toBe(1)
    expect(sniffClaudeCodeLines([tUser('hi'), tAsst('a', [text('x')])])).toBe(1)
    expect(sniffClaudeCodeLines([{ type: 'summary', summary: 's', leafUuid: 'l' }])).toBeGreaterThanOrEqual(0.9)
    expect(sniffClaudeCodeLines([[init(), result()]])).toBe(1)
    // native, codex exec, codex rollout, gemini stream-json, AI SDK parts, gemini session jsonl
    const others: Array<unknown> = [
      { type: 'turn/start', sessionId: 's', data: { turn: 1 } },
      { type: 'turn/end', sessionId: 's', seq: 2, data: { turn: 1, reason: { kind: 'completed' } } },
      { type: 'thread.started', thread_id: 't' },
      { type: 'turn.completed', usage: { input_tokens: 1, cached_input_tokens: 0, output_tokens: 1 } },
      { timestamp: '2025-01-01T00:00:00Z', type: 'session_meta', payload: { id: 'x' } },
      { type: 'init', timestamp: 't', session_id: 's', model: 'gemini' },
      { type: 'message', role: 'assistant', content: 'x', delta: true, timestamp: 't' },
      { type: 'result', status: 'success', stats: {}, timestamp: 't' },
      { type: 'text-delta', id: '1', delta: 'x' },
      { type: 'finish', finishReason: 'stop' },
      { sessionId: 's', projectHash: 'h', startTime: 't' },
      { id: 'm1', timestamp: 't', type: 'user', content: 'hi' },
    ]
    expect(sniffClaudeCodeLines(others)).toBe(0)
    for (const o of others) expect(sniffClaudeCodeLines([o])).toBe(0)
  })
  it('replayStream auto-detects a stream-json log given as text', async () => {
    const lines = [init(), asst('m1', [text('hi')]), result({ result: 'hi' })].map((x) => JSON.stringify(x)).join('\n')
    const runs: Array<RunResult> = []
    const out = await replayStream(Readable.from([Buffer.from(lines)]), (r) => runs.push(r))
    expect(out.format).toBe('claude-code')
    expect(runs.map((r) => r.response)).toEqual(['hi'])
  })
  it('readDocument reads a JSON array or a single result object', () => {
    expect(claudeCodeFormat.readDocument?.([init(), asst('m1', [text('hi')]), result({ result: 'hi' })], { file: 'x.json' }).map((r) => r.response)).toEqual([
      'hi',
    ])
    expect(claudeCodeFormat.readDocument?.(result({ result: 'solo' }), { file: null }).map((r) => [r.ending.kind, r.response, r.source])).toEqual([
      ['answered', 'solo', null],
    ])
  })
})
