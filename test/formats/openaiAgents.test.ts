import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { endingKinds } from '../../src/core/RunEnding.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { detectDocument, formatByName } from '../../src/formats/index.js'
import { openaiAgentsFormat, openaiAgentsReader, readOpenAiAgentsDocument } from '../../src/formats/openaiAgents.js'
import { replayFile, replayStream } from '../../src/node/replay.js'

const DIR = 'test/fixtures/openai-agents-runstate'
const V12 = `${DIR}/v1.2-nested-approval.json`
const V118 = `${DIR}/v1.18-per-call-approval-override.json`

const NUM_RUNS = Number(process.env['FC_NUM_RUNS'] ?? 100)
console.log(`openai-agents properties: FC_NUM_RUNS=${NUM_RUNS}`)

const load = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>

/** A fresh 1.18 state (turn 0, nothing run) to build variants from. */
const base = (): Record<string, unknown> => load(V118)

const read = (doc: unknown): RunResult => {
  const runs = readOpenAiAgentsDocument(doc, { file: null })
  expect(runs).toHaveLength(1)
  return runs[0] as RunResult
}

async function* chunks(text: string): AsyncGenerator<string> {
  yield text
}

const replayText = async (text: string, format: 'auto' | 'openai-agents' = 'auto'): Promise<Array<RunResult>> => {
  const runs: Array<RunResult> = []
  await replayStream(chunks(text), (r) => runs.push(r), { format })
  return runs
}

const usage = (inputTokens: number, outputTokens: number, cached: number, reasoning: number): Record<string, unknown> => ({
  requests: 1,
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
  inputTokensDetails: [{ cached_tokens: cached }],
  outputTokensDetails: [{ reasoning_tokens: reasoning }],
})

const approvalItem = (callId: string, name: string, args: string): Record<string, unknown> => ({
  type: 'tool_approval_item',
  rawItem: { id: `fc_${callId}`, type: 'function_call', name, callId, status: 'completed', arguments: args, providerData: {} },
  agent: { name: 'A' },
  toolName: name,
})

const toolCallItem = (callId: string, name: string): Record<string, unknown> => ({
  type: 'tool_call_item',
  rawItem: { id: `fc_${callId}`, type: 'function_call', name, callId, status: 'completed', arguments: '{}' },
  agent: { name: 'A' },
})

describe('openai-agents corpus (writer output of @openai/agents-core)', () => {
  for (const format of ['auto', 'openai-agents'] as const) {
    it(`v1.2 nested approval is suspended on exactly one secure_tool call (format ${format})`, async () => {
      const runs = await replayFile(V12, { format })
      expect(runs).toHaveLength(1)
      const r = runs[0] as RunResult
      expect(r.format).toBe('openai-agents')
      expect(r.ending).toEqual({
        kind: 'suspended',
        pending: [{ id: 'nested-call', kind: 'approval', toolName: 'secure_tool', arguments: { text: 'sentinel' } }],
      })
      expect(r.finishReason).toBe('next_step_interruption')
      expect(r.response).toBeNull()
      expect(r.turns).toBe(1)
      // the outer agent-tool call and the nested secure_tool call
      expect(r.toolCalls).toBe(2)
      // the nested serialized state is a child, with its own (suspended) ending
      expect(r.children).toHaveLength(1)
      expect(r.children[0]?.sessionId).toBe('nested_tool:outer-call')
      expect(r.children[0]?.ending.kind).toBe('suspended')
      // one model response, no cost in the SDK: missing, never zero
      expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
      expect(r.usage.inputTokens).toBe(0)
      expect(r.diagnostics).toEqual([])
    })

    it(`v1.18 fresh state is unfinished (format ${format})`, async () => {
      const runs = await replayFile(V118, { format })
      expect(runs).toHaveLength(1)
      const r = runs[0] as RunResult
      expect(r.format).toBe('openai-agents')
      expect(r.ending).toEqual({ kind: 'unfinished' })
      expect(r.finishReason).toBeNull()
      expect(r.turns).toBe(0)
      expect(r.toolCalls).toBe(0)
      // the pre-recorded rejection of "exception-call" is a decision, not a call of this run
      expect(r.permissionDenials).toEqual([])
      // no model call: nothing was spent
      expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 0 })
      expect(r.diagnostics).toEqual([])
    })
  }

  it('reads a RunState written on one line (line reader, auto-detected), with its line number', async () => {
    const text = `${JSON.stringify(load(V12))}\n`
    const runs = await replayText(text)
    expect(runs).toHaveLength(1)
    const r = runs[0] as RunResult
    expect(r.format).toBe('openai-agents')
    expect(r.ending.kind).toBe('suspended')
    expect(r.ending.kind === 'suspended' && r.ending.pending.map((p) => p.toolName)).toEqual(['secure_tool'])
    expect(r.source).toEqual({ file: null, firstLine: 1, lastLine: 1 })
  })

  it('reads several one-line RunStates as several runs, noise lines as diagnostics of the next run', async () => {
    const text = `not json\n${JSON.stringify(load(V12))}\n${JSON.stringify(load(V118))}\n[1,2]\n`
    const runs: Array<RunResult> = []
    const reader = openaiAgentsReader((r) => runs.push(r), { file: 'x.jsonl' })
    text
      .split('\n')
      .filter((l) => l !== '')
      .forEach((l, i) => expect(reader.line(l, i + 1, false)).toBeUndefined())
    reader.end()
    expect(runs.map((r) => r.ending.kind)).toEqual(['suspended', 'unfinished'])
    expect(runs[0]?.diagnostics).toEqual([{ line: 1, message: 'skipped a line that is not valid JSON' }])
    expect(runs[1]?.diagnostics).toEqual([{ line: 4, message: 'skipped a line that is not a serialized RunState' }])
    // the one fold puts every line a run's events came from in its range, a diagnostic's line included
    expect(runs[1]?.source).toEqual({ file: 'x.jsonl', firstLine: 3, lastLine: 4 })
  })

  it('--format openai-agents reads a pretty-printed state even when a line of it parses alone (a lone "{}")', async () => {
    const s = load(V12)
    const responses = s['modelResponses'] as Array<Record<string, Record<string, unknown>>>
    ;(responses[0] as Record<string, Record<string, unknown>>)['usage']!['inputTokensDetails'] = [{}]
    const text = `${JSON.stringify(s, null, 2)}\n`
    // line 16 is "{}" on its own; the first line is not JSON alone, so replay reads the input as one document
    expect(text.split('\n')[15]?.trim()).toBe('{}')
    for (const format of ['openai-agents', 'auto'] as const) {
      const runs = await replayText(text, format)
      expect(runs).toHaveLength(1)
      expect(runs[0]?.ending.kind).toBe('suspended')
      expect(runs[0]?.ending.kind === 'suspended' && runs[0].ending.pending.map((p) => p.toolName)).toEqual(['secure_tool'])
    }
  })

  it('is detected as a document and registered by name', () => {
    expect(detectDocument(load(V12))?.name).toBe('openai-agents')
    expect(detectDocument(load(V118))?.name).toBe('openai-agents')
    expect(formatByName('openai-agents')).toBe(openaiAgentsFormat)
    expect(openaiAgentsFormat.sniffDocument?.({ type: 'result' })).toBe(0)
  })
})

describe('openai-agents ending rules', () => {
  it('final output: answered with the output text; usage from context.usage, cache reads out of input', () => {
    const s = base()
    s['currentTurn'] = 2
    s['currentStep'] = { type: 'next_step_final_output', output: 'The answer is 42.' }
    s['modelResponses'] = [
      { usage: usage(400, 100, 100, 40), output: [] },
      { usage: usage(600, 200, 300, 80), output: [] },
    ]
    ;(s['context'] as Record<string, unknown>)['usage'] = {
      requests: 2,
      inputTokens: 1000,
      outputTokens: 300,
      totalTokens: 1300,
      inputTokensDetails: [{ cached_tokens: 100 }, { cached_tokens: 300 }],
      outputTokensDetails: [{ reasoning_tokens: 40 }, { reasoning_tokens: 80 }],
    }
    const r = read(s)
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.finishReason).toBe('next_step_final_output')
    expect(r.response).toBe('The answer is 42.')
    expect(r.turns).toBe(2)
    expect(r.usage).toMatchObject({ inputTokens: 600, cacheReadTokens: 400, cacheWriteTokens: 0, outputTokens: 300, reasoningTokens: 120 })
    // two model responses, each a priced item without a cost
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 2 })
  })

  it('falls back to summing modelResponses[].usage when context.usage is unusable', () => {
    const s = base()
    s['currentTurn'] = 1
    s['currentStep'] = { type: 'next_step_final_output', output: 'ok' }
    s['modelResponses'] = [
      { usage: usage(400, 100, 100, 40), output: [] },
      { usage: usage(600, 200, 300, 80), output: [] },
    ]
    ;(s['context'] as Record<string, unknown>)['usage'] = { inputTokens: 'many' }
    const r = read(s)
    expect(r.usage).toMatchObject({ inputTokens: 600, cacheReadTokens: 400, outputTokens: 300, reasoningTokens: 120 })
    expect(r.diagnostics.map((d) => d.message)).toEqual(['context.usage has no numeric token counts; summed the model responses instead'])
  })

  it('a structured (non-string) final output is structuredOutput, not the response', () => {
    const s = base()
    s['currentTurn'] = 1
    s['finalOutput'] = { city: 'Paris', temperature: 21 }
    const r = read(s)
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBeNull()
    expect(r.structuredOutput).toEqual({ city: 'Paris', temperature: 21 })
  })

  it('currentTurn > maxTurns is limit max_turns with the configured figure, even with a handler-written output (K3)', () => {
    const s = base()
    s['currentTurn'] = 4
    s['maxTurns'] = 3
    s['currentStep'] = { type: 'next_step_final_output', output: 'gave up' }
    const r = read(s)
    expect(r.ending).toEqual({ kind: 'limit', reason: 'max_turns', limit: 3 })
    expect(r.finishReason).toBe('next_step_final_output')
    expect(r.response).toBeNull()
  })

  it('a recorded max-turns error on the agent span is limit max_turns', () => {
    const s = base()
    s['currentTurn'] = 3
    s['maxTurns'] = 3
    s['currentStep'] = { type: 'next_step_run_again' }
    s['currentAgentSpan'] = {
      object: 'trace.span',
      id: 'span_1',
      trace_id: 'trace_1',
      parent_id: null,
      started_at: null,
      ended_at: null,
      error: { message: 'Max turns (3) exceeded' },
      span_data: {},
    }
    expect(read(s).ending).toEqual({ kind: 'limit', reason: 'max_turns', limit: 3 })
  })

  it('null maxTurns (schema 1.11+) never makes a limit', () => {
    const s = base()
    s['currentTurn'] = 50
    s['maxTurns'] = null
    s['currentStep'] = { type: 'next_step_final_output', output: 'done' }
    expect(read(s).ending).toEqual({ kind: 'answered' })
  })

  it('counts each pending call once, whatever copies generatedItems and nested states hold (K5)', () => {
    const s = base()
    s['currentTurn'] = 1
    const a = approvalItem('c1', 'delete_file', '{"path":"/tmp/x"}')
    s['currentStep'] = { type: 'next_step_interruption', data: { interruptions: [a, a, approvalItem('c2', 'send_mail', 'not json')] } }
    s['generatedItems'] = [toolCallItem('c1', 'delete_file'), a, toolCallItem('c2', 'send_mail')]
    const r = read(s)
    expect(r.ending).toEqual({
      kind: 'suspended',
      pending: [
        { id: 'c1', kind: 'approval', toolName: 'delete_file', arguments: { path: '/tmp/x' } },
        { id: 'c2', kind: 'approval', toolName: 'send_mail', arguments: 'not json' },
      ],
    })
    expect(r.toolCalls).toBe(2)
  })

  it('an interruption without data.interruptions uses the unanswered approval items of generatedItems', () => {
    const s = base()
    s['currentTurn'] = 1
    s['currentStep'] = { type: 'next_step_interruption', data: {} }
    s['generatedItems'] = [
      approvalItem('c1', 'a_tool', '{}'),
      {
        type: 'tool_call_output_item',
        rawItem: { type: 'function_call_result', callId: 'c1', name: 'a_tool', status: 'completed', output: 'x' },
        agent: { name: 'A' },
        output: 'x',
      },
      approvalItem('c2', 'b_tool', '{"n":1}'),
    ]
    expect(read(s).ending).toEqual({ kind: 'suspended', pending: [{ id: 'c2', kind: 'approval', toolName: 'b_tool', arguments: { n: 1 } }] })
  })

  it('an input guardrail tripwire is blocked in the input phase', () => {
    const s = base()
    s['currentTurn'] = 1
    s['inputGuardrailResults'] = [{ guardrail: { type: 'input', name: 'no_homework' }, output: { tripwireTriggered: true, outputInfo: {} } }]
    expect(read(s).ending).toEqual({ kind: 'blocked', guardrail: 'no_homework', phase: 'input' })
  })

  it('an output guardrail tripwire beats the final output next to it', () => {
    const s = base()
    s['currentTurn'] = 1
    s['currentStep'] = { type: 'next_step_final_output', output: 'secret' }
    s['outputGuardrailResults'] = [
      { guardrail: { type: 'output', name: 'no_secrets' }, agentOutput: 'secret', agent: { name: 'A' }, output: { tripwireTriggered: true, outputInfo: {} } },
    ]
    const r = read(s)
    expect(r.ending).toEqual({ kind: 'blocked', guardrail: 'no_secrets', phase: 'output' })
    expect(r.response).toBeNull()
  })

  it('a state serialized between turns is unfinished with the step type', () => {
    const s = base()
    s['currentTurn'] = 2
    s['currentStep'] = { type: 'next_step_run_again' }
    const r = read(s)
    expect(r.ending).toEqual({ kind: 'unfinished', lastEventType: 'next_step_run_again' })
    expect(r.finishReason).toBe('next_step_run_again')
  })

  it('an unknown step type is unfinished with a diagnostic, never answered', () => {
    const s = base()
    s['currentTurn'] = 2
    s['currentStep'] = { type: 'next_step_teleport' }
    const r = read(s)
    expect(r.ending).toEqual({ kind: 'unfinished', lastEventType: 'next_step_teleport' })
    expect(r.diagnostics.map((d) => d.message)).toEqual(['unknown currentStep type "next_step_teleport"'])
  })

  it('rejected calls of the run are permission denials (legacy and agent-scoped approval records)', () => {
    const s = base()
    s['currentTurn'] = 1
    s['currentStep'] = { type: 'next_step_final_output', output: 'done' }
    s['generatedItems'] = [toolCallItem('c1', 'secure_tool'), toolCallItem('exception-call', 'sensitive_tool')]
    ;(s['context'] as Record<string, unknown>)['approvals'] = { secure_tool: { approved: [], rejected: ['c1', 'not-in-run'] } }
    const r = read(s)
    expect(r.permissionDenials).toEqual([
      { toolName: 'secure_tool', toolCallId: 'c1' },
      { toolName: 'sensitive_tool', toolCallId: 'exception-call' },
    ])
    expect(r.ending).toEqual({ kind: 'answered' })
  })

  it('an unknown schema version is read with a diagnostic', () => {
    const s = base()
    s['$schemaVersion'] = '2.0'
    const r = read(s)
    expect(r.ending).toEqual({ kind: 'unfinished' })
    expect(r.diagnostics.map((d) => d.message)).toEqual(['RunState $schemaVersion is not 1.x; read with the 1.x rules'])
  })

  it('a document that is not a RunState gives one unfinished run with a diagnostic', async () => {
    const r = read({ hello: 'world' })
    expect(r.ending).toEqual({ kind: 'unfinished' })
    expect(r.diagnostics).toEqual([{ message: 'the document is not a serialized OpenAI Agents RunState' }])
    const runs = await replayText('{\n  "hello": "world"\n}\n', 'openai-agents')
    expect(runs.map((x) => x.ending.kind)).toEqual(['unfinished'])
  })

  it('a JSON array of RunStates is one run each', () => {
    const runs = readOpenAiAgentsDocument([load(V12), 3, load(V118)], { file: null })
    expect(runs.map((r) => r.ending.kind)).toEqual(['suspended', 'unfinished'])
  })
})

describe('openai-agents properties', () => {
  const field = fc.oneof(fc.anything(), fc.constant(null), fc.string(), fc.integer(), fc.array(fc.anything(), { maxLength: 3 }))
  const stateLike = fc.record(
    {
      $schemaVersion: fc.oneof(fc.constantFrom('1.0', '1.2', '1.18', '1.99', 'x'), fc.string()),
      currentTurn: fc.oneof(fc.integer({ min: -2, max: 20 }), field),
      maxTurns: fc.oneof(fc.integer({ min: 0, max: 20 }), field),
      currentStep: fc.oneof(
        field,
        fc.record({
          type: fc.constantFrom('next_step_interruption', 'next_step_final_output', 'next_step_run_again', 'next_step_handoff', 'zzz'),
          data: fc.oneof(
            field,
            fc.record({
              interruptions: fc.oneof(
                field,
                fc.array(fc.oneof(field, fc.record({ type: fc.constant('tool_approval_item'), rawItem: field, toolName: field }))),
              ),
            }),
          ),
          output: field,
        }),
      ),
      modelResponses: fc.oneof(field, fc.array(fc.record({ usage: field }), { maxLength: 3 })),
      generatedItems: fc.oneof(
        field,
        fc.array(fc.record({ type: fc.constantFrom('tool_call_item', 'tool_approval_item', 'x'), rawItem: field }), { maxLength: 3 }),
      ),
      context: fc.oneof(field, fc.record({ usage: field, approvals: field, functionApprovals: field })),
      pendingAgentToolRuns: fc.oneof(field, fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.constant('{"$schemaVersion":"1.2","currentTurn":1}')))),
      inputGuardrailResults: field,
      outputGuardrailResults: field,
      currentAgentSpan: field,
      finalOutput: field,
    },
    { requiredKeys: ['$schemaVersion'] },
  )

  it('arbitrary documents never throw and always give a valid ending', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), stateLike, fc.array(stateLike, { maxLength: 3 })), (doc) => {
        const runs = readOpenAiAgentsDocument(doc, { file: null })
        expect(runs.length).toBeGreaterThanOrEqual(1)
        for (const r of runs) {
          expect(endingKinds).toContain(r.ending.kind)
          expect(r.format).toBe('openai-agents')
        }
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('arbitrary lines never throw and never give a ProtocolError', () => {
    const line = fc.oneof(
      fc.string(),
      fc.json(),
      stateLike.map((s) => JSON.stringify(s)),
    )
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), (lines) => {
        const runs: Array<RunResult> = []
        const reader = openaiAgentsReader((r) => runs.push(r), { file: null })
        lines.forEach((l, i) => expect(reader.line(l, i + 1, i === lines.length - 1)).toBeUndefined())
        reader.end()
        expect(runs.length).toBeGreaterThanOrEqual(1)
        for (const r of runs) expect(endingKinds).toContain(r.ending.kind)
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('a deeply nested value in the state neither throws nor echoes', () => {
    let deep: unknown = 'x'
    for (let i = 0; i < 100_000; i++) deep = [deep]
    const s = base()
    s['currentStep'] = {
      type: 'next_step_interruption',
      data: { interruptions: [{ type: 'tool_approval_item', rawItem: { callId: 'c', name: 'n', arguments: deep } }] },
    }
    const r = read(s)
    expect(r.ending.kind).toBe('suspended')
    expect(r.diagnostics).toEqual([])
  })
})
