/**
 * Token counts are whole numbers (SPEC §4): a count of `1.5` tokens in any format is no count. It is ignored with a
 * diagnostic, as a negative or non-finite one is, and never reaches a result (found by the hostile-input trial:
 * fractions were added up in silence). The whole kind, over every format: each real log of the fixtures with
 * every token count of its records turned into a fraction (`N` → `N.5`) gives results whose counts are all whole,
 * and says so in a diagnostic wherever the log reported any usage; the native codec rejects a fractional count as
 * it rejects a negative one; `addUsage` and the data guards hold the same rule.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { isRight } from 'fp-ts/lib/Either.js'
import { NativeUsage } from '../../src/core/events.js'
import { addUsage, newDraft } from '../../src/core/RunResult.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { replayStream } from '../../src/node/replay.js'

const fixtures = new URL('../fixtures/', import.meta.url).pathname
const FORMATS = [
  'acp',
  'ai-sdk-fullstream',
  'ai-sdk-provider-chunks',
  'ai-sdk-ui-message-stream',
  'claude-code-stream-json',
  'claude-code-transcript',
  'codex-exec-json',
  'codex-rollout',
  'gemini-session',
  'gemini-stream-json',
  'openai-agents-runstate',
  'openai-agents-stream',
]

/** A JSON key that holds a token count in one of the formats, and its whole value. */
const COUNT = /("(?:[A-Za-z_]*[Tt]okens?[A-Za-z_]*|input|output|cached|thoughts|tool|total)"\s*:\s*)(\d+)(?=\s*[,}\]])/g

const replay = async (text: string, file: string): Promise<Array<RunResult>> => {
  const runs: Array<RunResult> = []
  await replayStream(Readable.from([Buffer.from(text)]), (r) => runs.push(r), { file })
  return runs
}

const counts = (r: RunResult): Array<number> => [
  ...Object.values(r.usage).filter((v): v is number => typeof v === 'number'),
  ...Object.values(r.usage.byModel).flatMap((m) => [m.inputTokens, m.cacheReadTokens, m.cacheWriteTokens, m.outputTokens, m.reasoningTokens]),
]

const total = (runs: ReadonlyArray<RunResult>): number => runs.reduce((n, r) => n + r.usage.inputTokens + r.usage.outputTokens + r.usage.cacheReadTokens, 0)
const said = (runs: ReadonlyArray<RunResult>): number => runs.reduce((n, r) => n + r.diagnostics.length + r.diagnosticsDropped, 0)

describe('token counts are whole numbers', () => {
  const cases = FORMATS.flatMap((dir) =>
    readdirSync(join(fixtures, dir))
      .filter((n) => /\.(jsonl|ndjson|json)$/.test(n) && n !== 'expected.json')
      .map((n) => join(dir, n)),
  )
  it.each(cases)('%s with fractional counts: every count in the results is whole, and a diagnostic says why', async (rel) => {
    const text = readFileSync(join(fixtures, rel), 'utf8')
    const fractional = text.replace(COUNT, (_, key: string, n: string) => `${key}${n}.5`)
    const before = await replay(text, rel)
    const after = await replay(fractional, rel)
    expect(after.length).toBe(before.length)
    for (const r of after) for (const c of counts(r)) expect(Number.isInteger(c), `${rel}: ${c}`).toBe(true)
    // a log that reported usage lost it to the fractions, and the results say so
    if (fractional !== text && total(before) > 0) {
      expect(total(after)).toBeLessThan(total(before))
      expect(said(after)).toBeGreaterThan(said(before))
    }
  })

  it('the native codec rejects 1.5 tokens as it rejects -1 (the event is skipped with a diagnostic)', () => {
    expect(isRight(NativeUsage.decode({ inputTokens: 3, outputTokens: 4 }))).toBe(true)
    expect(isRight(NativeUsage.decode({ inputTokens: 1.5, outputTokens: 4 }))).toBe(false)
    expect(isRight(NativeUsage.decode({ inputTokens: 3, outputTokens: 4, reasoningTokens: 0.25 }))).toBe(false)
    expect(isRight(NativeUsage.decode({ inputTokens: -1, outputTokens: 4 }))).toBe(false)
  })

  it('a native log: the message with fractional usage is skipped, the other counts', async () => {
    const lines = [
      { type: 'turn/start', sessionId: 's', data: {} },
      { type: 'usage/add', sessionId: 's', data: { usage: { inputTokens: 10.5, outputTokens: 2 } } },
      { type: 'usage/add', sessionId: 's', data: { usage: { inputTokens: 7, outputTokens: 3 } } },
      { type: 'turn/end', sessionId: 's', data: { reason: { kind: 'completed' } } },
    ]
    const [run] = await replay(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`, 'native.jsonl')
    expect([run?.usage.inputTokens, run?.usage.outputTokens]).toStrictEqual([7, 3])
    expect(run?.diagnostics.map((d) => d.line)).toStrictEqual([2])
  })

  it('addUsage ignores a fractional count with its diagnostic and keeps the whole ones', () => {
    const d = newDraft()
    addUsage(d, 'm', { inputTokens: 2.5, outputTokens: 4 }, 0.01, 9)
    expect([d.usage.inputTokens, d.usage.outputTokens]).toStrictEqual([0, 4])
    expect(d.diagnostics).toStrictEqual([{ line: 9, message: 'ignored a token count that is not a whole, non-negative number' }])
  })
})

describe('turn counts are whole numbers', () => {
  const native = (...data: Array<Record<string, unknown>>): string =>
    `${[
      { type: 'turn/start', sessionId: 's', data: {} },
      ...data.map((d) => ({ type: d['type'], sessionId: 's', data: d['data'] })),
      { type: 'turn/end', sessionId: 's', data: { reason: { kind: 'completed' } } },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n')}\n`

  it('a native usage/total of 2.5 turns is skipped with its diagnostic; a whole one sets the turns', async () => {
    const [run] = await replay(
      native({ type: 'usage/total', data: { counter: 'c', turns: 2.5 } }, { type: 'usage/total', data: { counter: 'c', turns: 4 } }),
      'native.jsonl',
    )
    expect(run?.turns).toBe(4)
    expect(run?.diagnostics).toStrictEqual([{ line: 2, message: 'skipped a "usage/total" event whose data at turns is not TurnCount' }])
  })

  it('a native usage/set of 1.5 turns is skipped with its diagnostic, as -1 is', async () => {
    const [run] = await replay(
      native({ type: 'usage/set', data: { turns: 1.5 } }, { type: 'usage/set', data: { turns: -1 } }, { type: 'usage/set', data: { turns: 3 } }),
      'native.jsonl',
    )
    expect(run?.turns).toBe(3)
    expect(run?.diagnostics.map((d) => [d.line, d.message])).toStrictEqual([
      [2, 'skipped a "usage/set" event whose data at turns is not TurnCount'],
      [3, 'skipped a "usage/set" event whose data at turns is not TurnCount'],
    ])
  })

  it('an OpenAI Agents RunState whose currentTurn is 2.5 gives no fractional turns and says why', async () => {
    const rel = 'openai-agents-runstate/v1.2-nested-approval.json'
    const state = JSON.parse(readFileSync(join(fixtures, rel), 'utf8')) as Record<string, unknown>
    const [before] = await replay(JSON.stringify(state), rel)
    const [after] = await replay(JSON.stringify({ ...state, currentTurn: 2.5 }), rel)
    expect(before?.turns).toBe(state['currentTurn'])
    expect(after?.turns).toBe(0)
    expect(after?.diagnostics.map((d) => d.message)).toContain('currentTurn is not a non-negative integer')
  })

  it('Claude Code stream-json: an error_max_turns result with num_turns -2.5 and max_turns 1e308 gives no such figures', async () => {
    const lines = [
      { type: 'system', subtype: 'init', session_id: 's1', model: 'claude-sonnet-4-5-20250929' },
      { type: 'user', message: { role: 'user', content: 'hi' }, session_id: 's1' },
      { type: 'result', subtype: 'error_max_turns', is_error: true, num_turns: -2.5, max_turns: 1e308, session_id: 's1', total_cost_usd: 0.01 },
    ]
    const [run] = await replay(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`, 'stream.jsonl')
    expect(run?.ending).toStrictEqual({ kind: 'limit', reason: 'max_turns', field: 'num_turns', actual: null })
    expect(run?.diagnostics.map((d) => d.message)).toContain('ignored num_turns: it is not a non-negative integer')
    const whole = lines.map((l) => (l.type === 'result' ? { ...l, num_turns: 3, max_turns: 3 } : l))
    const [ok] = await replay(`${whole.map((l) => JSON.stringify(l)).join('\n')}\n`, 'stream.jsonl')
    expect(ok?.ending).toStrictEqual({ kind: 'limit', reason: 'max_turns', field: 'num_turns', actual: 3, limit: 3 })
  })

  it('a Claude Code transcript max_turns_reached attachment with maxTurns 2.5 and turnCount -7.5: unknown figures, said', async () => {
    const attach = (a: Record<string, unknown>): string =>
      `${[
        { type: 'user', sessionId: 's2', uuid: 'u1', parentUuid: null, timestamp: '2025-12-16T00:00:00.000Z', message: { role: 'user', content: 'hi' } },
        {
          type: 'attachment',
          sessionId: 's2',
          uuid: 'u2',
          parentUuid: 'u1',
          timestamp: '2025-12-16T00:00:01.000Z',
          attachment: { type: 'max_turns_reached', ...a },
        },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n')}\n`
    const [run] = await replay(attach({ maxTurns: 2.5, turnCount: -7.5 }), 'transcript.jsonl')
    expect(run?.ending).toStrictEqual({ kind: 'limit', reason: 'max_turns', field: 'turns', actual: null })
    expect(run?.diagnostics.map((d) => d.message)).toStrictEqual(['ignored a turn figure of a max_turns_reached attachment: it is not a non-negative integer'])
    const [ok] = await replay(attach({ maxTurns: 2, turnCount: 2 }), 'transcript.jsonl')
    expect(ok?.ending).toStrictEqual({ kind: 'limit', reason: 'max_turns', field: 'turns', actual: 2, limit: 2 })
    expect(ok?.diagnostics).toStrictEqual([])
  })

  it('an OpenAI Agents RunState: maxTurns 1.5 is no limit (said), and currentTurn 2.5 does not pass maxTurns 2', async () => {
    const rel = 'openai-agents-runstate/v1.2-nested-approval.json'
    const state = JSON.parse(readFileSync(join(fixtures, rel), 'utf8')) as Record<string, unknown>
    const [past] = await replay(JSON.stringify({ ...state, currentTurn: 3, maxTurns: 2 }), rel)
    expect(past?.ending).toStrictEqual({ kind: 'limit', reason: 'max_turns', limit: 2 })
    const [frac] = await replay(JSON.stringify({ ...state, currentTurn: 2.5, maxTurns: 2 }), rel)
    expect(frac?.ending.kind).toBe('suspended')
    const [badLimit] = await replay(JSON.stringify({ ...state, currentTurn: 3, maxTurns: 1.5 }), rel)
    expect(badLimit?.ending.kind).toBe('suspended')
    expect(badLimit?.diagnostics.map((d) => d.message)).toContain('ignored maxTurns: it is not a non-negative integer')
  })
})
