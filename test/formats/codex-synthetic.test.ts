/**
 * The codex format on synthetic logs: the fault kinds of shared/reference/bug-kinds.md that Codex logs can show
 * (K1, K3, K7, K10, K11, K14), the usage conversions, and the run boundaries of both shapes.
 */
import { describe, expect, it } from 'vitest'
import type { RunResult } from '../../src/core/RunResult.js'
import { codexReader } from '../../src/formats/codex.js'
import { QUIET_MS } from '../../src/formats/types.js'
import { replayStream } from '../../src/node/replay.js'

/** Feeds lines (objects are serialised) to a fresh codex reader; every call must return undefined. */
const read = (lines: ReadonlyArray<string | object>): Array<RunResult> => {
  const runs: Array<RunResult> = []
  const reader = codexReader((r) => runs.push(r), { file: null })
  lines.forEach((l, i) => {
    expect(reader.line(typeof l === 'string' ? l : JSON.stringify(l), i + 1, false)).toBeUndefined()
  })
  reader.end()
  return runs
}

const only = (runs: ReadonlyArray<RunResult>): RunResult => {
  expect(runs).toHaveLength(1)
  return runs[0] as RunResult
}

// ---------------------------------------------------------------- exec --json
const thread = (id = 'th-1') => ({ type: 'thread.started', thread_id: id })
const turnStarted = { type: 'turn.started' }
const agent = (id: string, text: string) => ({ type: 'item.completed', item: { id, type: 'agent_message', text } })
const completed = (usage: object) => ({ type: 'turn.completed', usage })
const cmd = (kind: 'item.started' | 'item.completed', id: string) => ({
  type: kind,
  item: { id, type: 'command_execution', command: 'ls', aggregated_output: '', status: kind === 'item.started' ? 'in_progress' : 'completed' },
})

describe('codex exec --json: endings', () => {
  it('K1: the stream ends on a top-level error with no terminal event → failed in the stream phase', () => {
    const r = only(read([thread(), turnStarted, agent('item_0', 'partial'), { type: 'error', message: 'stream disconnected before completion' }]))
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', phase: 'stream', error: { message: 'stream disconnected before completion' } })
    expect(r.finishReason).toBeNull()
    expect(r.response).toBeNull()
    expect(r.sessionId).toBe('th-1')
  })

  it('an error followed by more work is not the last word: unfinished, not failed', () => {
    const r = only(read([thread(), turnStarted, { type: 'error', message: 'Reconnecting... 1/5' }, agent('item_0', 'text')]))
    expect(r.ending).toEqual({ kind: 'unfinished', lastEventType: 'item.completed' })
  })

  it('K10: turn.failed after a partial answer is failed, and the partial text is not the response', () => {
    const r = only(read([thread(), turnStarted, agent('item_0', 'half an answer'), { type: 'turn.failed', error: { message: 'boom' } }]))
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'boom' } })
    expect(r.finishReason).toBe('turn.failed')
    expect(r.response).toBeNull()
  })

  it('K10: an agent message with no terminal event (an interrupted turn emits none) is unfinished, never answered', () => {
    const r = only(read([thread(), turnStarted, agent('item_0', 'looks done')]))
    expect(r.ending).toEqual({ kind: 'unfinished', lastEventType: 'item.completed' })
    expect(r.response).toBeNull()
  })

  it('turn.failed without an error object takes the last error message, with a diagnostic', () => {
    const r = only(read([thread(), turnStarted, { type: 'error', message: 'Quota exceeded' }, { type: 'turn.failed' }]))
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'Quota exceeded' } })
    expect(r.diagnostics).toEqual([{ line: 4, message: 'turn.failed without an error object carrying a string message' }])
    const r2 = only(read([thread(), turnStarted, { type: 'turn.failed', error: 'nope' }]))
    expect(r2.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'turn failed' } })
  })

  it('K7: a second terminal record or a late error after turn.completed does not replace the answer', () => {
    const r = only(
      read([
        thread(),
        turnStarted,
        agent('item_0', 'done'),
        completed({ input_tokens: 10, cached_input_tokens: 0, output_tokens: 2 }),
        { type: 'error', message: 'exit' },
        { type: 'turn.failed', error: { message: 'late' } },
      ]),
    )
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBe('done')
    expect(r.finishReason).toBe('turn.completed')
    expect(r.diagnostics).toEqual([
      { line: 5, message: 'an error record came after the turn had ended; the ending stands' },
      { line: 6, message: 'ignored a turn.failed record after the turn had ended; the first ending stands' },
    ])
  })

  it('a request_user_input as the last record is suspended on one question', () => {
    const r = only(read([thread(), turnStarted, { type: 'request_user_input', id: 'r1', call_id: 'call-9', questions: [] }]))
    expect(r.ending).toEqual({ kind: 'suspended', pending: [{ id: 'call-9', kind: 'question' }] })
  })

  it('each terminal event ends a run; a turn.started while a turn is open ends the open one unfinished', () => {
    const runs = read([
      thread(),
      turnStarted,
      agent('item_0', 'first'),
      completed({ input_tokens: 100, output_tokens: 5 }),
      turnStarted,
      cmd('item.started', 'item_1'),
      turnStarted,
      agent('item_2', 'third'),
      completed({ input_tokens: 300, output_tokens: 15 }),
    ])
    expect(runs.map((r) => r.ending)).toEqual([{ kind: 'answered' }, { kind: 'unfinished', lastEventType: 'item.started' }, { kind: 'answered' }])
    expect(runs.map((r) => r.response)).toEqual(['first', null, 'third'])
    expect(runs.map((r) => r.source)).toEqual([
      { file: null, firstLine: 1, lastLine: 4 },
      { file: null, firstLine: 5, lastLine: 6 },
      { file: null, firstLine: 7, lastLine: 9 },
    ])
    expect(runs.map((r) => r.turns)).toEqual([1, 1, 1])
  })

  it('empty input, or only noise, gives one unfinished run carrying the diagnostics', () => {
    expect(only(read([])).ending).toEqual({ kind: 'unfinished' })
    const r = only(read(['Reading additional input from stdin...', '{"unrelated":true}', '[1,2]']))
    expect(r.ending).toEqual({ kind: 'unfinished' })
    expect(r.diagnostics).toEqual([
      { line: 1, message: 'skipped a line that is not JSON' },
      { line: 2, message: 'skipped a record that is not an object with a string type' },
      { line: 3, message: 'skipped a record that is not an object with a string type' },
    ])
    expect(r.source).toEqual({ file: null, firstLine: 1, lastLine: 3 })
    // Objects of an unknown type are ignored without a note (the formats grow).
    expect(only(read(['{"type":"something_new"}'])).diagnostics).toEqual([])
  })

  it('a cut-off last line is a diagnostic, not an error', () => {
    const runs: Array<RunResult> = []
    const reader = codexReader((x) => runs.push(x), { file: 'x.jsonl' })
    expect(reader.line(JSON.stringify(thread()), 1, false)).toBeUndefined()
    expect(reader.line(JSON.stringify(turnStarted), 2, false)).toBeUndefined()
    expect(reader.line('{"type":"item.comp', 3, true)).toBeUndefined()
    reader.end()
    expect(only(runs).ending).toEqual({ kind: 'unfinished', lastEventType: 'turn.started' })
    expect(only(runs).diagnostics).toEqual([{ line: 3, message: 'skipped the last line: it was cut off (no newline) and is not valid JSON' }])
  })
})

describe('codex exec --json: tool calls and usage', () => {
  it('counts completed tool items once per id; messages, reasoning and in-progress items are not tool calls', () => {
    const r = only(
      read([
        thread(),
        turnStarted,
        cmd('item.started', 'item_1'),
        cmd('item.completed', 'item_1'),
        cmd('item.completed', 'item_1'),
        cmd('item.started', 'item_2'),
        { type: 'item.completed', item: { id: 'item_3', type: 'file_change', changes: [], status: 'completed' } },
        { type: 'item.completed', item: { id: 'item_4', type: 'mcp_tool_call', server: 's', tool: 't', status: 'failed' } },
        { type: 'item.completed', item: { id: 'item_5', type: 'web_search', query: 'q' } },
        { type: 'item.completed', item: { id: 'item_6', type: 'collab_tool_call', tool: 'spawn_agent' } },
        { type: 'item.completed', item: { id: 'item_7', type: 'reasoning', text: 'hmm' } },
        { type: 'item.completed', item: { id: 'item_8', type: 'error', message: 'warning only' } },
        agent('item_9', 'ok'),
        completed({ input_tokens: 1, output_tokens: 1 }),
      ]),
    )
    expect(r.toolCalls).toBe(5)
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBe('ok')
  })

  it('converts to disjoint buckets: input minus cached and cache writes; reasoning stays inside output', () => {
    const r = only(
      read([
        thread(),
        turnStarted,
        completed({ input_tokens: 1000, cached_input_tokens: 200, cache_write_input_tokens: 100, output_tokens: 300, reasoning_output_tokens: 120 }),
      ]),
    )
    expect(r.usage).toMatchObject({ inputTokens: 700, cacheReadTokens: 200, cacheWriteTokens: 100, outputTokens: 300, reasoningTokens: 120 })
    expect(r.usage.byModel['unknown']).toEqual({
      inputTokens: 700,
      cacheReadTokens: 200,
      cacheWriteTokens: 100,
      outputTokens: 300,
      reasoningTokens: 120,
      costUsd: null,
    })
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
  })

  it('a second turn.completed with every count ≥ the first is a running total: it is differenced (K11)', () => {
    const runs = read([
      thread(),
      turnStarted,
      completed({ input_tokens: 1000, cached_input_tokens: 200, output_tokens: 50 }),
      turnStarted,
      completed({ input_tokens: 2500, cached_input_tokens: 900, output_tokens: 120 }),
    ])
    expect(runs.map((r) => r.usage.inputTokens)).toEqual([800, 800])
    expect(runs.map((r) => r.usage.cacheReadTokens)).toEqual([200, 700])
    expect(runs.map((r) => r.usage.outputTokens)).toEqual([50, 70])
    // The runs add up to the last running total, not to the sum of the totals.
    expect(runs.reduce((s, r) => s + r.usage.cacheReadTokens, 0)).toBe(900)
  })

  it('a second turn.completed with some count below the first is per-turn usage: taken as it is', () => {
    const runs = read([
      thread(),
      turnStarted,
      completed({ input_tokens: 1000, cached_input_tokens: 200, output_tokens: 50 }),
      turnStarted,
      completed({ input_tokens: 500, cached_input_tokens: 300, output_tokens: 80 }),
    ])
    expect(runs.map((r) => r.usage.inputTokens)).toEqual([800, 200])
    expect(runs.map((r) => r.usage.cacheReadTokens)).toEqual([200, 300])
    expect(runs.map((r) => r.usage.outputTokens)).toEqual([50, 80])
  })

  it('a new thread starts a new running total', () => {
    const runs = read([
      thread('a'),
      turnStarted,
      completed({ input_tokens: 1000, output_tokens: 50 }),
      thread('b'),
      turnStarted,
      completed({ input_tokens: 1500, output_tokens: 60 }),
    ])
    expect(runs.map((r) => r.sessionId)).toEqual(['a', 'b'])
    expect(runs.map((r) => r.usage.inputTokens)).toEqual([1000, 1500])
  })

  it('a usage that is not an object of counts is a diagnostic and is skipped; the turn still completed', () => {
    const r = only(read([thread(), turnStarted, completed({ input_tokens: '12' })]))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.usage.inputTokens).toBe(0)
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 0 })
    expect(r.diagnostics).toEqual([{ line: 3, message: 'skipped the usage of a turn.completed record: not an object of token counts' }])
  })
})

// ---------------------------------------------------------------- rollouts
let clock = Date.parse('2026-01-01T10:00:00.000Z')
const rec = (type: string, payload: unknown) => ({ timestamp: new Date((clock += 1000)).toISOString(), type, payload })
const ev = (payload: object) => rec('event_msg', payload)
const item = (payload: object) => rec('response_item', payload)
const meta = rec('session_meta', { id: 'sess-1', cli_version: '0.146.0', originator: 'codex_cli_rs' })
const ctx = (model = 'gpt-5-codex') => rec('turn_context', { cwd: '/tmp', model })
const envCtx = item({
  type: 'message',
  role: 'user',
  content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/tmp</cwd>\n</environment_context>' }],
})
const user = (text: string) => ev({ type: 'user_message', message: text })
const agentMsg = (text: string) => ev({ type: 'agent_message', message: text })
const assistant = (text: string) => item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] })
const call = (id: string) => item({ type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: id })
const output = (id: string, exit: number) =>
  item({ type: 'function_call_output', call_id: id, output: JSON.stringify({ output: 'x', metadata: { exit_code: exit, duration_seconds: 0.1 } }) })
const tokens = (input: number, cached: number, out: number, reasoning = 0) =>
  ev({
    type: 'token_count',
    info: {
      total_token_usage: {
        input_tokens: input,
        cached_input_tokens: cached,
        output_tokens: out,
        reasoning_output_tokens: reasoning,
        total_tokens: input + out,
      },
      last_token_usage: { input_tokens: 1, cached_input_tokens: 0, output_tokens: 1, reasoning_output_tokens: 0, total_tokens: 2 },
    },
  })
const complete = (last: string | null, extra: object = {}) => ev({ type: 'task_complete', last_agent_message: last, ...extra })
const aborted = (reason?: unknown) => ev(reason === undefined ? { type: 'turn_aborted' } : { type: 'turn_aborted', reason })

describe('codex rollouts: endings', () => {
  it('task_complete → answered with last_agent_message, its duration, finishReason as written; turn_complete is an alias', () => {
    const r = only(
      read([meta, envCtx, user('hi'), ev({ type: 'task_started', turn_id: 't1' }), ctx(), agentMsg('Hello'), complete('Hello!', { duration_ms: 1234 })]),
    )
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBe('Hello!')
    expect(r.finishReason).toBe('task_complete')
    expect(r.durationMs).toBe(1234)
    expect(r.inferred).toBe(false)
    expect(r.sessionId).toBe('sess-1')
    expect(r.turns).toBe(1)
    const r2 = only(read([meta, user('hi'), agentMsg('A'), ev({ type: 'turn_complete', last_agent_message: null })]))
    expect(r2.ending).toEqual({ kind: 'answered' })
    expect(r2.finishReason).toBe('turn_complete')
    expect(r2.response).toBe('A')
  })

  it('task_complete with an error → failed with its message and error info; response null', () => {
    const r = only(
      read([
        meta,
        user('hi'),
        agentMsg('partial'),
        complete(null, { error: { message: 'context window exceeded', codex_error_info: 'contextWindowExceeded' } }),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'context window exceeded', code: 'contextWindowExceeded' } })
    expect(r.response).toBeNull()
    expect(r.finishReason).toBe('task_complete')
    const r2 = only(
      read([meta, user('hi'), complete(null, { error: { message: 'slow down', codex_error_info: { modelCap: { model: 'm', reset_after_seconds: 5 } } } })]),
    )
    expect(r2.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'slow down', code: 'modelCap' } })
  })

  it('turn_aborted: interrupted, replaced and review_ended are stopped by the caller; budget_limited is a budget limit (K3)', () => {
    const end = (reason: string) => only(read([meta, user('go'), call('c1'), aborted(reason)]))
    expect(end('interrupted').ending).toEqual({ kind: 'stopped', by: 'caller', reason: 'interrupted' })
    expect(end('replaced').ending).toEqual({ kind: 'stopped', by: 'caller', reason: 'replaced' })
    expect(end('review_ended').ending).toEqual({ kind: 'stopped', by: 'caller', reason: 'review_ended' })
    expect(end('budget_limited').ending).toEqual({ kind: 'limit', reason: 'budget' })
    expect(end('budget_limited').finishReason).toBe('budget_limited')
    expect(end('interrupted').inferred).toBe(false)
  })

  it('K14: an unknown turn_aborted reason is failed unrecognized with the raw string kept; a missing one too', () => {
    const r = only(read([meta, user('go'), agentMsg('all done'), aborted('quota_gone_fishing')]))
    expect(r.ending).toEqual({ kind: 'failed', reason: 'unrecognized', raw: 'quota_gone_fishing' })
    expect(r.finishReason).toBe('quota_gone_fishing')
    expect(r.response).toBeNull()
    const r2 = only(read([meta, user('go'), agentMsg('all done'), aborted(42)]))
    expect(r2.ending).toEqual({ kind: 'failed', reason: 'unrecognized' })
    expect(r2.finishReason).toBe('turn_aborted')
    expect(r2.diagnostics).toEqual([{ line: 4, message: 'turn_aborted without a string reason' }])
  })

  it('K1: an error event as the last word with no task event → failed in the stream phase (inferred)', () => {
    const r = only(
      read([
        meta,
        user('go'),
        call('c1'),
        output('c1', 0),
        ev({ type: 'error', message: 'stream disconnected', codex_error_info: { responseStreamDisconnected: { httpStatusCode: 502 } } }),
      ]),
    )
    expect(r.ending).toEqual({
      kind: 'failed',
      reason: 'error',
      phase: 'stream',
      error: { message: 'stream disconnected', code: 'responseStreamDisconnected' },
    })
    expect(r.inferred).toBe(true)
    expect(r.finishReason).toBeNull()
  })

  it('K10 (0.40 rollouts, no task events): the ending is read from the last records and marked inferred', () => {
    const endsOn = (...tail: Array<object>) => only(read([meta, user('go'), ...tail]))
    expect(endsOn(call('c1')).ending).toEqual({ kind: 'unfinished', lastEventType: 'function_call' })
    expect(endsOn(call('c1'), output('c1', 0)).ending).toEqual({ kind: 'unfinished', lastEventType: 'function_call_output' })
    expect(endsOn(agentMsg('let me look'), call('c1'), output('c1', 0)).response).toBeNull()
    expect(endsOn().ending).toEqual({ kind: 'unfinished', lastEventType: 'user_message' })
    expect(endsOn(item({ type: 'reasoning', summary: [] })).ending).toEqual({ kind: 'unfinished', lastEventType: 'reasoning' })
    const r = endsOn(call('c1'), output('c1', 0), agentMsg('Done.'), assistant('Done.'))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.inferred).toBe(true)
    expect(r.response).toBe('Done.')
    expect(r.finishReason).toBeNull()
  })

  it('a session that writes task events: a turn without its task_complete is unfinished even after an agent message; an error as last word is still failed', () => {
    const runs = read([meta, user('one'), agentMsg('1'), complete('1'), user('two'), call('c1'), output('c1', 0), agentMsg('Bye'), tokens(50, 0, 5)])
    expect(runs.map((r) => [r.ending, r.response, r.inferred])).toStrictEqual([
      [{ kind: 'answered' }, '1', false],
      [{ kind: 'unfinished', lastEventType: 'agent_message' }, null, true],
    ])
    const started = read([meta, ev({ type: 'task_started' }), user('go'), agentMsg('half an answer')])
    expect(started.map((r) => r.ending)).toStrictEqual([{ kind: 'unfinished', lastEventType: 'agent_message' }])
    const failed = read([meta, user('one'), complete('1'), user('two'), ev({ type: 'error', message: 'stream disconnected' })])
    expect(failed[1]?.ending).toStrictEqual({ kind: 'failed', reason: 'error', phase: 'stream', error: { message: 'stream disconnected' } })
  })

  it('tool outputs with a non-zero exit code do not end the run', () => {
    const r = only(read([meta, user('go'), call('c1'), output('c1', 2), call('c2'), output('c2', 127), assistant('It failed twice, then I fixed it.')]))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.toolCalls).toBe(2)
    expect(r.response).toBe('It failed twice, then I fixed it.')
  })

  it('K7: a second ending for the same turn is a diagnostic; the first stands', () => {
    const r = only(read([meta, user('go'), agentMsg('ok'), complete('ok'), aborted('interrupted'), ev({ type: 'error', message: 'late' })]))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBe('ok')
    expect(r.diagnostics).toEqual([
      { line: 5, message: 'ignored a turn_aborted event after the turn had ended; the first ending stands' },
      { line: 6, message: 'an error event came after the turn had ended; the ending stands' },
    ])
  })
})

describe('codex rollouts: runs', () => {
  it('each user_message starts a run; environment_context items are not prompts; task_started joins its prompt in either order', () => {
    const runs = read([
      meta,
      envCtx,
      user('one'),
      ev({ type: 'task_started' }),
      agentMsg('1'),
      complete('1'),
      ev({ type: 'task_started' }),
      envCtx,
      user('two'),
      agentMsg('2'),
      complete('2'),
      user('three'),
      assistant('3'),
    ])
    // the third turn has no task_complete in a session whose build writes them: cut off, not answered
    expect(runs.map((r) => r.response)).toEqual(['1', '2', null])
    expect(runs.map((r) => r.ending)).toEqual([{ kind: 'answered' }, { kind: 'answered' }, { kind: 'unfinished', lastEventType: 'message' }])
    expect(runs.map((r) => r.inferred)).toEqual([false, false, true])
    expect(runs.map((r) => r.turns)).toEqual([1, 1, 1])
    expect(runs.map((r) => [r.source?.firstLine, r.source?.lastLine])).toEqual([
      [1, 6],
      [7, 11],
      [12, 13],
    ])
  })

  it('records after a turn ends and before the next prompt belong to the ended run', () => {
    const runs = read([
      meta,
      user('go'),
      call('c1'),
      tokens(100, 0, 10),
      aborted('interrupted'),
      call('c2'),
      output('c2', 0),
      tokens(250, 50, 20),
      user('again'),
      assistant('ok'),
      tokens(400, 150, 30),
    ])
    expect(runs.map((r) => r.ending.kind)).toEqual(['stopped', 'answered'])
    expect(runs[0]?.toolCalls).toBe(2)
    expect(runs[0]?.usage).toMatchObject({ inputTokens: 200, cacheReadTokens: 50, outputTokens: 20 })
    expect(runs[1]?.usage).toMatchObject({ inputTokens: 50, cacheReadTokens: 100, outputTokens: 10 })
  })

  it('K11: usage is the difference of running totals per run, repeated totals are not new responses, runs add up to the final total', () => {
    const runs = read([
      meta,
      ctx('gpt-5-codex'),
      tokens(50, 0, 0),
      user('one'),
      tokens(1000, 800, 40, 10),
      tokens(1000, 800, 40, 10),
      ev({ type: 'token_count', info: null, rate_limits: {} }),
      agentMsg('a'),
      tokens(2200, 1800, 90, 30),
      user('two'),
      ctx('gpt-5'),
      tokens(3500, 3000, 130, 30),
      agentMsg('b'),
    ])
    expect(runs).toHaveLength(2)
    const [a, b] = runs as [RunResult, RunResult]
    expect(a.usage).toMatchObject({ inputTokens: 2200 - 1800, cacheReadTokens: 1800, outputTokens: 90, reasoningTokens: 30 })
    expect(a.cost).toEqual({ totalUsd: null, complete: false, missing: 3 })
    expect(b.usage).toMatchObject({ inputTokens: 3500 - 3000 - (2200 - 1800), cacheReadTokens: 1200, outputTokens: 40, reasoningTokens: 0 })
    expect(Object.keys(b.usage.byModel)).toEqual(['gpt-5'])
    expect(b.cost.missing).toBe(1)
    expect(a.usage.cacheReadTokens + b.usage.cacheReadTokens).toBe(3000)
    expect(a.usage.inputTokens + b.usage.inputTokens).toBe(500)
  })

  it('a model switch inside a run splits its usage by model', () => {
    const r = only(read([meta, user('go'), ctx('m1'), tokens(100, 0, 10), ctx('m2'), tokens(300, 100, 30), assistant('ok')]))
    expect(r.usage.byModel['m1']).toMatchObject({ inputTokens: 100, outputTokens: 10 })
    expect(r.usage.byModel['m2']).toMatchObject({ inputTokens: 100, cacheReadTokens: 100, outputTokens: 20 })
    expect(r.usage.inputTokens).toBe(200)
  })

  it('a known record with fields of the wrong type is a diagnostic and is skipped; unknown types are ignored silently', () => {
    const r = only(
      read([
        meta,
        user('go'),
        rec('event_msg', 'not an object'),
        ev({ type: 'token_count', info: { total_token_usage: { input_tokens: -5 } } }),
        ev({ type: 'token_count', info: 7 }),
        ev({ type: 'agent_message', message: 7 }),
        ev({ no_type: true }),
        ev({ type: 'brand_new_event', anything: [1, 2] }),
        rec('brand_new_record', {}),
        assistant('ok'),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.diagnostics).toEqual([
      { line: 3, message: 'skipped a line of type event_msg whose payload is not an object' },
      { line: 4, message: 'skipped a token_count without a total_token_usage of token counts' },
      { line: 5, message: 'skipped a token_count whose info is not an object' },
      { line: 6, message: 'agent_message without a string message' },
      { line: 7, message: 'skipped an event_msg whose payload has no string type' },
    ])
    expect(r.usage.inputTokens).toBe(0)
  })
})

describe('codex rollouts live (watch): a run whose turn has ended is handed out when the input goes quiet', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
  const jsonl = (records: ReadonlyArray<object>): Buffer => Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(''))
  /**
   * Replays `parts` live, pausing before each part after the first: until a run has been handed out (at most
   * 10 s, so a loaded machine only waits longer, never fails), or, with `fixedPauseMs`, for that long (to show
   * that nothing is handed out). Each run is tagged with how many parts had been written when it came.
   */
  const live = async (parts: ReadonlyArray<ReadonlyArray<object>>, fixedPauseMs?: number) => {
    let written = 0
    const runs: Array<{ afterParts: number; run: RunResult }> = []
    const notes: Array<string> = []
    async function* source() {
      for (const [i, p] of parts.entries()) {
        if (i > 0 && fixedPauseMs !== undefined) await sleep(fixedPauseMs)
        else if (i > 0) for (const deadline = Date.now() + 10_000; runs.length < i && Date.now() < deadline; ) await sleep(20)
        written = i + 1
        yield jsonl(p)
      }
    }
    await replayStream(source(), (run) => runs.push({ afterParts: written, run }), {
      format: 'codex',
      live: true,
      note: (line, message) => notes.push(`line ${line}: ${message}`),
    })
    return { runs, notes }
  }
  const turn1 = [meta, ctx(), user('hi'), agentMsg('Hello'), tokens(100, 40, 10), complete('Hello!')]

  it('hands the answered run out during the pause, before the next prompt; a late token count is named in a note and is in no run', async () => {
    const late = tokens(150, 40, 20) // +50 input, +10 output after run 1 was handed out
    const turn2 = [user('again'), agentMsg('Bye'), tokens(400, 100, 30), complete('Bye!')]
    const { runs, notes } = await live([turn1, [late, ...turn2]])
    expect(runs.map((r) => [r.afterParts, r.run.ending.kind, r.run.response])).toStrictEqual([
      [1, 'answered', 'Hello!'],
      [2, 'answered', 'Bye!'],
    ])
    expect(notes).toStrictEqual(['line 7: a running total moved by 60 tokens after run 1 was handed out; they are in no printed run'])
    // run 1: its own 100 in (40 cached) / 10 out; run 2: its own 250 in (60 cached) / 10 out, without the late 60
    const r1 = runs[0]?.run
    const r2 = runs[1]?.run
    expect([r1?.usage.inputTokens, r1?.usage.cacheReadTokens, r1?.usage.outputTokens]).toStrictEqual([60, 40, 10])
    expect([r2?.usage.inputTokens, r2?.usage.cacheReadTokens, r2?.usage.outputTokens]).toStrictEqual([190, 60, 10])
  })

  it('a late token count at the very end is named in a note too (nothing silently lost)', async () => {
    const { runs, notes } = await live([turn1, [tokens(150, 40, 20)]])
    expect(runs.map((r) => [r.run.ending.kind, r.run.usage.inputTokens])).toStrictEqual([['answered', 60]])
    expect(notes).toStrictEqual(['line 7: a running total moved by 60 tokens after run 1 was handed out; they are in no printed run'])
  })

  it('a late task_complete after a handed-out turn_aborted still marks the build as writing task events (same ending as replay)', async () => {
    const aborted1 = [meta, ctx(), user('hi'), aborted('interrupted')]
    const rest = [complete(null), user('two'), agentMsg('half')]
    const { runs } = await live([aborted1, rest])
    const replayed = read([...aborted1, ...rest])
    expect(runs.map((r) => r.run.ending)).toStrictEqual(replayed.map((r) => r.ending))
    expect(replayed.map((r) => r.ending)).toStrictEqual([
      { kind: 'stopped', by: 'caller', reason: 'interrupted' },
      { kind: 'unfinished', lastEventType: 'agent_message' },
    ])
  })

  it("the next turn's own preamble (environment context, world state, turn context) passes without a note; a non-JSON line after a hand-out is noted, not kept for the next run", async () => {
    const preamble = [envCtx, rec('world_state', { cwd: '/tmp' }), ctx()]
    const { runs, notes } = await live([turn1, [...preamble, user('again'), agentMsg('Bye'), complete('Bye!')]])
    expect(runs.map((r) => r.run.ending.kind)).toStrictEqual(['answered', 'answered'])
    expect(notes).toStrictEqual([])
    let written = 0
    const out: Array<RunResult> = []
    const noted: Array<string> = []
    async function* source() {
      yield jsonl(turn1)
      for (const deadline = Date.now() + 10_000; out.length < 1 && Date.now() < deadline; ) await sleep(20)
      written++
      yield Buffer.from('not json\n')
      yield jsonl([user('again'), complete('Bye!')])
    }
    await replayStream(source(), (r) => out.push(r), { format: 'codex', live: true, note: (line, m) => noted.push(`line ${line}: ${m}`) })
    expect(written).toBe(1)
    expect(noted).toStrictEqual(['line 7: skipped a line that is not JSON'])
    expect(out.map((r) => [r.diagnostics.length, r.source?.firstLine])).toStrictEqual([
      [0, 1],
      [0, 8],
    ])
  })

  it('other late records are noted once and left out of both runs; replaying the same log (not live) keeps them in run 1', async () => {
    const lateItems = [call('c1'), output('c1', 0)]
    const turn2 = [user('again'), agentMsg('Bye'), complete('Bye!')]
    const { runs, notes } = await live([turn1, [...lateItems, ...turn2]])
    expect(runs.map((r) => [r.afterParts, r.run.ending.kind, r.run.toolCalls])).toStrictEqual([
      [1, 'answered', 0],
      [2, 'answered', 0],
    ])
    expect(notes).toStrictEqual(['line 7: records after the ending of run 1 came after it was handed out (the input had paused); they are not in it'])
    const whole = read([...turn1, ...lateItems, ...turn2])
    expect(whole.map((r) => [r.ending.kind, r.toolCalls])).toStrictEqual([
      ['answered', 1],
      ['answered', 0],
    ])
  })

  it('quiet is not an ending: a run without its task_complete waits for it, and 0.40 rollouts (no task events) wait for the next prompt', async () => {
    const open = [meta, ctx(), user('hi'), call('c1')]
    const { runs } = await live([open, [output('c1', 0), agentMsg('Done'), complete('Done')]], 4 * QUIET_MS)
    expect(runs.map((r) => [r.afterParts, r.run.ending.kind])).toStrictEqual([[2, 'answered']])
    const old = [meta, ctx(), user('hi'), assistant('Done')]
    const second = [user('next'), assistant('Again')]
    const r040 = await live([old, second], 4 * QUIET_MS)
    expect(r040.runs.map((r) => [r.afterParts, r.run.ending.kind, r.run.inferred])).toStrictEqual([
      [2, 'answered', true],
      [2, 'answered', true],
    ])
  })
})
