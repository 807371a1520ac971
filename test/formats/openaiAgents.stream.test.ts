/**
 * OpenAI Agents JS streamed runs (`run(agent, input, { stream: true })`): the `RunStreamEvent`s as JSON lines
 * and as the objects a live `StreamedRunResult` yields, and the run's final record (its `RunState`, the result's
 * `finalOutput` / `interruptions`, or the error it threw). The fixtures are synthetic, written from the
 * published types (test/fixtures/openai-agents-stream/PROVENANCE.md).
 */
import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import type { RunResult } from '../../src/core/RunResult.js'
import { detectLines } from '../../src/formats/index.js'
import { Pipeline } from '../../src/core/pipeline.js'
import { openaiAgentsFormat, openaiAgentsReader, openaiAgentsTranslator, readOpenAiAgentsDocument } from '../../src/formats/openaiAgents.js'
import { foldRecords } from '../../src/formats/records.js'
import { replayFile, replayStream } from '../../src/node/replay.js'

const DIR = 'test/fixtures/openai-agents-stream'
const ANSWERED = `${DIR}/synthetic-tool-call-answered.jsonl`
const APPROVAL = `${DIR}/synthetic-approval-interruption.jsonl`
const MAX_TURNS = `${DIR}/synthetic-max-turns.jsonl`
const HANDOFF = `${DIR}/synthetic-handoff.jsonl`

const LATE_END =
  'ignored a further terminal record: nothing of a new run came after the previous run ended, so it belongs to that run (the first ending stands)'

const linesOf = (path: string): Array<string> =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
const recordsOf = (path: string): Array<Record<string, unknown>> => linesOf(path).map((l) => JSON.parse(l) as Record<string, unknown>)

async function* chunks(text: string): AsyncGenerator<string> {
  yield text
}

const replayText = async (text: string, format: 'auto' | 'openai-agents' = 'auto'): Promise<Array<RunResult>> => {
  const runs: Array<RunResult> = []
  await replayStream(chunks(text), (r) => runs.push(r), { format })
  return runs
}

const textOf = (records: ReadonlyArray<unknown>): string => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`

const fold = (records: Iterable<unknown>, format: 'auto' | 'openai-agents' = 'openai-agents'): Array<RunResult> => {
  const r = foldRecords(records, { format })
  if (E.isLeft(r)) throw new Error('unexpected protocol error')
  return r.right
}

const noSource = (runs: ReadonlyArray<RunResult>): Array<RunResult> => runs.map((r) => ({ ...r, source: null }))

const only = (runs: ReadonlyArray<RunResult>): RunResult => {
  expect(runs).toHaveLength(1)
  return runs[0] as RunResult
}

const zeroCost = { totalUsd: null, complete: false }

describe('openai-agents streamed runs: the synthetic fixtures', () => {
  for (const format of ['auto', 'openai-agents'] as const) {
    it(`a finished answer with a tool call, then stream.state (format ${format})`, async () => {
      const r = only(await replayFile(ANSWERED, { format }))
      expect(r).toEqual({
        format: 'openai-agents',
        sessionId: 'conv-weather-1',
        ending: { kind: 'answered' },
        finishReason: 'next_step_final_output',
        response: 'It is 18°C and sunny in Paris.',
        structuredOutput: null,
        schemaVersion: 1,
        source: { file: ANSWERED, firstLine: 1, lastLine: 12 },
        startedAt: null,
        endedAt: null,
        inferred: false,
        turns: 2,
        toolCalls: 1,
        permissionDenials: [],
        // the state's context.usage: 882 input of which 384 cached, 43 output; one priced item per model response
        usage: {
          inputTokens: 498,
          cacheReadTokens: 384,
          cacheWriteTokens: 0,
          outputTokens: 43,
          reasoningTokens: 0,
          byModel: {
            'gpt-4.1-2025-04-14': { inputTokens: 498, cacheReadTokens: 384, cacheWriteTokens: 0, outputTokens: 43, reasoningTokens: 0, costUsd: null },
          },
        },
        cost: { ...zeroCost, missing: 2 },
        durationMs: null,
        children: [],
        diagnostics: [],
        diagnosticsDropped: 0,
      })
    })

    it(`an approval interruption with no final record is suspended, inferred (format ${format})`, async () => {
      const r = only(await replayFile(APPROVAL, { format }))
      expect(r.ending).toEqual({
        kind: 'suspended',
        pending: [{ id: 'call_delete_1', kind: 'approval', toolName: 'delete_file', arguments: { path: '/tmp/report.csv' } }],
      })
      expect(r.finishReason).toBeNull()
      expect(r.inferred).toBe(true)
      expect(r.response).toBeNull()
      expect(r.turns).toBe(1)
      expect(r.toolCalls).toBe(1)
      expect(r.usage).toEqual({
        inputTokens: 128,
        cacheReadTokens: 128,
        cacheWriteTokens: 0,
        outputTokens: 21,
        reasoningTokens: 0,
        byModel: {
          'gpt-4.1-mini-2025-04-14': { inputTokens: 128, cacheReadTokens: 128, cacheWriteTokens: 0, outputTokens: 21, reasoningTokens: 0, costUsd: null },
        },
      })
      expect(r.cost).toEqual({ ...zeroCost, missing: 1 })
      expect(r.source).toEqual({ file: APPROVAL, firstLine: 1, lastLine: 5 })
      expect(r.sessionId).toBeNull()
      expect(r.children).toEqual([])
      expect(r.diagnostics).toEqual([])
    })

    it(`the turn limit: the thrown MaxTurnsExceededError with its state is limit max_turns (format ${format})`, async () => {
      const r = only(await replayFile(MAX_TURNS, { format }))
      expect(r.ending).toEqual({ kind: 'limit', reason: 'max_turns', limit: 2 })
      expect(r.finishReason).toBe('MaxTurnsExceededError')
      expect(r.response).toBeNull()
      expect(r.inferred).toBe(false)
      expect(r.turns).toBe(2)
      expect(r.toolCalls).toBe(2)
      expect(r.usage).toEqual({
        inputTokens: 424,
        cacheReadTokens: 256,
        cacheWriteTokens: 0,
        outputTokens: 58,
        reasoningTokens: 22,
        byModel: {
          'gpt-4.1-2025-04-14': { inputTokens: 424, cacheReadTokens: 256, cacheWriteTokens: 0, outputTokens: 58, reasoningTokens: 22, costUsd: null },
        },
      })
      expect(r.cost).toEqual({ ...zeroCost, missing: 2 })
      expect(r.source).toEqual({ file: MAX_TURNS, firstLine: 1, lastLine: 9 })
      expect(r.diagnostics).toEqual([])
    })

    it(`a handoff: the agent handed to answers the run, and is listed as a delegation (format ${format})`, async () => {
      const r = only(await replayFile(HANDOFF, { format }))
      expect(r.ending).toEqual({ kind: 'answered' })
      expect(r.finishReason).toBe('finalOutput')
      expect(r.response).toBe('I have refunded order #1234; the money will arrive in 3-5 days.')
      expect(r.turns).toBe(2)
      // a handoff is a transfer, not a tool call
      expect(r.toolCalls).toBe(0)
      expect(r.usage).toEqual({
        inputTokens: 248,
        cacheReadTokens: 512,
        cacheWriteTokens: 0,
        outputTokens: 43,
        reasoningTokens: 0,
        byModel: {
          'gpt-4.1-mini-2025-04-14': { inputTokens: 220, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 12, reasoningTokens: 0, costUsd: null },
          'gpt-4.1-2025-04-14': { inputTokens: 28, cacheReadTokens: 512, cacheWriteTokens: 0, outputTokens: 31, reasoningTokens: 0, costUsd: null },
        },
      })
      expect(r.cost).toEqual({ ...zeroCost, missing: 2 })
      expect(r.children).toEqual([{ sessionId: 'handoff:Refund Agent', ending: { kind: 'answered' }, finishReason: 'finalOutput' }])
      expect(r.source).toEqual({ file: HANDOFF, firstLine: 1, lastLine: 11 })
      expect(r.diagnostics).toEqual([])
    })
  }

  it('the stream without its final record is unfinished (never answered), with the last record type', async () => {
    const runs = await replayText(textOf(recordsOf(HANDOFF).slice(0, -1)))
    const r = only(runs)
    expect(r.ending).toEqual({ kind: 'unfinished', lastEventType: 'message_output_created' })
    expect(r.finishReason).toBeNull()
    expect(r.response).toBeNull()
    expect(r.inferred).toBe(false)
    // the streamed usage is the run's (K4: the same as the state would say)
    expect(r.usage.inputTokens + r.usage.cacheReadTokens).toBe(760)
    expect(r.children).toEqual([{ sessionId: 'handoff:Refund Agent', ending: { kind: 'unfinished' }, finishReason: null }])
  })

  it('is detected from its first lines (sniffLines), also after a bookkeeping line', () => {
    expect(detectLines(recordsOf(HANDOFF))?.name).toBe('openai-agents')
    expect(openaiAgentsFormat.sniffLines?.(recordsOf(APPROVAL))).toBe(1)
    expect(openaiAgentsFormat.sniffLines?.([{ note: 'run 1' }, ...recordsOf(APPROVAL)])).toBeCloseTo(0.5 + 0.5 * (5 / 6))
    expect(openaiAgentsFormat.sniffLines?.([{ type: 'run_item_stream_event' }, { type: 'message' }])).toBe(0)
  })
})

// ---- live SDK objects -------------------------------------------------------------------------------------

/** An `Agent` as the SDK has it: handoffs that point back (a cycle), a getter that throws, `toJSON() → { name }`. */
class Agent {
  handoffs: Array<Agent> = []
  constructor(readonly name: string) {}
  get instructions(): string {
    throw new Error('instructions are resolved lazily')
  }
  toJSON(): { name: string } {
    return { name: this.name }
  }
}

class RawModelStreamEvent {
  readonly type = 'raw_model_stream_event'
  constructor(
    readonly data: unknown,
    readonly source: string | undefined = undefined,
  ) {}
}

class RunItemStreamEvent {
  readonly type = 'run_item_stream_event'
  constructor(
    readonly name: string,
    readonly item: unknown,
  ) {}
}

class AgentUpdatedStreamEvent {
  readonly type = 'agent_updated_stream_event'
  constructor(readonly agent: Agent) {}
}

/** A run item: `rawItem`, `agent` (or source/target agents), a throwing getter, an Error as a field. */
class RunItem {
  readonly failure = new Error('not an item field')
  constructor(
    readonly type: string,
    readonly rawItem: unknown,
    readonly agent: Agent | undefined,
    readonly extra: Record<string, unknown> = {},
  ) {
    Object.assign(this, extra)
  }
  get history(): never {
    throw new Error('history is not available here')
  }
}

/** A live `RunState`: private-looking fields and its own `toJSON()`. */
class RunState {
  readonly _currentTurn: number
  readonly _currentStep: unknown
  constructor(private readonly serialized: Record<string, unknown>) {
    this._currentTurn = serialized['currentTurn'] as number
    this._currentStep = serialized['currentStep']
  }
  toJSON(): Record<string, unknown> {
    return this.serialized
  }
}

/** A `StreamedRunResult` after `await stream.completed`: getters on the prototype, one of which throws. */
class StreamedRunResult {
  currentTurn: number
  constructor(
    readonly state: RunState,
    private readonly output: unknown,
  ) {
    this.currentTurn = state._currentTurn
  }
  get finalOutput(): unknown {
    return this.output
  }
  get interruptions(): Array<unknown> {
    return []
  }
  get cancelled(): boolean {
    return false
  }
  get error(): unknown {
    return null
  }
  get history(): never {
    throw new Error('history needs the session')
  }
}

class MaxTurnsExceededError extends Error {
  override name = 'MaxTurnsExceededError'
  constructor(
    message: string,
    readonly state: RunState,
  ) {
    super(message)
  }
}

const agentsByName = new Map<string, Agent>()
const agentOf = (u: unknown): Agent | undefined => {
  if (typeof u !== 'object' || u === null) return undefined
  const name = (u as { name: string }).name
  let a = agentsByName.get(name)
  if (a === undefined) {
    a = new Agent(name)
    for (const b of agentsByName.values()) {
      a.handoffs.push(b)
      b.handoffs.push(a)
    }
    agentsByName.set(name, a)
  }
  return a
}

/** The objects a live stream would have yielded for the JSON lines of a fixture (its last line kept apart). */
const liveEvents = (records: ReadonlyArray<Record<string, unknown>>): Array<unknown> =>
  records.map((r) => {
    switch (r['type']) {
      case 'raw_model_stream_event':
        return new RawModelStreamEvent(r['data'], r['source'] as string | undefined)
      case 'agent_updated_stream_event':
        return new AgentUpdatedStreamEvent(agentOf(r['agent']) as Agent)
      default: {
        const it = r['item'] as Record<string, unknown>
        const extra: Record<string, unknown> = {}
        for (const k of ['toolName', 'output', 'sourceAgent', 'targetAgent']) if (it[k] !== undefined) extra[k] = k.endsWith('Agent') ? agentOf(it[k]) : it[k]
        return new RunItemStreamEvent(r['name'] as string, new RunItem(it['type'] as string, it['rawItem'], agentOf(it['agent']), extra))
      }
    }
  })

describe('openai-agents streamed runs: live objects', () => {
  it('the events as objects and a StreamedRunResult with a live RunState give what the JSON lines give', async () => {
    const records = recordsOf(ANSWERED)
    const state = records[records.length - 1] as Record<string, unknown>
    const live = [...liveEvents(records.slice(0, -1)), new StreamedRunResult(new RunState(state), 'It is 18°C and sunny in Paris.')]
    const want = await replayFile(ANSWERED, { format: 'openai-agents' })
    expect(noSource(fold(live))).toEqual(noSource(want))
    // auto recognises the objects at the first event
    expect(noSource(fold(live, 'auto'))).toEqual(noSource(want))
    // stream.state itself (a live RunState) as the final record
    expect(noSource(fold([...liveEvents(records.slice(0, -1)), new RunState(state)]))).toEqual(noSource(want))
  })

  it('the thrown error object (with its live state) ends the run as its JSON does', async () => {
    const records = recordsOf(MAX_TURNS)
    const last = records[records.length - 1] as { state: Record<string, unknown> }
    const live = [...liveEvents(records.slice(0, -1)), new MaxTurnsExceededError('Max turns (2) exceeded', new RunState(last.state))]
    const want = await replayFile(MAX_TURNS, { format: 'openai-agents' })
    expect(noSource(fold(live))).toEqual(noSource(want))
  })

  it('handoff events with live agents (cyclic handoffs, throwing getters) give what the JSON lines give', async () => {
    const records = recordsOf(HANDOFF)
    const live = [...liveEvents(records.slice(0, -1)), records[records.length - 1]]
    expect(noSource(fold(live))).toEqual(noSource(await replayFile(HANDOFF, { format: 'openai-agents' })))
  })

  it('never throws: revoked proxies, throwing getters, Error objects and cycles as records or fields', () => {
    const revoked = Proxy.revocable({}, {})
    revoked.revoke()
    const throwing = {
      type: 'run_item_stream_event',
      name: 'tool_called',
      get item(): never {
        throw new Error('boom')
      },
    }
    const cyclic: Record<string, unknown> = { type: 'run_item_stream_event', name: 'message_output_created' }
    cyclic['item'] = { rawItem: { content: [cyclic] }, agent: cyclic }
    const errorItem = new RunItemStreamEvent('tool_approval_requested', { rawItem: new Error('x'), toolName: 't' })
    const cyclicArgs: Record<string, unknown> = { type: 'computer_call', callId: 'cc1' }
    cyclicArgs['action'] = cyclicArgs
    const approval = new RunItemStreamEvent('tool_approval_requested', { rawItem: cyclicArgs })
    // through the pipeline itself (the record folder checks a value's shape before the translator sees it)
    const p = new Pipeline(openaiAgentsTranslator, { file: null })
    for (const v of [revoked.proxy, throwing, cyclic, errorItem, approval, new Error('plain'), { state: revoked.proxy, finalOutput: cyclic }])
      expect(p.record(v)).toBeUndefined()
    p.end()
    const runs = p.takeResults()
    expect(runs.length).toBeGreaterThanOrEqual(1)
    const r = runs[0] as RunResult
    expect(r.diagnostics.map((d) => d.message)).toContain('skipped a record whose fields could not be read')
    // the computer call's cyclic action cannot be kept as JSON: the pending approval is listed without it
    expect(JSON.parse(JSON.stringify(runs)) as unknown).toBeTruthy()
  })
})

// ---- endings and boundaries ---------------------------------------------------------------------------------

const started = { type: 'raw_model_stream_event', data: { type: 'response_started' } }
const done = (input: number, output: number, model?: string): Record<string, unknown> => ({
  type: 'raw_model_stream_event',
  data: {
    type: 'response_done',
    response: {
      id: 'r',
      usage: { inputTokens: input, outputTokens: output, totalTokens: input + output },
      output: [],
      ...(model !== undefined ? { providerData: { model } } : {}),
    },
  },
})
const message = (text: string, agent = 'A'): Record<string, unknown> => ({
  type: 'run_item_stream_event',
  name: 'message_output_created',
  item: {
    type: 'message_output_item',
    rawItem: { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] },
    agent: { name: agent },
  },
})
const handoff = (from: string, to: string): Record<string, unknown> => ({
  type: 'run_item_stream_event',
  name: 'handoff_occurred',
  item: {
    type: 'handoff_output_item',
    rawItem: { type: 'function_call_result', name: 'transfer', callId: `h-${to}`, status: 'completed', output: '{}' },
    sourceAgent: { name: from },
    targetAgent: { name: to },
  },
})
const toolCalled = (callId: string): Record<string, unknown> => ({
  type: 'run_item_stream_event',
  name: 'tool_called',
  item: {
    type: 'tool_call_item',
    rawItem: { type: 'function_call', id: `fc_${callId}`, callId, name: 'delete_file', status: 'completed', arguments: '{}' },
    agent: { name: 'A' },
  },
})
const toolOutput = (callId: string): Record<string, unknown> => ({
  type: 'run_item_stream_event',
  name: 'tool_output',
  item: {
    type: 'tool_call_output_item',
    rawItem: { type: 'function_call_result', callId, name: 'delete_file', status: 'completed', output: 'ok' },
    agent: { name: 'A' },
    output: 'ok',
  },
})

describe('openai-agents streamed runs: endings', () => {
  it('a cancelled result is stopped by the caller, and its partial text is not the answer (K2)', () => {
    const r = only(fold([started, message('partial'), { cancelled: true, finalOutput: undefined }]))
    expect(r.ending).toEqual({ kind: 'stopped', by: 'caller' })
    expect(r.finishReason).toBe('cancelled')
    expect(r.response).toBeNull()
  })

  it('a cancelled result with its state keeps the state’s figures, and the cancellation beats its output', () => {
    const state = recordsOf(ANSWERED).at(-1) as Record<string, unknown>
    const r = only(fold([{ cancelled: true, state }]))
    expect(r.ending).toEqual({ kind: 'stopped', by: 'caller' })
    expect(r.turns).toBe(2)
    expect(r.toolCalls).toBe(1)
    expect(r.usage.inputTokens).toBe(498)
  })

  it('an error object without a state: failed with its message and class name; no final output stands (K10)', () => {
    const err = Object.assign(new Error('Model did not produce a final response!'), { name: 'ModelBehaviorError' })
    const r = only(fold([started, message('half'), err]))
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'Model did not produce a final response!', name: 'ModelBehaviorError' } })
    expect(r.finishReason).toBe('ModelBehaviorError')
    expect(r.response).toBeNull()
  })

  it('an error beats the final output of its state (SPEC §2 rule 4); a JSON error without a message is named', () => {
    const state = recordsOf(ANSWERED).at(-1) as Record<string, unknown>
    const r = only(fold([{ state, name: 'UserError' }]))
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'UserError', name: 'UserError' } })
    expect(r.response).toBeNull()
  })

  it('guardrail tripwires and refusals thrown by the run', () => {
    const input = {
      name: 'InputGuardrailTripwireTriggered',
      result: { guardrail: { type: 'input', name: 'no_homework' }, output: { tripwireTriggered: true } },
    }
    expect(only(fold([started, input])).ending).toEqual({ kind: 'blocked', guardrail: 'no_homework', phase: 'input' })
    const tool = {
      name: 'ToolOutputGuardrailTripwireTriggered',
      result: { guardrail: { type: 'tool_output', name: 'no_secrets' }, output: { behavior: { type: 'throwException' } } },
    }
    expect(only(fold([started, tool])).ending).toEqual({ kind: 'blocked', guardrail: 'no_secrets', reason: 'tool_output_guardrail' })
    const refusal = Object.assign(new Error('Model refused to produce output: no'), { name: 'ModelRefusalError', refusal: 'no' })
    expect(only(fold([started, refusal])).ending).toEqual({ kind: 'cut_off', finishReason: 'refusal' })
    const timeout = Object.assign(new Error('Model call timed out'), { name: 'ModelTimeoutError', code: 'ETIMEDOUT' })
    expect(only(fold([started, timeout])).ending).toEqual({
      kind: 'failed',
      reason: 'error',
      error: { message: 'Model call timed out', code: 'ETIMEDOUT', name: 'ModelTimeoutError' },
    })
  })

  it('a result with interruptions is suspended on each call once (K5); a structured final output is structuredOutput', () => {
    const item = {
      type: 'tool_approval_item',
      rawItem: { type: 'function_call', callId: 'c1', name: 'delete_file', arguments: '{"path":"/x"}' },
      toolName: 'delete_file',
    }
    const r = only(fold([started, { finalOutput: undefined, interruptions: [item, item] }]))
    expect(r.ending).toEqual({ kind: 'suspended', pending: [{ id: 'c1', kind: 'approval', toolName: 'delete_file', arguments: { path: '/x' } }] })
    expect(r.finishReason).toBe('interruptions')
    expect(r.inferred).toBe(false)
    const s = only(fold([started, message('{"city":"Paris"}'), { finalOutput: { city: 'Paris' }, interruptions: [] }]))
    expect(s.ending).toEqual({ kind: 'answered' })
    expect(s.structuredOutput).toEqual({ city: 'Paris' })
  })

  it('an approval answered by its tool output is no longer pending: the run is unfinished', () => {
    const approval = recordsOf(APPROVAL)
    const r = only(fold([...approval, toolOutput('call_delete_1'), started, message('deleted'), done(10, 2)]))
    expect(r.ending).toEqual({ kind: 'unfinished', lastEventType: 'response_done' })
    expect(r.response).toBeNull()
    expect(r.turns).toBe(2)
  })

  it('a result that decides nothing leaves the stream’s own ending (pending approvals: suspended, inferred)', () => {
    const r = only(fold([...recordsOf(APPROVAL), { interruptions: [] }]))
    expect(r.ending.kind).toBe('suspended')
    expect(r.inferred).toBe(true)
  })

  it('a second response_started before the first is done is a retry of the same turn', () => {
    const r = only(fold([started, started, done(5, 1), message('hi'), { finalOutput: 'hi' }]))
    expect(r.turns).toBe(1)
    expect(r.cost.missing).toBe(1)
    expect(r.response).toBe('hi')
  })

  it('each tool call id counts once, in the stream and in the final state', () => {
    const state = { ...(recordsOf(ANSWERED).at(-1) as Record<string, unknown>) }
    const call = toolCalled('call_weather_1')
    const r = only(fold([started, call, call, toolCalled('other'), state]))
    // call_weather_1 (stream and state) and other (stream only)
    expect(r.toolCalls).toBe(2)
  })

  it('a final state after responses of two models states its usage under unknown', () => {
    const state = recordsOf(ANSWERED).at(-1) as Record<string, unknown>
    const r = only(fold([started, done(1, 1, 'm1'), started, done(1, 1, 'm2'), state]))
    expect(Object.keys(r.usage.byModel)).toEqual(['unknown'])
    expect(r.usage.byModel['unknown']?.inputTokens).toBe(498)
    expect(r.cost.missing).toBe(2)
  })

  it('handoffs back and forth: an agent that hands the run on is stopped by delegation; the last one ends as the run', () => {
    const r = only(
      fold([
        started,
        message('triage', 'A'),
        handoff('A', 'B'),
        handoff('B', 'A'),
        handoff('A', 'C'),
        { type: 'agent_updated_stream_event', agent: { name: 'C' } },
        message('done', 'C'),
        { finalOutput: 'done' },
      ]),
    )
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBe('done')
    expect(r.children).toEqual([
      { sessionId: 'handoff:B', ending: { kind: 'stopped', by: 'delegation' }, finishReason: 'handoff_occurred' },
      { sessionId: 'handoff:C', ending: { kind: 'answered' }, finishReason: 'finalOutput' },
    ])
  })
})

describe('openai-agents streamed runs: run boundaries', () => {
  it('a result after the final state is a further terminal record of that run (K7): the first ending stands', async () => {
    const text = `${linesOf(ANSWERED).join('\n')}\n${JSON.stringify({ finalOutput: 'something else' })}\n`
    const r = only(await replayText(text))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBe('It is 18°C and sunny in Paris.')
    expect(r.diagnostics).toEqual([{ line: 13, message: LATE_END }])
    expect(r.source).toEqual({ file: null, firstLine: 1, lastLine: 13 })
  })

  it('a final record ends a run: the next stream event or RunState begins another (one RunState per line is one run)', async () => {
    const state = linesOf(ANSWERED).at(-1) as string
    const text = `${[...linesOf(HANDOFF), state, state, ...linesOf(APPROVAL), state].join('\n')}\n`
    const runs = await replayText(text)
    expect(runs.map((r) => [r.ending.kind, r.inferred, r.source?.firstLine, r.source?.lastLine])).toEqual([
      ['answered', false, 1, 11],
      ['answered', false, 12, 12],
      ['answered', false, 13, 13],
      // a RunState right after a stream is that stream's final state: it decides the run's ending
      ['answered', false, 14, 19],
    ])
    const alone = await replayText(`${[...linesOf(HANDOFF), ...linesOf(APPROVAL)].join('\n')}\n`)
    expect(alone.map((r) => [r.ending.kind, r.inferred, r.source?.firstLine, r.source?.lastLine])).toEqual([
      ['answered', false, 1, 11],
      ['suspended', true, 12, 16],
    ])
  })

  it('live: a run is handed out at its final record; a late result is a note', () => {
    const runs: Array<RunResult> = []
    const notes: Array<string> = []
    const reader = openaiAgentsReader((r) => runs.push(r), { file: null, live: true, note: (_l, m) => notes.push(m) })
    const lines = linesOf(HANDOFF)
    lines.forEach((l, i) => reader.line(l, i + 1, false))
    expect(runs.map((r) => r.ending.kind)).toEqual(['answered'])
    reader.line(JSON.stringify({ finalOutput: 'again' }), lines.length + 1, false)
    reader.end()
    expect(runs).toHaveLength(1)
    expect(notes).toEqual([`${LATE_END} (run 1 was already handed out)`])
  })

  it('a JSON array of stream events (a document) is read like the lines', async () => {
    const runs = readOpenAiAgentsDocument(recordsOf(HANDOFF), { file: null })
    expect(noSource(runs)).toEqual(noSource(await replayFile(HANDOFF, { format: 'openai-agents' })))
    expect(openaiAgentsFormat.sniffDocument?.(recordsOf(HANDOFF))).toBe(0.8)
  })

  it('malformed stream events are diagnostics, and the rest of the run is read (K21)', () => {
    const r = only(
      fold([
        { type: 'raw_model_stream_event', data: 'x' },
        { type: 'run_item_stream_event', item: {} },
        { type: 'run_item_stream_event', name: 'tool_search_zoom', item: {} },
        { type: 'raw_model_stream_event', data: { type: 'response_done', response: { usage: { inputTokens: 'many' } } } },
        started,
        message('ok'),
        { finalOutput: 'ok' },
      ]),
    )
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      'skipped a raw_model_stream_event whose data is not an object with a string type',
      'skipped a run_item_stream_event without a string name',
      'ignored a run_item_stream_event of unknown name "tool_search_zoom"',
      'skipped the usage of a response_done event: not an object of token counts',
    ])
  })
})
