import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { endingKinds } from '../../src/core/RunEnding.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { acpFormat, acpReader, acpUsageBuckets, endingOfStopReason } from '../../src/formats/acp.js'
import { detectLines, formatByName } from '../../src/formats/index.js'
import { replayFile } from '../../src/node/replay.js'

const DIR = 'test/fixtures/acp'
const NUM_RUNS = Number(process.env['FC_NUM_RUNS'] ?? 100)
console.log(`acp properties: FC_NUM_RUNS=${NUM_RUNS}`)

/** Replays a fixture with auto detection and with `--format acp`; both must agree. */
const both = async (name: string): Promise<Array<RunResult>> => {
  const auto = await replayFile(`${DIR}/${name}`)
  const explicit = await replayFile(`${DIR}/${name}`, { format: 'acp' })
  expect(auto).toEqual(explicit)
  for (const r of auto) expect(r.format).toBe('acp')
  return auto
}

const one = async (name: string): Promise<RunResult> => {
  const runs = await both(name)
  expect(runs).toHaveLength(1)
  return runs[0] as RunResult
}

/** Feeds lines (objects are JSON-encoded) to a fresh reader; asserts it never returns an error. */
const readLines = (lines: ReadonlyArray<unknown>): Array<RunResult> => {
  const runs: Array<RunResult> = []
  const reader = acpReader((r) => runs.push(r), { file: null })
  lines.forEach((l, i) => expect(reader.line(typeof l === 'string' ? l : JSON.stringify(l), i + 1, false)).toBeUndefined())
  reader.end()
  return runs
}

const rpc = (o: Record<string, unknown>): Record<string, unknown> => ({ jsonrpc: '2.0', ...o })
const prompt = (id: number | string, sessionId: string): Record<string, unknown> =>
  rpc({ id, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'hi' }] } })
const update = (sessionId: string, u: Record<string, unknown>): Record<string, unknown> => rpc({ method: 'session/update', params: { sessionId, update: u } })
const chunk = (sessionId: string, text: string): Record<string, unknown> =>
  update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } })
const newSession = (id: number, sessionId: string): Array<Record<string, unknown>> => [
  rpc({ id, method: 'session/new', params: { cwd: '/w', mcpServers: [] } }),
  rpc({ id, result: { sessionId } }),
]

describe('acp synthetic logs (written from the schema, see test/fixtures/acp/README.md)', () => {
  it('end_turn: answered, with the concatenated text, tool calls once, usage and the cost delta', async () => {
    const r = await one('synthetic-end-turn.jsonl')
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.finishReason).toBe('end_turn')
    expect(r.sessionId).toBe('sess_end_turn')
    expect(r.response).toBe('Let me read the file. The README describes a small demo project.')
    expect(r.toolCalls).toBe(1)
    expect(r.turns).toBe(1)
    expect(r.usage).toEqual({
      inputTokens: 1200,
      cacheReadTokens: 800,
      cacheWriteTokens: 100,
      outputTokens: 350,
      reasoningTokens: 50,
      byModel: {
        'example-model-1': { inputTokens: 1200, cacheReadTokens: 800, cacheWriteTokens: 100, outputTokens: 350, reasoningTokens: 50, costUsd: 0.0125 },
      },
    })
    expect(r.cost).toEqual({ totalUsd: 0.0125, complete: true, missing: 0 })
    expect(r.source).toEqual({ file: `${DIR}/synthetic-end-turn.jsonl`, firstLine: 6, lastLine: 15 })
    expect(r.diagnostics).toEqual([])
  })

  it('max_tokens: cut_off max_tokens, the partial text kept', async () => {
    const r = await one('synthetic-max-tokens.jsonl')
    expect(r.ending).toEqual({ kind: 'cut_off', finishReason: 'max_tokens' })
    expect(r.finishReason).toBe('max_tokens')
    expect(r.response).toBe('Roses are red, violets are')
    expect(r.cost).toEqual({ totalUsd: 0.02, complete: true, missing: 0 })
  })

  it('max_turn_requests: limit max_turn_requests (K3)', async () => {
    const r = await one('synthetic-max-turn-requests.jsonl')
    expect(r.ending).toEqual({ kind: 'limit', reason: 'max_turn_requests' })
    expect(r.finishReason).toBe('max_turn_requests')
    expect(r.toolCalls).toBe(2)
    expect(r.response).toBeNull()
    // no usage_update with a cost in the run: missing, not zero
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
  })

  it('refusal: cut_off refusal', async () => {
    const r = await one('synthetic-refusal.jsonl')
    expect(r.ending).toEqual({ kind: 'cut_off', finishReason: 'refusal' })
    expect(r.finishReason).toBe('refusal')
    expect(r.response).toBe("I can't help with that.")
  })

  it('cancelled: stopped by caller, the cancelled permission is not pending (K2/K8)', async () => {
    const r = await one('synthetic-cancelled.jsonl')
    expect(r.ending).toEqual({ kind: 'stopped', by: 'caller' })
    expect(r.finishReason).toBe('cancelled')
    expect(r.response).toBeNull()
    expect(r.permissionDenials).toEqual([])
    expect(r.inferred).toBe(false)
  })

  it('JSON-RPC error response: failed with the message and code; no response text', async () => {
    const r = await one('synthetic-jsonrpc-error.jsonl')
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'Internal error: upstream model overloaded', code: -32603 } })
    expect(r.finishReason).toBeNull()
    expect(r.response).toBeNull()
  })

  it('an unanswered session/request_permission at the end: suspended with the pending call (K5)', async () => {
    const r = await one('synthetic-pending-permission.jsonl')
    expect(r.ending).toEqual({
      kind: 'suspended',
      pending: [{ id: 'call_rm', kind: 'approval', toolName: 'Run rm -rf build', arguments: { command: 'rm -rf build' } }],
    })
    expect(r.finishReason).toBeNull()
    expect(r.inferred).toBe(true)
    expect(r.toolCalls).toBe(1)
  })

  it('a prompt with no response: unfinished, never answered (K10)', async () => {
    const r = await one('synthetic-no-response.jsonl')
    expect(r.ending).toEqual({ kind: 'unfinished', lastEventType: 'agent_message_chunk' })
    expect(r.response).toBeNull()
    expect(r.finishReason).toBeNull()
  })

  it('two prompts in one session: two runs, cumulative cost differenced per run (K11), a rejected permission', async () => {
    const runs = await both('synthetic-two-prompts.jsonl')
    expect(runs).toHaveLength(2)
    const [a, b] = runs as [RunResult, RunResult]
    expect(a.ending).toEqual({ kind: 'answered' })
    expect(a.response).toBe('It prints the items.')
    expect(a.cost).toEqual({ totalUsd: 0.01, complete: true, missing: 0 })
    expect(a.usage).toMatchObject({ inputTokens: 1000, cacheReadTokens: 0, outputTokens: 500 })
    expect(b.ending).toEqual({ kind: 'cut_off', finishReason: 'max_tokens' })
    expect(b.response).toBe('I deleted tmp; you declined deleting cache. Next, the expla')
    // 0.025 cumulative after run 2 (reported right after its response) minus 0.01 before it
    expect(b.cost).toEqual({ totalUsd: 0.015, complete: true, missing: 0 })
    // totalTokens 3300 = input 2500 + output 800: the cache reads are inside the input count
    expect(b.usage).toMatchObject({ inputTokens: 1000, cacheReadTokens: 1500, outputTokens: 800, reasoningTokens: 0 })
    expect(b.toolCalls).toBe(2)
    expect(b.permissionDenials).toEqual([{ toolName: 'rm -rf cache', toolCallId: 'call_cache' }])
    expect(b.source?.firstLine).toBe(10)
    expect(b.source?.lastLine).toBe(21)
  })

  it('wrapped {timestamp, direction, message} lines, two sessions, an id shared by an agent request and a prompt', async () => {
    const runs = await both('synthetic-wrapped-two-sessions.jsonl')
    expect(runs.map((r) => [r.sessionId, r.ending.kind, r.response])).toEqual([
      ['sess_b', 'answered', 'Hi!'],
      ['sess_a', 'answered', 'config.toml does not exist.'],
    ])
    expect(runs[1]?.startedAt).toBe('2026-03-01T10:00:01.000Z')
    expect(runs[1]?.endedAt).toBe('2026-03-01T10:00:05.000Z')
    expect(runs[1]?.durationMs).toBe(4000)
    expect(runs[0]?.durationMs).toBe(2000)
  })

  it('is detected from the first lines and registered by name', () => {
    expect(formatByName('acp')).toBe(acpFormat)
    expect(detectLines([prompt(1, 's'), chunk('s', 'x')])?.name).toBe('acp')
    // an MCP initialize (string protocol version) is not ACP
    expect(acpFormat.sniffLines?.([rpc({ id: 0, method: 'initialize', params: { protocolVersion: '2024-11-05' } })])).toBe(0)
    expect(acpFormat.sniffLines?.([{ type: 'result' }, undefined])).toBe(0)
  })
})

describe('acp reading rules', () => {
  it('an unknown stopReason is failed unrecognized with the raw string kept (K14)', () => {
    const runs = readLines([prompt(1, 's'), chunk('s', 'done'), rpc({ id: 1, result: { stopReason: 'paused_for_coffee' } })])
    expect(runs).toHaveLength(1)
    expect(runs[0]?.ending).toEqual({ kind: 'failed', reason: 'unrecognized', raw: 'paused_for_coffee' })
    expect(runs[0]?.finishReason).toBe('paused_for_coffee')
    expect(runs[0]?.response).toBeNull()
  })

  it('an answer without text chunks has a null response; a string error is its own message', () => {
    const runs = readLines([prompt(1, 's'), rpc({ id: 1, result: { stopReason: 'end_turn' } }), prompt(2, 's'), rpc({ id: 2, error: 'boom' })])
    expect(runs.map((r) => [r.ending, r.response])).toEqual([
      [{ kind: 'answered' }, null],
      [{ kind: 'failed', reason: 'error', error: { message: 'boom' } }, null],
    ])
  })

  it('maps every ACP stop reason', () => {
    expect(endingOfStopReason('end_turn')).toEqual({ kind: 'answered' })
    expect(endingOfStopReason('max_tokens')).toEqual({ kind: 'cut_off', finishReason: 'max_tokens' })
    expect(endingOfStopReason('max_turn_requests')).toEqual({ kind: 'limit', reason: 'max_turn_requests' })
    expect(endingOfStopReason('refusal')).toEqual({ kind: 'cut_off', finishReason: 'refusal' })
    expect(endingOfStopReason('cancelled')).toEqual({ kind: 'stopped', by: 'caller' })
    expect(endingOfStopReason('toString')).toEqual({ kind: 'failed', reason: 'unrecognized', raw: 'toString' })
  })

  it('an error response after session/cancel is the caller stopping the run, not a failure (K8)', () => {
    const runs = readLines([
      prompt(7, 's'),
      chunk('s', 'partial answer'),
      rpc({ method: 'session/cancel', params: { sessionId: 's' } }),
      rpc({ id: 7, error: { code: -32603, message: 'AbortError: the operation was aborted' } }),
    ])
    expect(runs[0]?.ending).toEqual({ kind: 'stopped', by: 'caller' })
    expect(runs[0]?.response).toBeNull()
  })

  it('a cancel that is never answered ends the run as stopped by caller (inferred)', () => {
    const runs = readLines([prompt(7, 's'), rpc({ method: 'session/cancel', params: { sessionId: 's' } })])
    expect(runs[0]?.ending).toEqual({ kind: 'stopped', by: 'caller' })
    expect(runs[0]?.inferred).toBe(true)
  })

  it('without directions, a response id shared by an inner agent request pairs with the most recent request', () => {
    const runs = readLines([
      prompt(0, 's'),
      rpc({ id: 0, method: 'fs/read_text_file', params: { sessionId: 's', path: '/x' } }),
      rpc({ id: 0, error: { code: -32002, message: 'Resource not found' } }),
      chunk('s', 'no file'),
      rpc({ id: 0, result: { stopReason: 'end_turn' } }),
    ])
    expect(runs.map((r) => [r.ending.kind, r.response])).toEqual([['answered', 'no file']])
  })

  it('a result with a stopReason pairs with the prompt even when an inner request with that id is open', () => {
    const runs = readLines([
      prompt(0, 's'),
      rpc({ id: 0, method: 'terminal/create', params: { sessionId: 's', command: 'ls' } }),
      rpc({ id: 0, result: { stopReason: 'end_turn' } }),
    ])
    expect(runs[0]?.ending).toEqual({ kind: 'answered' })
  })

  it('string and number ids do not collide', () => {
    const runs = readLines([prompt('1', 's'), rpc({ id: 1, result: { stopReason: 'end_turn' } })])
    expect(runs[0]?.ending.kind).toBe('unfinished')
    expect(runs[0]?.diagnostics.map((d) => d.message)).toEqual(['skipped a session/prompt response whose request is not in the log'])
  })

  it('history replayed by session/load makes no run; the later prompt is one run', () => {
    const runs = readLines([
      rpc({ id: 1, method: 'session/load', params: { sessionId: 's', cwd: '/w', mcpServers: [] } }),
      update('s', { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'old question' } }),
      chunk('s', 'old answer'),
      rpc({ id: 1, result: { models: { currentModelId: 'm-2' } } }),
      prompt(2, 's'),
      chunk('s', 'new answer'),
      rpc({ id: 2, result: { stopReason: 'end_turn' } }),
    ])
    expect(runs).toHaveLength(1)
    expect(runs[0]?.response).toBe('new answer')
    expect(Object.keys(runs[0]?.usage.byModel ?? {})).toEqual(['m-2'])
  })

  it('cost is missing when the session cost before the run is unknown, or in another currency', () => {
    const loaded = readLines([
      prompt(2, 's'),
      update('s', { sessionUpdate: 'usage_update', used: 10, size: 100, cost: { amount: 3.5, currency: 'USD' } }),
      rpc({ id: 2, result: { stopReason: 'end_turn' } }),
    ])
    expect(loaded[0]?.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
    expect(loaded[0]?.diagnostics.map((d) => d.message)).toEqual(['cost is missing: the session cost before this run is unknown'])
    const eur = readLines([
      ...newSession(1, 's'),
      prompt(2, 's'),
      update('s', { sessionUpdate: 'usage_update', used: 10, size: 100, cost: { amount: 0.5, currency: 'EUR' } }),
      rpc({ id: 2, result: { stopReason: 'end_turn' } }),
    ])
    expect(eur[0]?.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
    expect(eur[0]?.diagnostics.map((d) => d.message)).toEqual(['cost in a currency other than USD is not counted'])
  })

  it('a new prompt in a session whose previous prompt got no answer closes the previous run first', () => {
    const runs = readLines([prompt(1, 's'), chunk('s', 'a'), prompt(2, 's'), chunk('s', 'b'), rpc({ id: 2, result: { stopReason: 'end_turn' } })])
    expect(runs.map((r) => [r.ending.kind, r.response])).toEqual([
      ['unfinished', null],
      ['answered', 'b'],
    ])
    expect(runs[0]?.diagnostics.map((d) => d.message)).toEqual(['a new session/prompt started before this one was answered'])
  })

  it('non-JSON and non-JSON-RPC lines are diagnostics of the next run; an empty log is one unfinished run', () => {
    const runs = readLines(['Starting agent...', '{"hello":1}', prompt(1, 's'), rpc({ id: 1, result: { stopReason: 'end_turn' } })])
    expect(runs[0]?.ending.kind).toBe('answered')
    expect(runs[0]?.diagnostics).toEqual([
      { line: 1, message: 'skipped a line that is not valid JSON' },
      { line: 2, message: 'skipped a line that is not a JSON-RPC message' },
    ])
    const empty = readLines([])
    expect(empty.map((r) => r.ending)).toEqual([{ kind: 'unfinished' }])
  })

  it('usage buckets: the schema split, thought inside output, cache reads inside input, and a mismatch', () => {
    expect(acpUsageBuckets({ inputTokens: 100, outputTokens: 50, thoughtTokens: 10, cachedReadTokens: 30, cachedWriteTokens: 5, totalTokens: 195 })).toEqual({
      inputTokens: 100,
      cacheReadTokens: 30,
      cacheWriteTokens: 5,
      outputTokens: 60,
      reasoningTokens: 10,
    })
    expect(acpUsageBuckets({ inputTokens: 100, outputTokens: 50, thoughtTokens: 10, cachedReadTokens: 30, totalTokens: 180 })).toEqual({
      inputTokens: 100,
      cacheReadTokens: 30,
      cacheWriteTokens: 0,
      outputTokens: 50,
      reasoningTokens: 10,
    })
    expect(acpUsageBuckets({ inputTokens: 100, outputTokens: 50, thoughtTokens: 10, cachedReadTokens: 30, totalTokens: 150 })).toEqual({
      inputTokens: 70,
      cacheReadTokens: 30,
      cacheWriteTokens: 0,
      outputTokens: 50,
      reasoningTokens: 10,
    })
    const notes: Array<string> = []
    expect(acpUsageBuckets({ inputTokens: 100, outputTokens: 50, totalTokens: 999 }, (m) => notes.push(m))).toEqual({
      inputTokens: 100,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 50,
      reasoningTokens: 0,
    })
    expect(notes).toEqual(['usage totalTokens matches no known split of its parts; read as disjoint buckets'])
    expect(acpUsageBuckets({ inputTokens: '100', outputTokens: 50 })).toBeUndefined()
  })
})

describe('acp properties', () => {
  const sid = fc.constantFrom('s1', 's2')
  const id = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('0', '1'), fc.constant(null))
  const anyField = fc.oneof(fc.anything(), fc.string(), fc.integer(), fc.constant(null))
  const message = fc.oneof(
    fc.record({
      jsonrpc: fc.constant('2.0'),
      id,
      method: fc.constant('session/prompt'),
      params: fc.oneof(anyField, fc.record({ sessionId: fc.oneof(sid, anyField), prompt: anyField })),
    }),
    fc.record({
      jsonrpc: fc.constant('2.0'),
      method: fc.constant('session/update'),
      params: fc.oneof(
        anyField,
        fc.record({
          sessionId: fc.oneof(sid, anyField),
          update: fc.oneof(
            anyField,
            fc.record({
              sessionUpdate: fc.constantFrom('agent_message_chunk', 'tool_call', 'tool_call_update', 'usage_update', 'plan', 'x'),
              content: fc.oneof(anyField, fc.record({ type: fc.constant('text'), text: anyField })),
              toolCallId: anyField,
              title: anyField,
              cost: fc.oneof(anyField, fc.record({ amount: fc.oneof(fc.double(), anyField), currency: fc.constantFrom('USD', 'EUR', 'usd') })),
            }),
          ),
        }),
      ),
    }),
    fc.record({
      jsonrpc: fc.constant('2.0'),
      id,
      method: fc.constant('session/request_permission'),
      params: fc.oneof(
        anyField,
        fc.record({
          sessionId: sid,
          toolCall: fc.oneof(anyField, fc.record({ toolCallId: fc.oneof(fc.string(), anyField), title: anyField, rawInput: anyField })),
          options: anyField,
        }),
      ),
    }),
    fc.record({
      jsonrpc: fc.constant('2.0'),
      method: fc.constantFrom('session/cancel', 'initialize', 'x/y'),
      params: fc.oneof(anyField, fc.record({ sessionId: sid })),
    }),
    fc.record({
      jsonrpc: fc.constant('2.0'),
      id,
      result: fc.oneof(
        anyField,
        fc.record({
          stopReason: fc.oneof(fc.constantFrom('end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled', '__proto__'), anyField),
          usage: fc.oneof(
            anyField,
            fc.record({
              inputTokens: fc.oneof(fc.nat(), anyField),
              outputTokens: fc.oneof(fc.nat(), anyField),
              totalTokens: anyField,
              cachedReadTokens: anyField,
            }),
          ),
          outcome: anyField,
          sessionId: fc.oneof(sid, anyField),
        }),
      ),
    }),
    fc.record({ jsonrpc: fc.constant('2.0'), id, error: anyField }),
  )
  const wrapped = fc.oneof(message, fc.record({ direction: fc.constantFrom('in', 'out'), message }), fc.record({ dir: anyField, msg: message, ts: anyField }))
  const line = fc.oneof(
    fc.string(),
    fc.json(),
    wrapped.map((m) => JSON.stringify(m)),
  )

  it('arbitrary lines never throw, never give a ProtocolError, and every run has a valid ending', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 25 }), (lines) => {
        const runs: Array<RunResult> = []
        const reader = acpReader((r) => runs.push(r), { file: 'p.jsonl' })
        lines.forEach((l, i) => expect(reader.line(l, i + 1, i === lines.length - 1)).toBeUndefined())
        reader.end()
        expect(runs.length).toBeGreaterThanOrEqual(1)
        for (const r of runs) {
          expect(endingKinds).toContain(r.ending.kind)
          expect(r.format).toBe('acp')
          if (r.ending.kind !== 'answered' && r.ending.kind !== 'cut_off') expect(r.response).toBeNull()
          if (r.cost.totalUsd !== null) expect(r.cost.totalUsd).toBeGreaterThanOrEqual(0)
        }
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('a 100,000-level nested rawInput neither throws nor is stringified', () => {
    const depth = 100_000
    const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
    const permission = `{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"c","title":"t","rawInput":${deep}}}}`
    const runs: Array<RunResult> = []
    const reader = acpReader((r) => runs.push(r), { file: null })
    expect(reader.line(JSON.stringify(prompt(1, 's')), 1, false)).toBeUndefined()
    expect(reader.line(permission, 2, false)).toBeUndefined()
    expect(reader.line(`${'['.repeat(depth)}${']'.repeat(depth)}`, 3, false)).toBeUndefined()
    reader.end()
    expect(runs).toHaveLength(1)
    const r = runs[0] as RunResult
    expect(r.ending.kind).toBe('suspended')
    if (r.ending.kind === 'suspended') {
      expect(r.ending.pending[0]?.id).toBe('c')
      expect(typeof r.ending.pending[0]?.arguments).toBe('object')
    }
    for (const d of r.diagnostics) expect(d.message.length).toBeLessThan(120)
  })
})
