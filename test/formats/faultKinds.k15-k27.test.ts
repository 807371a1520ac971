/**
 * Real-world fidelity (issue 12): the fault kinds K15–K27 of shared/reference/bug-kinds.md and the record
 * variants of current Claude Code, Codex and ACP logs. Each test reads a small, neutral input in the real tool's
 * record shapes (test/fixtures/<format>/, see the folders' PROVENANCE.md / README.md, or inline) and holds the
 * right values: ending kind and fields, every token bucket, cost or null, response, run count and exit code.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Pipeline } from '../../src/core/pipeline.js'
import type { RunResult } from '../../src/core/RunResult.js'
import type { Translator } from '../../src/core/translator.js'
import { claudeCodeTranslatorSharing, SeenRecords } from '../../src/formats/claudeCode.js'
import { formatByName } from '../../src/formats/index.js'
import { replayFile } from '../../src/node/replay.js'
import { repoRoot, runCli } from '../support/cli.js'

const FIX = join(repoRoot, 'test', 'fixtures')
const fx = (dir: string, name: string): string => join(FIX, dir, name)

/** Runs of in-memory records of `format` (objects are read as parsed lines, strings as raw lines), lines 1, 2, …. */
const runsOf = (format: string, records: ReadonlyArray<unknown>): Array<RunResult> => {
  const p = new Pipeline(formatByName(format)?.translator as Translator<unknown>, { file: null })
  const out: Array<RunResult> = []
  records.forEach((r, i) => {
    if (typeof r === 'string') p.textLine(r, i + 1, false)
    else p.record(r, i + 1)
    out.push(...p.takeResults())
  })
  p.end()
  out.push(...p.takeResults())
  return out
}
const only = (runs: ReadonlyArray<RunResult>): RunResult => {
  expect(runs).toHaveLength(1)
  return runs[0] as RunResult
}
const linesOf = (path: string): Array<unknown> =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as unknown)
/** The CLI's exit code and parsed `--json` runs for one input. */
const cli = async (input: string): Promise<{ code: number; runs: Array<RunResult> }> => {
  const prev = process.cwd()
  process.chdir(repoRoot)
  try {
    const r = await runCli(['replay', '--json', input])
    return {
      code: r.code,
      runs: r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as RunResult),
    }
  } finally {
    process.chdir(prev)
  }
}
const NO_COST = { totalUsd: null, complete: false, missing: 0 }
const bucketsOf = (r: RunResult): Record<string, number> => {
  const { byModel: _b, ...rest } = r.usage
  return rest
}

// ---------------------------------------------------------------------------------------------------------------
describe('1. K15: forks and resumes — copied history is no run and adds no usage', () => {
  const FORK = fx('codex-rollout', 'fork-copied-parent-history.jsonl')

  it('Codex: a forked_from_id rollout counts only the fork’s own turn, differenced from the copied running total', async () => {
    const r = only(await replayFile(FORK))
    expect(r.sessionId).toBe('019f6968-bed6-7d31-9a55-3c0e4b1f2a01')
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.finishReason).toBe('task_complete')
    expect(r.response).toBe('ok3')
    expect(r.inferred).toBe(false)
    expect(r.turns).toBe(1)
    expect(r.toolCalls).toBe(0)
    // last copied total 43884 / 20480 / 11 → the fork's own 64884 / 40576 / 18: 21000 input of which 20096 cached
    expect(bucketsOf(r)).toEqual({ inputTokens: 904, cacheReadTokens: 20096, cacheWriteTokens: 0, outputTokens: 7, reasoningTokens: 0 })
    expect(Object.keys(r.usage.byModel)).toEqual(['gpt-5.6-terra'])
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
    expect(r.durationMs).toBe(2438)
    expect(r.diagnostics).toEqual([{ line: 18, message: 'read 16 records before the fork point as history copied from the parent session: no run, no usage' }])
    const c = await cli('test/fixtures/codex-rollout/fork-copied-parent-history.jsonl')
    expect(c.code).toBe(0)
    expect(c.runs).toHaveLength(1)
  })

  it('Codex: an empty fork (only the copied history) is one unfinished run with no usage and an unknown cost', () => {
    const lines = linesOf(FORK).slice(0, 17)
    const r = only(runsOf('codex', lines))
    expect(r.ending).toEqual({ kind: 'unfinished' })
    expect(r.response).toBeNull()
    expect(bucketsOf(r)).toEqual({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 })
    expect(r.usage.byModel).toEqual({})
    expect(r.cost).toEqual(NO_COST)
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      'the rollout holds only history copied from its parent session (a fork with no turn of its own): 16 records, no run and no usage',
    ])
  })

  it('Codex: a rollout that opens with another session’s records is a copy too (no forked_from_id)', () => {
    const lines = linesOf(FORK) as Array<Record<string, unknown>>
    const first = lines[0] as { payload: Record<string, unknown> }
    const { forked_from_id: _f, ...meta } = first.payload
    const r = only(runsOf('codex', [{ ...first, payload: meta }, ...lines.slice(1)]))
    expect(r.response).toBe('ok3')
    expect(bucketsOf(r)).toEqual({ inputTokens: 904, cacheReadTokens: 20096, cacheWriteTokens: 0, outputTokens: 7, reasoningTokens: 0 })
  })

  it('Codex: without comparable turn ids the fork point is a turn record written a second after the fork, or a task started after it', () => {
    const strip = (v: unknown): unknown => {
      const o = v as { type: string; payload: Record<string, unknown> }
      if (o.type !== 'turn_context' && !(o.type === 'event_msg' && o.payload['type'] === 'task_started')) return v
      const { turn_id: _t, ...rest } = o.payload
      return { ...o, payload: rest }
    }
    const r = only(runsOf('codex', linesOf(FORK).map(strip)))
    expect(r.response).toBe('ok3')
    expect(r.usage.inputTokens).toBe(904)
  })

  describe('Claude Code: a resumed session’s new file repeats earlier records with the same ids', () => {
    const DIR = 'test/fixtures/claude-code-transcript/resumed-session'
    /** The runs of one file's records read through the pipeline with the set the files of one input share. */
    const readSharing = (seen: SeenRecords, records: ReadonlyArray<unknown>): Array<RunResult> => {
      const p = new Pipeline(claudeCodeTranslatorSharing(seen) as Translator<unknown>, { file: null })
      records.forEach((r, i) => p.record(r, i + 1))
      p.end()
      return p.takeResults()
    }
    it('across the files of one directory input the copies count once (replay of the directory)', async () => {
      const c = await cli(DIR)
      expect(c.code).toBe(0)
      expect(c.runs.map((r) => [r.source?.file, r.response])).toEqual([
        [`${DIR}/1-original.jsonl`, 'Node 20.19 or later (package.json engines).'],
        [`${DIR}/2-resumed.jsonl`, 'npm 10 (it ships with Node 20).'],
      ])
      const [a, b] = c.runs as [RunResult, RunResult]
      expect(bucketsOf(a)).toEqual({ inputTokens: 3, cacheReadTokens: 8000, cacheWriteTokens: 2400, outputTokens: 14, reasoningTokens: 0 })
      expect(bucketsOf(b)).toEqual({ inputTokens: 4, cacheReadTokens: 10400, cacheWriteTokens: 120, outputTokens: 11, reasoningTokens: 0 })
      expect(b.turns).toBe(1)
      expect(b.diagnostics.map((d) => d.message)).toEqual([
        'skipped records that another file of this input holds too (the same record uuid, or message id and request id: a resumed or forked session copies them); they count in the file read first',
      ])
    })
    it('the library call takes one shared set; a file replayed alone cannot know its first records are copies', async () => {
      const seen = new SeenRecords()
      await replayFile(join(repoRoot, DIR, '1-original.jsonl'), { seen })
      const resumed = await replayFile(join(repoRoot, DIR, '2-resumed.jsonl'), { seen })
      expect(resumed.map((r) => r.response)).toEqual(['npm 10 (it ships with Node 20).'])
      expect(resumed[0]?.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
      const alone = await replayFile(join(repoRoot, DIR, '2-resumed.jsonl'))
      expect(alone.map((r) => r.response)).toEqual(['Node 20.19 or later (package.json engines).', 'npm 10 (it ships with Node 20).'])
    })
    it('a message id + request id copied under a new record uuid still counts once', async () => {
      const seen = new SeenRecords()
      const orig = linesOf(join(repoRoot, DIR, '1-original.jsonl'))
      const read = (records: ReadonlyArray<unknown>): Array<RunResult> => readSharing(seen, records)
      read(orig)
      const renamed = orig.map((r, i) => ({ ...(r as object), uuid: `new-${i}` }))
      const runs = read(renamed)
      // the user prompt has a new uuid (no copy), the assistant message is a copy: a prompt with no answer of its own
      expect(runs).toHaveLength(1)
      expect(runs[0]?.usage.inputTokens).toBe(0)
      expect(runs[0]?.ending).toEqual({ kind: 'unfinished', lastEventType: 'user' })
    })
    it('a record uuid spelled like another record’s message key is no copy of it (the two kinds of key never meet)', () => {
      const seen = new SeenRecords()
      const orig = linesOf(join(repoRoot, DIR, '1-original.jsonl')) as Array<Record<string, unknown>>
      const read = (records: ReadonlyArray<unknown>): Array<RunResult> => readSharing(seen, records)
      read(orig)
      // every record of a second file with a new uuid that spells the first file's message keys, and no message
      // key of its own (new message ids): nothing is a copy, so the run counts its usage again
      const keys = orig.flatMap((r) => {
        const m = r['message'] as Record<string, unknown> | undefined
        return typeof m?.['id'] === 'string' && typeof r['requestId'] === 'string'
          ? [`\u0000m${m['id'].length}\u0000${m['id']}${r['requestId']}`, `\u0000m${m['id']}\u0000${r['requestId']}`, `m:${m['id']}\u0000${r['requestId']}`]
          : []
      })
      expect(keys.length).toBeGreaterThan(0)
      const spelled = orig.map((r, i) => {
        const m = r['message'] as Record<string, unknown> | undefined
        return { ...r, uuid: keys[i % keys.length], ...(m !== undefined ? { message: { ...m, id: `other-${i}` } } : {}) }
      })
      const runs = read(spelled)
      expect(runs).toHaveLength(1)
      expect(runs[0]?.response).toBe('Node 20.19 or later (package.json engines).')
      expect(bucketsOf(runs[0] as RunResult)).toEqual({ inputTokens: 3, cacheReadTokens: 8000, cacheWriteTokens: 2400, outputTokens: 14, reasoningTokens: 0 })
      // no record was skipped as a copy (the prompt spelled like a message key included)
      expect(runs[0]?.diagnostics).toEqual([])
      expect(seen.copies).toBe(0)
    })
    // a hostile-input trial: the key joined the two ids with U+0000, which an id may hold, so `msg\u0000X` + `req`
    // and `msg` + `X\u0000req` were one key, and the second file's answer was dropped as a copy of the first's
    it('two different message and request ids never share a key, whatever characters the ids hold', () => {
      const seen = new SeenRecords()
      const file = (n: string, mid: string, rid: string, input: number): Array<Record<string, unknown>> => [
        { type: 'user', sessionId: `s${n}`, uuid: `${n}1`, timestamp: '2025-10-31T08:00:00Z', message: { role: 'user', content: 'hi' } },
        {
          type: 'assistant',
          sessionId: `s${n}`,
          uuid: `${n}2`,
          timestamp: '2025-10-31T08:00:02Z',
          requestId: rid,
          message: {
            id: mid,
            role: 'assistant',
            model: 'claude-sonnet-4-5-20250929',
            content: [{ type: 'text', text: 'ok' }],
            stop_reason: 'end_turn',
            usage: { input_tokens: input, output_tokens: 1 },
          },
        },
      ]
      const a = readSharing(seen, file('a', 'msg\u0000X', 'req', 100))
      const b = readSharing(seen, file('b', 'msg', 'X\u0000req', 1000))
      expect(a.map((r) => [r.ending.kind, r.usage.inputTokens])).toStrictEqual([['answered', 100]])
      expect(b.map((r) => [r.ending.kind, r.usage.inputTokens])).toStrictEqual([['answered', 1000]])
      expect(seen.copies).toBe(0)
      // the same ids again are a copy
      expect(readSharing(seen, file('c', 'msg', 'X\u0000req', 1000)).map((r) => r.usage.inputTokens)).toStrictEqual([0])
      expect(seen.copies).toBe(1)
    })
  })
})

// ---------------------------------------------------------------------------------------------------------------
describe('2. K18: a success result on an unanswered tool call is not answered', () => {
  it('stop_reason tool_use, empty result text → unfinished (tool_use), response null; usage and cost from the result', async () => {
    const r = only(await replayFile(fx('claude-code-stream-json', 'success-on-unanswered-tool-call.jsonl')))
    expect(r.ending).toEqual({ kind: 'unfinished', lastEventType: 'tool_use' })
    expect(r.finishReason).toBe('success')
    expect(r.response).toBeNull()
    expect(r.inferred).toBe(false)
    expect(r.turns).toBe(2)
    expect(r.toolCalls).toBe(2)
    expect(bucketsOf(r)).toEqual({ inputTokens: 8, cacheReadTokens: 24100, cacheWriteTokens: 2520, outputTokens: 149, reasoningTokens: 0 })
    expect(r.cost).toEqual({ totalUsd: 0.0307, complete: true, missing: 0 })
    const c = await cli('test/fixtures/claude-code-stream-json/success-on-unanswered-tool-call.jsonl')
    expect(c.code).toBe(1)
  })
  it('the tool results delivered but no continuation (stop_reason tool_use, empty result) → unfinished (tool_result)', () => {
    const recs = linesOf(fx('claude-code-stream-json', 'success-on-unanswered-tool-call.jsonl'))
    const res = recs.pop() as Record<string, unknown>
    const delivered = {
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: 'toolu_01Write', type: 'tool_result', content: 'File created' }] },
      parent_tool_use_id: null,
      session_id: res['session_id'],
    }
    const r = only(runsOf('claude-code', [...recs, delivered, res]))
    expect(r.ending).toEqual({ kind: 'unfinished', lastEventType: 'tool_result' })
    expect(r.response).toBeNull()
  })
  it('a success whose last message stopped on tool_use but whose result has text stays answered (only an empty result is no answer)', () => {
    const recs = linesOf(fx('claude-code-stream-json', 'success-on-unanswered-tool-call.jsonl'))
    const res = { ...(recs.pop() as Record<string, unknown>), result: 'Wrote the test file.', stop_reason: 'end_turn' }
    expect(only(runsOf('claude-code', [...recs, res])).ending).toEqual({ kind: 'answered' })
  })
})

// ---------------------------------------------------------------------------------------------------------------
describe('3. K19: the response is the whole final message, not the part the result text holds', () => {
  it('two text blocks around a server tool: both, in order', async () => {
    const r = only(await replayFile(fx('claude-code-stream-json', 'result-text-part-of-final-message.jsonl')))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.finishReason).toBe('completed')
    expect(r.response).toBe('I checked the three endpoints against the spec.\n\nAll three match; the only gap is the missing 404 case for /users.')
    expect(r.toolCalls).toBe(1)
    expect(r.cost).toEqual({ totalUsd: 0.0117, complete: true, missing: 0 })
  })
  it('a result text that is not part of the final message stays the response (e.g. a structured summary)', () => {
    const recs = linesOf(fx('claude-code-stream-json', 'result-text-part-of-final-message.jsonl'))
    const res = { ...(recs.pop() as Record<string, unknown>), result: 'Review: 3/3 endpoints match.' }
    expect(only(runsOf('claude-code', [...recs, res])).response).toBe('Review: 3/3 endpoints match.')
  })
  it('an empty result text on an end_turn answer: the final message is the response', () => {
    const recs = linesOf(fx('claude-code-stream-json', 'result-text-part-of-final-message.jsonl'))
    const res = { ...(recs.pop() as Record<string, unknown>), result: '' }
    expect(only(runsOf('claude-code', [...recs, res])).response).toContain('the missing 404 case')
  })
})

// ---------------------------------------------------------------------------------------------------------------
describe('4. K23: a cancel answered by a normal stop reason is stopped by the caller', () => {
  const rpc = (o: Record<string, unknown>): Record<string, unknown> => ({ jsonrpc: '2.0', ...o })
  const prompt = rpc({ id: 2, method: 'session/prompt', params: { sessionId: 's', prompt: [{ type: 'text', text: 'go' }] } })
  const chunk = rpc({
    method: 'session/update',
    params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'partial' } } },
  })
  const cancel = rpc({ method: 'session/cancel', params: { sessionId: 's' } })
  const answer = (stopReason: string): Record<string, unknown> => rpc({ id: 2, result: { stopReason } })

  it('ACP: session/cancel, then end_turn → stopped by caller, end_turn kept as finishReason, the partial text no answer', async () => {
    const r = only(await replayFile(fx('acp', 'synthetic-cancel-then-end-turn.jsonl')))
    expect(r.ending).toEqual({ kind: 'stopped', by: 'caller' })
    expect(r.finishReason).toBe('end_turn')
    expect(r.response).toBeNull()
    expect(r.inferred).toBe(false)
    expect(r.toolCalls).toBe(1)
    expect(bucketsOf(r)).toEqual({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 })
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
    expect((await cli('test/fixtures/acp/synthetic-cancel-then-end-turn.jsonl')).code).toBe(1)
  })
  it('ACP: every normal stop after a cancel is the stop; a limit or an error keep their meaning; a cancel never answered is stopped, inferred', () => {
    expect(only(runsOf('acp', [prompt, chunk, cancel, answer('max_tokens')])).ending).toEqual({ kind: 'stopped', by: 'caller' })
    expect(only(runsOf('acp', [prompt, chunk, cancel, answer('refusal')])).ending).toEqual({ kind: 'stopped', by: 'caller' })
    expect(only(runsOf('acp', [prompt, cancel, answer('max_turn_requests')])).ending).toEqual({ kind: 'limit', reason: 'max_turn_requests' })
    // K8: an error response after the cancel is the cancellation surfacing as an error
    expect(only(runsOf('acp', [prompt, cancel, rpc({ id: 2, error: { code: -32603, message: 'aborted' } })])).ending).toEqual({ kind: 'stopped', by: 'caller' })
    const open = only(runsOf('acp', [prompt, chunk, cancel]))
    expect(open.ending).toEqual({ kind: 'stopped', by: 'caller' })
    expect(open.inferred).toBe(true)
    expect(open.finishReason).toBeNull()
    expect(open.source).toEqual({ file: null, firstLine: 1, lastLine: 3 })
    // a cancel before the prompt, or after its response, is no cancel of it
    expect(only(runsOf('acp', [cancel, prompt, chunk, answer('end_turn')])).ending).toEqual({ kind: 'answered' })
    expect(only(runsOf('acp', [prompt, chunk, answer('end_turn'), cancel])).ending).toEqual({ kind: 'answered' })
  })
  it('AI SDK UI message stream: an abort chunk, then finish → stopped by caller, the partial text no answer', () => {
    const r = only(
      runsOf('ai-sdk', [
        'data: {"type":"start","messageId":"msg-k23"}',
        'data: {"type":"start-step"}',
        'data: {"type":"text-start","id":"t1"}',
        'data: {"type":"text-delta","id":"t1","delta":"Half of the"}',
        'data: {"type":"abort"}',
        'data: {"type":"finish"}',
        'data: [DONE]',
      ]),
    )
    expect(r.ending).toEqual({ kind: 'stopped', by: 'caller' })
    expect(r.response).toBeNull()
  })
  it('AI SDK fullStream: abort, then finish length → stopped (not cut off)', () => {
    const r = only(
      runsOf('ai-sdk', [
        { type: 'start' },
        { type: 'start-step' },
        { type: 'text-delta', id: 't', text: 'Roses are' },
        { type: 'abort' },
        { type: 'finish', finishReason: 'length' },
      ]),
    )
    expect(r.ending).toEqual({ kind: 'stopped', by: 'caller' })
    expect(r.finishReason).toBe('length')
    expect(r.response).toBeNull()
  })
})

// ---------------------------------------------------------------------------------------------------------------
describe('5. ACP one-way (agent-side) logs', () => {
  it('responses to requests not in the log and bare {sessionId, update} lines: each PromptResponse ends a turn of the updates before it', async () => {
    const runs = await replayFile(fx('acp', 'synthetic-agent-side-one-way.jsonl'))
    expect(runs).toHaveLength(2)
    const [a, b] = runs as [RunResult, RunResult]
    expect(a.format).toBe('acp')
    expect(a.sessionId).toBe('sess_agent_side')
    expect(a.ending).toEqual({ kind: 'answered' })
    expect(a.finishReason).toBe('end_turn')
    expect(a.response).toBe('Checking the lockfile: it pins 14 packages.')
    expect(a.toolCalls).toBe(1)
    expect(a.turns).toBe(1)
    expect(Object.keys(a.usage.byModel)).toEqual(['example-model-2'])
    expect(a.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
    expect(a.source).toEqual({ file: fx('acp', 'synthetic-agent-side-one-way.jsonl'), firstLine: 4, lastLine: 8 })
    expect(a.diagnostics).toEqual([])
    expect(b.ending).toEqual({ kind: 'cut_off', finishReason: 'max_tokens' })
    expect(b.response).toBe('Upgrading them one by one: react, react-dom,')
    expect((await cli('test/fixtures/acp/synthetic-agent-side-one-way.jsonl')).code).toBe(1)
  })
  it('a log of bare updates is detected as ACP', async () => {
    const { detectLines } = await import('../../src/formats/index.js')
    const lines = linesOf(fx('acp', 'synthetic-agent-side-one-way.jsonl')).slice(2, 7)
    expect(detectLines(lines)?.name).toBe('acp')
  })
  it('history a session/load replays before its (unpaired) response makes no run', () => {
    const bare = (u: Record<string, unknown>): Record<string, unknown> => ({ sessionId: 'h', update: u })
    const runs = runsOf('acp', [
      bare({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'old question' } }),
      bare({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'old answer' } }),
      { jsonrpc: '2.0', id: 1, result: { models: { currentModelId: 'm' } } },
      bare({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'new answer' } }),
      { jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } },
    ])
    expect(runs.map((r) => [r.ending.kind, r.response])).toEqual([['answered', 'new answer']])
  })
  it('an unpaired PromptResponse with no update before it is still a turn (no content)', () => {
    const r = only(runsOf('acp', [{ jsonrpc: '2.0', id: 7, result: { stopReason: 'refusal' } }]))
    expect(r.ending).toEqual({ kind: 'cut_off', finishReason: 'refusal' })
    expect(r.sessionId).toBeNull()
    expect(r.response).toBeNull()
  })
})

// ---------------------------------------------------------------------------------------------------------------
describe('6. K24: a Codex steer message belongs to the running turn', () => {
  const STEER = fx('codex-rollout', 'steer-inside-running-turn.jsonl')
  it('a user_message inside the turn (same turn_id next, no new task_started) → one run, answered at its task_complete', async () => {
    const r = only(await replayFile(STEER))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.finishReason).toBe('task_complete')
    expect(r.response).toBe('Moved the loader to src/config/loader.ts; the old variable names still work.')
    expect(r.turns).toBe(1)
    expect(r.toolCalls).toBe(2)
    expect(bucketsOf(r)).toEqual({ inputTokens: 7560, cacheReadTokens: 19840, cacheWriteTokens: 0, outputTokens: 702, reasoningTokens: 256 })
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 3 })
    expect(r.source?.firstLine).toBe(1)
    expect(r.source?.lastLine).toBe(17)
    expect((await cli('test/fixtures/codex-rollout/steer-inside-running-turn.jsonl')).code).toBe(0)
  })
  it('a user_message followed by the task_started of another turn was that turn’s prompt: two runs, the first unfinished', () => {
    const lines = linesOf(STEER).slice(0, 8) as Array<Record<string, unknown>>
    const next = [
      { timestamp: '2026-08-03T10:49:05.000Z', type: 'event_msg', payload: { type: 'task_started', turn_id: '019fc73d-d000-7a00-8b10-4b5c6d7e8f03' } },
      { timestamp: '2026-08-03T10:49:06.000Z', type: 'event_msg', payload: { type: 'agent_message', message: 'Kept the old names.' } },
      {
        timestamp: '2026-08-03T10:49:06.100Z',
        type: 'event_msg',
        payload: { type: 'task_complete', turn_id: '019fc73d-d000-7a00-8b10-4b5c6d7e8f03', last_agent_message: 'Kept the old names.' },
      },
    ]
    const runs = runsOf('codex', [...lines, ...next])
    expect(runs.map((r) => r.ending)).toEqual([{ kind: 'unfinished', lastEventType: 'function_call' }, { kind: 'answered' }])
    expect(runs[1]?.response).toBe('Kept the old names.')
  })
  it('a message that replaced the running turn (turn_aborted replaced) is the next run’s prompt', () => {
    const lines = linesOf(STEER).slice(0, 7)
    const next = [
      {
        timestamp: '2026-08-03T10:49:04.100Z',
        type: 'event_msg',
        payload: { type: 'turn_aborted', turn_id: '019fc73d-bd60-7a00-8b10-4b5c6d7e8f02', reason: 'replaced' },
      },
      { timestamp: '2026-08-03T10:49:05.000Z', type: 'event_msg', payload: { type: 'task_started', turn_id: '019fc73d-d000-7a00-8b10-4b5c6d7e8f03' } },
      {
        timestamp: '2026-08-03T10:49:06.100Z',
        type: 'event_msg',
        payload: { type: 'task_complete', turn_id: '019fc73d-d000-7a00-8b10-4b5c6d7e8f03', last_agent_message: 'Done.' },
      },
    ]
    const runs = runsOf('codex', [...lines, ...next])
    expect(runs.map((r) => r.ending)).toEqual([{ kind: 'stopped', by: 'caller', reason: 'replaced' }, { kind: 'answered' }])
    expect(runs[1]?.response).toBe('Done.')
    expect(runs[1]?.turns).toBe(1)
  })
})

// ---------------------------------------------------------------------------------------------------------------
describe('7. K25: a provider error object in place of an assistant message is failed (provider)', () => {
  it('transcript: Bedrock Output.__type …Exception, empty content → failed provider_error, phase provider, the type kept; cost unknown', async () => {
    const r = only(await replayFile(fx('claude-code-transcript', 'bedrock-error-object.jsonl')))
    expect(r.ending).toEqual({
      kind: 'failed',
      reason: 'provider_error',
      phase: 'provider',
      error: { message: 'UnknownOperationException', name: 'UnknownOperationException', code: 'com.amazon.coral.service#UnknownOperationException' },
    })
    expect(r.inferred).toBe(true)
    expect(r.response).toBeNull()
    expect(r.turns).toBe(0)
    expect(bucketsOf(r)).toEqual({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 })
    expect(r.cost).toEqual(NO_COST)
    expect((await cli('test/fixtures/claude-code-transcript/bedrock-error-object.jsonl')).code).toBe(1)
  })
  it('stream-json: the same record with no result after it → failed in phase provider with the error’s own message', () => {
    const r = only(
      runsOf('claude-code', [
        { type: 'system', subtype: 'init', session_id: 'b1', tools: [], model: 'm', claude_code_version: '2.1.0' },
        {
          type: 'assistant',
          session_id: 'b1',
          parent_tool_use_id: null,
          message: {
            Output: { __type: 'com.amazon.coral.validate#ValidationException', message: 'messages: text content blocks must be non-empty' },
            Version: '1.0',
            content: [],
          },
        },
      ]),
    )
    expect(r.ending).toEqual({
      kind: 'failed',
      reason: 'provider_error',
      phase: 'provider',
      error: { message: 'messages: text content blocks must be non-empty', code: 'com.amazon.coral.validate#ValidationException', name: 'ValidationException' },
    })
    expect(r.cost).toEqual(NO_COST)
  })
  it('an __type that names no error, or a message with content, is an ordinary message', () => {
    const base = { type: 'assistant', session_id: 'b1', parent_tool_use_id: null }
    const ok = runsOf('claude-code', [
      { type: 'system', subtype: 'init', session_id: 'b1', tools: [], model: 'm', claude_code_version: '2.1.0' },
      { ...base, message: { id: 'm1', Output: { __type: 'com.amazon#ListResponse' }, content: [{ type: 'text', text: 'hello' }] } },
      { type: 'result', subtype: 'success', is_error: false, num_turns: 1, result: 'hello', session_id: 'b1' },
    ])
    expect(only(ok).ending).toEqual({ kind: 'answered' })
  })
})

// ---------------------------------------------------------------------------------------------------------------
describe('8. K26: the same assistant record written twice counts once', () => {
  it('an adjacent copy (new uuid) neither doubles the text nor the usage; a late copy of an earlier message changes nothing', async () => {
    const runs = await replayFile(fx('claude-code-transcript', 'duplicate-assistant-record.jsonl'))
    expect(runs).toHaveLength(2)
    const [a, b] = runs as [RunResult, RunResult]
    expect(a.ending).toEqual({ kind: 'answered' })
    expect(a.response).toBe('It retries a failed request three times with exponential backoff.')
    expect(bucketsOf(a)).toEqual({ inputTokens: 3, cacheReadTokens: 12000, cacheWriteTokens: 900, outputTokens: 18, reasoningTokens: 0 })
    expect(a.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
    expect(a.turns).toBe(1)
    expect(b.ending).toEqual({ kind: 'answered' })
    expect(b.response).toBe('All 4 retry tests pass.')
    expect(b.turns).toBe(2)
    expect(b.toolCalls).toBe(1)
    expect(bucketsOf(b)).toEqual({ inputTokens: 11, cacheReadTokens: 26100, cacheWriteTokens: 420, outputTokens: 49, reasoningTokens: 0 })
    expect(b.cost).toEqual({ totalUsd: null, complete: false, missing: 2 })
  })
  it('stream-json: a repeated record of the final message does not repeat its text', () => {
    const init = { type: 'system', subtype: 'init', session_id: 'd1', tools: [], model: 'm', claude_code_version: '2.1.0' }
    const rec = {
      type: 'assistant',
      session_id: 'd1',
      parent_tool_use_id: null,
      message: { id: 'msg_d', model: 'm', content: [{ type: 'text', text: 'Once.' }], usage: { input_tokens: 2, output_tokens: 3 } },
    }
    const r = only(
      runsOf('claude-code', [
        init,
        rec,
        { ...rec, uuid: 'other' },
        { type: 'result', subtype: 'success', is_error: false, num_turns: 1, result: 'Once.', session_id: 'd1' },
      ]),
    )
    expect(r.response).toBe('Once.')
    expect(r.usage.inputTokens).toBe(2)
    expect(r.usage.outputTokens).toBe(3)
  })
})

// ---------------------------------------------------------------------------------------------------------------
describe('9. K27: nothing priced is an unknown cost, never a complete $0 — in every format', () => {
  it('a Claude Code transcript prompt with no model output', () => {
    const r = only(
      runsOf('claude-code', [
        { type: 'user', sessionId: 'k27', uuid: 'u1', parentUuid: null, isSidechain: false, message: { role: 'user', content: 'hello?' } },
      ]),
    )
    expect(r.ending).toEqual({ kind: 'unfinished', lastEventType: 'user' })
    expect(r.cost).toEqual(NO_COST)
  })
  it('a Claude Code stream with no result and no message usage', () => {
    const r = only(
      runsOf('claude-code', [
        { type: 'system', subtype: 'init', session_id: 'k', tools: [], model: 'm', claude_code_version: '2.1.0' },
        { type: 'user', session_id: 'k', parent_tool_use_id: null, message: { role: 'user', content: 'hi' } },
      ]),
    )
    expect(r.cost).toEqual(NO_COST)
  })
  it('ACP: a prompt turn without a cost update is a missing cost, not $0', () => {
    const r = only(
      runsOf('acp', [
        { jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [] } },
        { jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } },
      ]),
    )
    expect(r.cost.totalUsd).toBeNull()
    expect(r.cost.complete).toBe(false)
  })
  it('Codex: a prompt with no token count', () => {
    const r = only(
      runsOf('codex', [
        { type: 'session_meta', payload: { id: 'c' } },
        { type: 'event_msg', payload: { type: 'user_message', message: 'q' } },
      ]),
    )
    expect(r.cost).toEqual(NO_COST)
  })
})

// ---------------------------------------------------------------------------------------------------------------
describe('10. Claude Code result usage without modelUsage (1.0.x) is the run’s total', () => {
  it('the result usage (the figure total_cost_usd comes from), not the messages’ undercounting sum', async () => {
    const r = only(await replayFile(fx('claude-code-stream-json', 'result-usage-without-model-usage.jsonl')))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(bucketsOf(r)).toEqual({ inputTokens: 14, cacheReadTokens: 31000, cacheWriteTokens: 4300, outputTokens: 520, reasoningTokens: 0 })
    expect(r.usage.byModel).toEqual({
      'claude-sonnet-4-20250514': { inputTokens: 14, cacheReadTokens: 31000, cacheWriteTokens: 4300, outputTokens: 520, reasoningTokens: 0, costUsd: 0.0421 },
    })
    expect(r.cost).toEqual({ totalUsd: 0.0421, complete: true, missing: 0 })
    expect(r.turns).toBe(2)
  })
  it('with --input-format stream-json the result usage is a running total of the process: each run gets its change', () => {
    const recs = linesOf(fx('claude-code-stream-json', 'result-usage-without-model-usage.jsonl'))
    const res = recs[recs.length - 1] as Record<string, unknown>
    const second = {
      ...res,
      num_turns: 3,
      total_cost_usd: 0.05,
      usage: { input_tokens: 20, cache_creation_input_tokens: 4300, cache_read_input_tokens: 40000, output_tokens: 600 },
      result: 'again',
    }
    const runs = runsOf('claude-code', [
      ...recs,
      { type: 'user', session_id: res['session_id'], parent_tool_use_id: null, message: { role: 'user', content: 'more' } },
      second,
    ])
    expect(runs).toHaveLength(2)
    expect(bucketsOf(runs[1] as RunResult)).toEqual({ inputTokens: 6, cacheReadTokens: 9000, cacheWriteTokens: 0, outputTokens: 80, reasoningTokens: 0 })
    expect(runs[1]?.cost.totalUsd).toBeCloseTo(0.0079, 10)
    expect(runs[1]?.turns).toBe(1)
  })
})

// ---------------------------------------------------------------------------------------------------------------
describe('11. Claude Code ≥ 2.1 turn markers and task notifications', () => {
  it('a turn that ends on a tool result followed by stop_hook_summary / turn_duration finished on its own: answered, response null', async () => {
    const r = only(await replayFile(fx('claude-code-transcript', 'turn-markers-after-tool-result.jsonl')))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.inferred).toBe(true)
    expect(r.finishReason).toBeNull()
    expect(r.response).toBeNull()
    expect(r.toolCalls).toBe(1)
    expect(r.turns).toBe(1)
    expect(bucketsOf(r)).toEqual({ inputTokens: 3, cacheReadTokens: 15000, cacheWriteTokens: 800, outputTokens: 52, reasoningTokens: 0 })
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
    expect(r.source?.lastLine).toBe(6)
    expect((await cli('test/fixtures/claude-code-transcript/turn-markers-after-tool-result.jsonl')).code).toBe(0)
  })
  it('without the markers the same turn is unfinished; a half-written marker (no subtype) closes nothing', () => {
    const recs = linesOf(fx('claude-code-transcript', 'turn-markers-after-tool-result.jsonl'))
    expect(only(runsOf('claude-code', recs.slice(0, 4))).ending).toEqual({ kind: 'unfinished', lastEventType: 'tool_result' })
    const half = { ...(recs[5] as Record<string, unknown>), subtype: undefined }
    expect(only(runsOf('claude-code', [...recs.slice(0, 4), half])).ending).toEqual({ kind: 'unfinished', lastEventType: 'tool_result' })
    expect(only(runsOf('claude-code', [...recs.slice(0, 4), '{"type":"system","subtype":"turn_dur'])).ending.kind).toBe('unfinished')
  })
  it('a <task-notification> user record starts a new run (the model reacts to a background task)', async () => {
    const runs = await replayFile(fx('claude-code-transcript', 'task-notification-starts-run.jsonl'))
    expect(runs.map((r) => [r.ending.kind, r.response, r.source?.firstLine, r.source?.lastLine])).toEqual([
      ['answered', 'Started it in the background; I will report when it is ready.', 1, 5],
      ['answered', 'The dev server is up on http://localhost:5173.', 6, 8],
    ])
    expect(runs[1]?.turns).toBe(1)
    expect(bucketsOf(runs[1] as RunResult)).toEqual({ inputTokens: 4, cacheReadTokens: 15800, cacheWriteTokens: 60, outputTokens: 15, reasoningTokens: 0 })
  })
  it('a notification while the model waits for its tool results joins the running turn', () => {
    const recs = linesOf(fx('claude-code-transcript', 'task-notification-starts-run.jsonl'))
    // the notification right after the tool_use, before its result
    const runs = runsOf('claude-code', [recs[0], recs[1], recs[5], recs[2], recs[3]])
    expect(runs).toHaveLength(1)
    expect(runs[0]?.response).toBe('Started it in the background; I will report when it is ready.')
  })
})

// ---------------------------------------------------------------------------------------------------------------
describe('12. record types and fields of current logs that change an ending, usage or cost', () => {
  it('Codex thread_settings_applied names the model of the token counts that follow', () => {
    const rs = runsOf('codex', [
      { type: 'session_meta', payload: { id: 's' } },
      { type: 'turn_context', payload: { model: 'gpt-a' } },
      { type: 'event_msg', payload: { type: 'user_message', message: 'q' } },
      { type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: { input_tokens: 10, output_tokens: 1 } } } },
      { type: 'event_msg', payload: { type: 'thread_settings_applied', thread_settings: { model: 'gpt-b' } } },
      { type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: { input_tokens: 30, output_tokens: 4 } } } },
      { type: 'event_msg', payload: { type: 'agent_message', message: 'a' } },
    ])
    const r = only(rs)
    expect(r.usage.byModel['gpt-a']?.inputTokens).toBe(10)
    expect(r.usage.byModel['gpt-b']?.inputTokens).toBe(20)
    expect(r.usage.byModel['gpt-b']?.outputTokens).toBe(3)
  })
  const tx = (over: Record<string, unknown>): Record<string, unknown> => ({ sessionId: 't', parentUuid: null, isSidechain: false, ...over })
  const prompt = tx({ type: 'user', uuid: 'p', message: { role: 'user', content: 'q' } })
  const said = tx({
    type: 'assistant',
    uuid: 'a',
    message: { id: 'm', model: 'x', content: [{ type: 'text', text: 'Here is how to' }], usage: { input_tokens: 1, output_tokens: 2 } },
  })
  it('Claude Code system/api_refusal as the last word: cut off (refusal), the retracted text no answer', () => {
    const r = only(runsOf('claude-code', [prompt, said, tx({ type: 'system', subtype: 'api_refusal', uuid: 's', retractedMessageUuids: ['a'] })]))
    expect(r.ending).toEqual({ kind: 'cut_off', finishReason: 'refusal' })
    expect(r.finishReason).toBe('refusal')
    expect(r.response).toBeNull()
  })
  it('Claude Code stop_hook_summary with preventedContinuation: stopped by the hook, its stop reason kept', () => {
    const r = only(
      runsOf('claude-code', [
        prompt,
        said,
        tx({ type: 'system', subtype: 'stop_hook_summary', uuid: 's', preventedContinuation: true, stopReason: 'budget gate' }),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'stopped', by: 'hook', reason: 'budget gate' })
    expect(r.response).toBeNull()
  })
})
