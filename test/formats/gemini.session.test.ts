/**
 * Synthetic Gemini CLI session records: the `.jsonl` log (metadata, messages rewritten by id, `$set`,
 * `$rewindTo`) and the legacy `.json` `ConversationRecord`, with every inferred-ending rule of the format module.
 */
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { RunResult } from '../../src/core/RunResult.js'
import { geminiFormat, geminiReader, readGeminiDocument } from '../../src/formats/gemini.js'
import { replayStream } from '../../src/node/replay.js'

const T = (s: number): string => new Date(Date.UTC(2026, 0, 1, 10, 0, s)).toISOString()
const MODEL = 'gemini-2.5-pro'

const meta = (sessionId = 's-1') => ({ sessionId, projectHash: 'abc123', startTime: T(0), lastUpdated: T(0), kind: 'main' })
const prompt = (id: string, s: number, text = 'do something') => ({ id, timestamp: T(s), type: 'user', content: [{ text }] })
const toolResponse = (id: string, s: number, callId: string) => ({
  id,
  timestamp: T(s),
  type: 'user',
  content: [{ functionResponse: { id: callId, name: 'tool', response: { output: 'ok' } } }],
})
const tokens = (input: number, output: number, cached = 0, thoughts = 0, tool = 0) => ({
  input,
  output,
  cached,
  thoughts,
  tool,
  total: input + output + thoughts + tool,
})
const call = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: 'run_shell_command',
  args: { command: 'ls' },
  status,
  timestamp: T(0),
  ...extra,
})
const gemini = (id: string, s: number, content: unknown, extra: Record<string, unknown> = {}) => ({
  id,
  timestamp: T(s),
  type: 'gemini',
  content,
  model: MODEL,
  ...extra,
})

/** Feeds `.jsonl` lines to a fresh gemini reader; no line may return a ProtocolError. */
const readLines = (lines: ReadonlyArray<unknown>): Array<RunResult> => {
  const out: Array<RunResult> = []
  const reader = geminiReader((r) => out.push(r), { file: 'session.jsonl' })
  lines.forEach((l, i) => expect(reader.line(typeof l === 'string' ? l : JSON.stringify(l), i + 1, false)).toBeUndefined())
  reader.end()
  return out
}
const readDoc = (messages: ReadonlyArray<unknown>, sessionId = 's-doc'): ReadonlyArray<RunResult> =>
  readGeminiDocument({ sessionId, projectHash: 'abc', startTime: T(0), lastUpdated: T(60), messages }, { file: 'session.json' })
const only = (runs: ReadonlyArray<RunResult>): RunResult => {
  expect(runs).toHaveLength(1)
  return runs[0] as RunResult
}

/** A `.jsonl` session: one answered run with a rewritten message, then a second run that a `$rewindTo` removes. */
const LOG = [
  /* 1 */ meta(),
  /* 2 */ {
    $set: { messages: [{ id: 'ctx', timestamp: T(0), type: 'user', content: [{ text: '<session_context>cwd=/x</session_context>' }] }], lastUpdated: T(0) },
  },
  /* 3 */ prompt('u1', 1, 'list the files'),
  /* 4 */ gemini('g1', 2, '', { toolCalls: [call('c1', 'success')] }),
  /* 5 */ gemini('g1', 2, '', { toolCalls: [call('c1', 'success')], tokens: tokens(1000, 10, 400, 50) }),
  /* 6 */ toolResponse('r1', 3, 'c1'),
  /* 7 */ gemini('g2', 4, 'a.txt and b.txt', { tokens: tokens(1100, 5, 1000, 0, 3) }),
  /* 8 */ { $set: { lastUpdated: T(4) } },
  /* 9 */ prompt('u2', 5, 'now delete them'),
  /* 10 */ gemini('g3', 6, 'Deleting.', { toolCalls: [call('c2', 'cancelled')], tokens: tokens(1200, 8) }),
  /* 11 */ { $rewindTo: 'u2' },
  /* 12 */ { $set: { sessionId: 's-2' } },
]

describe('gemini .jsonl session: $set and $rewindTo', () => {
  it('before the rewind: two runs, the second stopped by the caller (a cancelled tool call last)', () => {
    const runs = readLines(LOG.slice(0, 10))
    expect(runs.map((r) => r.ending)).toEqual([{ kind: 'answered' }, { kind: 'stopped', by: 'caller', reason: 'tool call cancelled' }])
    expect(runs.every((r) => r.inferred && r.format === 'gemini' && r.sessionId === 's-1')).toBe(true)
  })

  it('$rewindTo drops the named prompt and all after it; $set.sessionId renames; a rewritten message counts once', () => {
    const r = only(readLines(LOG))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.inferred).toBe(true)
    expect(r.finishReason).toBeNull()
    expect(r.response).toBe('a.txt and b.txt')
    expect(r.sessionId).toBe('s-2')
    // g1 (last copy, line 5): input 1000 with cached 400 → 600 uncached; output 10 + thoughts 50.
    // g2: input 1100 with cached 1000 → 100 uncached, + tool 3 → 103; output 5.
    expect(r.usage.byModel).toEqual({
      [MODEL]: { inputTokens: 703, cacheReadTokens: 1400, cacheWriteTokens: 0, outputTokens: 65, reasoningTokens: 50, costUsd: null },
    })
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 2 })
    // The tool-response user message (line 6) and the injected context (line 2) are not prompts.
    expect(r.turns).toBe(2)
    expect(r.toolCalls).toBe(1)
    expect(r.source).toEqual({ file: 'session.jsonl', firstLine: 3, lastLine: 7 })
    expect(r.startedAt).toBe(T(1))
    expect(r.endedAt).toBe(T(4))
    expect(r.diagnostics).toEqual([])
  })

  it('$rewindTo a model message mid-run reopens that run at the tool results: unfinished', () => {
    const r = only(
      readLines([
        meta(),
        prompt('u1', 1),
        gemini('g1', 2, '', { toolCalls: [call('c1', 'success')] }),
        toolResponse('r1', 3, 'c1'),
        gemini('g2', 4, 'done'),
        { $rewindTo: 'g2' },
      ]),
    )
    expect(r.ending).toEqual({ kind: 'unfinished', lastEventType: 'user' })
    expect(r.response).toBeNull()
  })

  it("$rewindTo an unknown id drops every message (as gemini-cli's loader does), with a diagnostic", () => {
    expect(only(readLines([meta(), prompt('u1', 1), gemini('g1', 2, 'hi'), { $rewindTo: 'nope' }]))).toMatchObject({
      ending: { kind: 'unfinished' },
      inferred: false,
      diagnostics: [{ line: 4, message: 'a $rewindTo names a message that is not in the log; every message was dropped, as gemini-cli does' }],
    })
    const r = only(readLines([meta(), prompt('u1', 1), gemini('g1', 2, 'hi'), { $rewindTo: 'nope' }, prompt('u3', 5), gemini('g4', 6, 'again')]))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBe('again')
    expect(r.diagnostics.map((d) => d.line)).toEqual([4])
  })

  it('an earlier run keeps its final answer only; rewinding to that answer leaves an answered run without text', () => {
    const lines = [meta(), prompt('u1', 1), gemini('g1', 2, 'thinking aloud'), gemini('g1b', 3, 'final one'), prompt('u2', 4), gemini('g2', 5, 'two')]
    expect(readLines(lines).map((r) => r.response)).toEqual(['final one', 'two'])
    const r = only(readLines([...lines, { $rewindTo: 'g1b' }]))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBeNull()
    expect(r.diagnostics).toEqual([{ message: 'the final answer text of this run was not kept' }])
  })

  it('a message rewritten after a later one keeps its place; the run spans from its first to its last line', () => {
    const r = only(
      readLines([
        meta(),
        prompt('u1', 1),
        gemini('g1', 2, '', { toolCalls: [call('c1', 'success')] }),
        toolResponse('r1', 3, 'c1'),
        gemini('g2', 4, 'done'),
        gemini('g1', 5, '', { toolCalls: [call('c1', 'success')], tokens: tokens(10, 1) }),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBe('done')
    expect(r.source).toEqual({ file: 'session.jsonl', firstLine: 2, lastLine: 6 })
    expect(r.usage).toMatchObject({ inputTokens: 10, outputTokens: 1 })
    expect(r.endedAt).toBe(T(4))
  })

  it('bad records are diagnostics: non-JSON, non-object, unknown message type, bad $set/$rewindTo, bad tokens', () => {
    const r = only(
      readLines([
        meta(),
        prompt('u1', 1),
        'garbage',
        '[1]',
        { id: 'x', timestamp: T(2), type: 'thought' },
        { $set: 5 },
        { $rewindTo: 7 },
        { hello: 'world' },
        gemini('g1', 3, 'ok', { tokens: { input: 'many', output: 1 } }),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.usage.byModel).toEqual({})
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 0 })
    expect(r.diagnostics.map((d) => [d.line, d.message])).toEqual([
      [3, 'skipped a non-JSON line'],
      [4, 'skipped a JSON line that is not an object'],
      [5, 'skipped a message of an unknown type'],
      [6, 'skipped a $set record whose value is not an object'],
      [7, 'skipped a $rewindTo record whose target is not a string'],
      [8, 'ignored a record that is not a message, metadata, $set or $rewindTo'],
      [9, 'ignored message tokens with a count that is not a whole, non-negative number'],
    ])
  })

  it('replayStream with format auto detects a .jsonl session as gemini', async () => {
    const text = LOG.map((x) => JSON.stringify(x)).join('\n') + '\n'
    const runs: Array<RunResult> = []
    const outcome = await replayStream(Readable.from([Buffer.from(text)]), (r) => runs.push(r), { file: 'session.jsonl' })
    expect(outcome.format).toBe('gemini')
    expect(runs.map((r) => r.ending.kind)).toEqual(['answered'])
  })
})

describe('gemini session: inferred endings', () => {
  it('nothing after the prompt → unfinished', () => {
    expect(only(readDoc([prompt('u1', 1)])).ending).toEqual({ kind: 'unfinished', lastEventType: 'user' })
    // info / warning messages decide nothing.
    expect(only(readDoc([prompt('u1', 1), { id: 'i', timestamp: T(2), type: 'info', content: 'Request cancelled.' }])).ending).toEqual({
      kind: 'unfinished',
      lastEventType: 'user',
    })
  })

  it('an empty gemini message, or tool calls that all succeeded with no reply after → unfinished', () => {
    expect(only(readDoc([prompt('u1', 1), gemini('g1', 2, '')])).ending).toEqual({ kind: 'unfinished', lastEventType: 'gemini' })
    expect(only(readDoc([prompt('u1', 1), gemini('g1', 2, 'I will look', { toolCalls: [call('c1', 'success')] })])).ending).toEqual({
      kind: 'unfinished',
      lastEventType: 'gemini',
    })
    expect(only(readDoc([prompt('u1', 1), gemini('g1', 2, '', { toolCalls: [call('c1', 'executing')] })])).ending).toEqual({
      kind: 'unfinished',
      lastEventType: 'gemini',
    })
  })

  it("a tool call left in error with nothing after → failed, phase tool, with the tool's error", () => {
    const err = call('c1', 'error', {
      result: [{ functionResponse: { id: 'c1', name: 'run_shell_command', response: { error: 'permission denied' } } }],
      resultDisplay: 'shown',
    })
    expect(only(readDoc([prompt('u1', 1), gemini('g1', 2, '', { toolCalls: [err] })])).ending).toEqual({
      kind: 'failed',
      reason: 'error',
      phase: 'tool',
      error: { message: 'permission denied' },
    })
    // Newer builds also record the tool response as a user message; it does not hide the error.
    expect(only(readDoc([prompt('u1', 1), gemini('g1', 2, '', { toolCalls: [err] }), toolResponse('r1', 3, 'c1')])).ending).toMatchObject({
      kind: 'failed',
      phase: 'tool',
    })
    // resultDisplay when the result carries no error text; a fixed phrase when neither does.
    expect(only(readDoc([prompt('u1', 1), gemini('g1', 2, '', { toolCalls: [call('c1', 'error', { resultDisplay: 'shown' })] })])).ending).toMatchObject({
      error: { message: 'shown' },
    })
    expect(only(readDoc([prompt('u1', 1), gemini('g1', 2, '', { toolCalls: [call('c1', 'error')] })])).ending).toMatchObject({
      error: { message: 'a tool call failed' },
    })
  })

  it('a cancelled tool call with nothing after → stopped by caller (K8), even next to a failed one', () => {
    const r = only(readDoc([prompt('u1', 1), gemini('g1', 2, 'Starting python.', { toolCalls: [call('c1', 'error'), call('c2', 'cancelled')] })]))
    expect(r.ending).toEqual({ kind: 'stopped', by: 'caller', reason: 'tool call cancelled' })
    expect(r.response).toBeNull()
  })

  it('a tool call awaiting approval with nothing after → suspended with that call pending (K5)', () => {
    const r = only(
      readDoc([
        prompt('u1', 1),
        gemini('g1', 2, '', { toolCalls: [call('c1', 'success'), call('c9', 'awaiting_approval', { args: { command: 'rm -rf build' } })] }),
      ]),
    )
    expect(r.ending).toEqual({
      kind: 'suspended',
      pending: [{ id: 'c9', kind: 'approval', toolName: 'run_shell_command', arguments: { command: 'rm -rf build' } }],
    })
  })

  it('an error message last → failed with its text', () => {
    const r = only(readDoc([prompt('u1', 1), gemini('g1', 2, 'partial'), { id: 'e1', timestamp: T(3), type: 'error', content: 'API Error: 500 Internal' }]))
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'API Error: 500 Internal' } })
    expect(r.response).toBeNull()
  })

  it('earlier tool errors and cancellations do not decide a run a later answer ends', () => {
    const r = only(
      readDoc([
        prompt('u1', 1),
        gemini('g1', 2, '', { toolCalls: [call('c1', 'error')] }),
        gemini('g2', 3, '', { toolCalls: [call('c2', 'cancelled')] }),
        gemini('g3', 4, 'Here it is.'),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBe('Here it is.')
  })

  it('thought parts are not answer text; text parts are joined', () => {
    const r = only(readDoc([prompt('u1', 1), gemini('g1', 2, [{ text: 'hidden', thought: true }, { text: 'Hello ' }, { text: 'world' }])]))
    expect(r.response).toBe('Hello world')
    expect(only(readDoc([prompt('u1', 1), gemini('g1', 2, [{ text: 'only thinking', thought: true }])])).ending.kind).toBe('unfinished')
  })

  it('a gemini message before any prompt makes a run; leading info messages do not', () => {
    expect(readDoc([{ id: 'i', timestamp: T(0), type: 'info', content: 'hi' }]).map((r) => r.ending)).toEqual([{ kind: 'unfinished' }])
    expect(only(readDoc([gemini('g0', 1, 'resumed answer')])).ending).toEqual({ kind: 'answered' })
  })

  it('legacy document: messages without ids are still read; tokens per message are summed, thoughts in output', () => {
    const { id: _a, ...p } = prompt('x', 1)
    const { id: _b, ...g } = gemini('x', 2, 'done', { tokens: tokens(500, 20, 100, 30) })
    const r = only(readDoc([p, g, g]))
    expect(r.usage).toMatchObject({ inputTokens: 800, cacheReadTokens: 200, outputTokens: 100, reasoningTokens: 60 })
    expect(r.source).toEqual({ file: 'session.json', firstLine: null, lastLine: null })
    expect(r.turns).toBe(2)
  })

  it('tokens whose sum would pass 2^53−1 are ignored whole (reasoning never exceeds output)', () => {
    const r = only(readDoc([prompt('u1', 1), gemini('g1', 2, 'x', { tokens: { input: 1, output: Number.MAX_SAFE_INTEGER, cached: 0, thoughts: 2 } })]))
    expect(r.usage).toMatchObject({ outputTokens: 0, reasoningTokens: 0, byModel: {} })
    expect(r.diagnostics.map((d) => d.message)).toEqual(['ignored message tokens with a count that is not a whole, non-negative number'])
  })

  it('a whole ConversationRecord on one line is read by the line reader', () => {
    const doc = { ...meta('one-line'), messages: [prompt('u1', 1), gemini('g1', 2, 'yes')] }
    const r = only(readLines([JSON.stringify(doc)]))
    expect(r).toMatchObject({ sessionId: 'one-line', ending: { kind: 'answered' }, response: 'yes', source: { firstLine: 1, lastLine: 1 } })
  })

  it('a document that is not a session record gives one unfinished run with a diagnostic', () => {
    for (const doc of [null, 3, 'x', [1, 2], { messages: 'no' }, { foo: 1 }]) {
      const runs = readGeminiDocument(doc, { file: null })
      expect(runs).toHaveLength(1)
      expect(runs[0]?.ending).toEqual({ kind: 'unfinished' })
      expect(runs[0]?.diagnostics.length).toBe(1)
    }
  })

  it('sniffDocument recognises a ConversationRecord and nothing else', () => {
    expect(geminiFormat.sniffDocument?.({ ...meta(), messages: [] })).toBe(1)
    expect(geminiFormat.sniffDocument?.({ sessionId: 'x', messages: [] })).toBe(0.8)
    expect(geminiFormat.sniffDocument?.({ currentStep: {}, messages: [] })).toBe(0)
    expect(geminiFormat.sniffDocument?.([{ type: 'finish' }])).toBe(0)
  })

  it('a pretty-printed session .json replays in document mode with format auto', async () => {
    const text = JSON.stringify({ ...meta('pretty'), messages: [prompt('u1', 1), gemini('g1', 2, 'fine')] }, null, 2)
    const runs: Array<RunResult> = []
    const outcome = await replayStream(Readable.from([Buffer.from(text)]), (r) => runs.push(r), { file: 'session.json' })
    expect(outcome.format).toBe('gemini')
    expect(runs.map((r) => [r.sessionId, r.ending.kind, r.response])).toEqual([['pretty', 'answered', 'fine']])
  })
})
