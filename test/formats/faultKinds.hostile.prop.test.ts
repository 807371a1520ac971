/**
 * A hostile pass over the rules of issue 12 (K15 forks, K18/K19 results, K23 cancels, K24 steers, K11 turn
 * markers, K25/K26 records, ACP one-way logs): mutated forks, half-written markers, cancels in every position.
 * Whatever the input, the translators never throw, every count stays a finite non-negative number, copied
 * history never adds usage, and a run is never `answered` unless its input holds an answering record.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Pipeline } from '../../src/core/pipeline.js'
import type { RunResult } from '../../src/core/RunResult.js'
import type { Translator } from '../../src/core/translator.js'
import { formatByName } from '../../src/formats/index.js'
import { numRuns } from '../support/arbitraries.js'
import { repoRoot } from '../support/cli.js'

/** Feeds raw lines (a line that is not JSON is read as such) and returns the runs; throws only if the translator does. */
const runLines = (format: string, lines: ReadonlyArray<string>): Array<RunResult> => {
  const p = new Pipeline(formatByName(format)?.translator as Translator<unknown>, { file: null })
  const out: Array<RunResult> = []
  lines.forEach((l, i) => {
    // line readers never pass blank lines
    if (l.trim() === '') return
    p.textLine(l, i + 1, i === lines.length - 1)
    out.push(...p.takeResults())
  })
  p.end()
  out.push(...p.takeResults())
  return out
}
const sane = (r: RunResult): void => {
  for (const v of [
    r.usage.inputTokens,
    r.usage.cacheReadTokens,
    r.usage.cacheWriteTokens,
    r.usage.outputTokens,
    r.usage.reasoningTokens,
    r.turns,
    r.toolCalls,
  ]) {
    expect(Number.isFinite(v) && v >= 0).toBe(true)
  }
  if (r.cost.totalUsd !== null) expect(r.cost.totalUsd >= 0).toBe(true)
  if (r.ending.kind !== 'answered' && r.ending.kind !== 'cut_off') expect(r.response).toBeNull()
}
const J = (v: unknown): string => JSON.stringify(v)

// ---------------------------------------------------------------------------------------------------------------
describe('K15: mutated forks', () => {
  const FORK = readFileSync(join(repoRoot, 'test/fixtures/codex-rollout/fork-copied-parent-history.jsonl'), 'utf8').split('\n').filter(Boolean)
  const ids = fc.oneof(
    fc.constant('019f6968-bed6-7d31-9a55-3c0e4b1f2a01'),
    fc.constant('019f6965-6ad0-7b20-8c41-5d2e6f7a8b02'),
    fc.constant('019f6969-48ee-7e22-8b33-6a0b1c2d3e03'),
    fc.constant('00000000-0000-7000-8000-000000000000'),
    fc.constant('ffffffff-ffff-7fff-bfff-ffffffffffff'),
    fc.uuid(),
    fc.string({ maxLength: 40 }),
  )
  const anyValue = fc.oneof(ids, fc.constant(null), fc.integer(), fc.constant(''), fc.constant({}), fc.constant([]))
  type Mut = { kind: 'drop' | 'dup' | 'cut' | 'id' | 'fork' | 'turn'; at: number; cut: number; value: unknown }
  const mutation: fc.Arbitrary<Mut> = fc.record({
    kind: fc.constantFrom('drop', 'dup', 'cut', 'id', 'fork', 'turn'),
    at: fc.nat(FORK.length - 1),
    cut: fc.nat(400),
    value: anyValue,
  }) as fc.Arbitrary<Mut>
  const apply = (lines: Array<string>, m: Mut): Array<string> => {
    const i = m.at % Math.max(1, lines.length)
    const l = lines[i]
    if (l === undefined) return lines
    const out = lines.slice()
    switch (m.kind) {
      case 'drop':
        out.splice(i, 1)
        return out
      case 'dup':
        out.splice(i, 0, l)
        return out
      case 'cut':
        // a half-written record
        out[i] = l.slice(0, m.cut % Math.max(1, l.length))
        return out
      default: {
        let v: { type?: unknown; payload?: Record<string, unknown> }
        try {
          v = JSON.parse(l) as typeof v
        } catch {
          return out
        }
        if (typeof v !== 'object' || v === null || typeof v.payload !== 'object' || v.payload === null) return out
        if (m.kind === 'id' && v.type === 'session_meta') v.payload['id'] = m.value
        else if (m.kind === 'fork' && v.type === 'session_meta') v.payload['forked_from_id'] = m.value
        else if (m.kind === 'turn') v.payload['turn_id'] = m.value
        out[i] = J(v)
        return out
      }
    }
  }
  /** The largest input count of any running total in the lines (what all runs together may not exceed). */
  const maxTotal = (lines: ReadonlyArray<string>): number => {
    let max = 0
    for (const l of lines) {
      try {
        const t = (JSON.parse(l) as { payload?: { info?: { total_token_usage?: { input_tokens?: unknown } } } }).payload?.info?.total_token_usage?.input_tokens
        if (typeof t === 'number' && t > max) max = t
      } catch {
        // a half-written line
      }
    }
    return max
  }

  it('never throws; copied history never adds usage (all runs together stay within the log’s last running total)', () => {
    fc.assert(
      fc.property(fc.array(mutation, { maxLength: 8 }), (muts) => {
        const lines = muts.reduce(apply, FORK.slice())
        const runs = runLines('codex', lines)
        expect(runs.length).toBeGreaterThan(0)
        runs.forEach(sane)
        const input = runs.reduce((a, r) => a + r.usage.inputTokens + r.usage.cacheReadTokens + r.usage.cacheWriteTokens, 0)
        // a mutation can make a running total go down (a dropped or cut record): the fold then counts from zero,
        // with a diagnostic; only without one does the bound hold
        const restarted = runs.some((r) => r.diagnostics.some((d) => d.message.includes('went down')))
        if (!restarted) expect(input).toBeLessThanOrEqual(maxTotal(lines))
      }),
      { numRuns: numRuns() },
    )
  })

  it('without an answering record (task_complete, agent message) no run of a mutated fork is answered', () => {
    const answering = (l: string): boolean => /"task_complete"|"turn_complete"|"agent_message"|"role":"assistant"/.test(l)
    fc.assert(
      fc.property(fc.array(mutation, { maxLength: 8 }), (muts) => {
        const lines = muts.reduce(apply, FORK.slice()).filter((l) => !answering(l))
        for (const r of runLines('codex', lines)) {
          sane(r)
          expect(r.ending.kind).not.toBe('answered')
        }
      }),
      { numRuns: numRuns() },
    )
  })
})

// ---------------------------------------------------------------------------------------------------------------
describe('K23: cancels in every position (ACP, two-way and one-way logs)', () => {
  const rpc = (o: Record<string, unknown>): Record<string, unknown> => ({ jsonrpc: '2.0', ...o })
  const STOPS = ['end_turn', 'max_tokens', 'refusal', 'cancelled', 'max_turn_requests', 'other', 'error', 'none'] as const
  const scenario = fc.record({
    chunks: fc.nat(4),
    tool: fc.boolean(),
    stop: fc.constantFrom(...STOPS),
    cancels: fc.array(fc.nat(12), { maxLength: 3 }),
    otherSessionCancel: fc.boolean(),
    oneWay: fc.boolean(),
  })

  it('a cancel between a prompt and its response is never answered; without one, only end_turn is', () => {
    fc.assert(
      fc.property(scenario, (sc) => {
        const upd = (u: Record<string, unknown>): Record<string, unknown> =>
          sc.oneWay ? { sessionId: 's', update: u } : rpc({ method: 'session/update', params: { sessionId: 's', update: u } })
        const body: Array<Record<string, unknown>> = []
        for (let i = 0; i < sc.chunks; i++) body.push(upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `c${i}` } }))
        if (sc.tool) body.push(upd({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Run', kind: 'execute', status: 'completed' }))
        const response =
          sc.stop === 'none'
            ? []
            : sc.stop === 'error'
              ? [rpc({ id: 1, error: { code: -32603, message: 'boom' } })]
              : [rpc({ id: 1, result: { stopReason: sc.stop } })]
        const seq: Array<Record<string, unknown> | 'cancel'> = [
          ...(sc.oneWay ? [] : [rpc({ id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [] } })]),
          ...body,
          ...response,
        ]
        for (const at of sc.cancels) seq.splice(Math.min(at, seq.length), 0, 'cancel')
        if (sc.otherSessionCancel) seq.splice(1, 0, rpc({ method: 'session/cancel', params: { sessionId: 'other' } }))
        // a cancel counts when it comes after the turn is open (the prompt, or in a one-way log its first update)
        // and before its response
        const isResponse = (x: unknown): boolean => typeof x === 'object' && x !== null && 'id' in x && !('method' in x)
        const isOpener = (x: unknown): boolean =>
          typeof x === 'object' &&
          x !== null &&
          (sc.oneWay
            ? !isResponse(x) && !('method' in x && (x as { method: string }).method === 'session/cancel')
            : (x as { method?: unknown }).method === 'session/prompt')
        let open = false
        let cancelled = false
        for (const x of seq) {
          if (x === 'cancel') {
            if (open) cancelled = true
          } else if (isOpener(x)) open = true
          else if (isResponse(x)) break
        }
        const lines = seq.map((x) => J(x === 'cancel' ? rpc({ method: 'session/cancel', params: { sessionId: 's' } }) : x))
        const runs = runLines('acp', lines)
        runs.forEach(sane)
        for (const r of runs) {
          if (cancelled) expect(['answered', 'cut_off']).not.toContain(r.ending.kind)
          if (r.ending.kind === 'answered') expect(sc.stop === 'end_turn' && !cancelled).toBe(true)
        }
      }),
      { numRuns: numRuns() },
    )
  })
})

// ---------------------------------------------------------------------------------------------------------------
describe('Claude Code: half-written markers, notifications, error objects and repeated records', () => {
  const env = (i: number, over: Record<string, unknown>): Record<string, unknown> => ({
    parentUuid: null,
    isSidechain: false,
    sessionId: 'h',
    uuid: `u${i}`,
    timestamp: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
    ...over,
  })
  const usage = { input_tokens: 1, output_tokens: 1 }
  const STEPS = [
    'prompt',
    'text',
    'tool_use',
    'tool_result',
    'turn_duration',
    'stop_hook',
    'stop_hook_prevented',
    'half_marker',
    'bad_marker',
    'notification',
    'refusal',
    'bedrock',
    'repeat',
  ] as const
  type Step = (typeof STEPS)[number]
  const record = (s: Step, i: number, last: string | null): string => {
    switch (s) {
      case 'prompt':
        return J(env(i, { type: 'user', message: { role: 'user', content: 'do it' } }))
      case 'text':
        return J(env(i, { type: 'assistant', message: { id: `m${i}`, model: 'x', content: [{ type: 'text', text: 'done' }], usage } }))
      case 'tool_use':
        return J(
          env(i, { type: 'assistant', message: { id: `m${i}`, model: 'x', content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: {} }], usage } }),
        )
      case 'tool_result':
        return J(env(i, { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i - 1}`, content: 'ok' }] } }))
      case 'turn_duration':
        return J(env(i, { type: 'system', subtype: 'turn_duration', durationMs: 5 }))
      case 'stop_hook':
        return J(env(i, { type: 'system', subtype: 'stop_hook_summary', preventedContinuation: false }))
      case 'stop_hook_prevented':
        return J(env(i, { type: 'system', subtype: 'stop_hook_summary', preventedContinuation: true, stopReason: 7 }))
      case 'half_marker':
        return '{"type":"system","subtype":"turn_dura'
      case 'bad_marker':
        return J(env(i, { type: 'system', subtype: ['turn_duration'] }))
      case 'notification':
        return J(env(i, { type: 'user', message: { role: 'user', content: '<task-notification>\n<task-id>x</task-id>\n</task-notification>' } }))
      case 'refusal':
        return J(env(i, { type: 'system', subtype: 'api_refusal' }))
      case 'bedrock':
        return J(env(i, { type: 'assistant', message: { Output: { __type: 'com.amazon.coral.service#InternalServerException' }, content: [] } }))
      case 'repeat':
        return last ?? J(env(i, { type: 'user', message: { role: 'user', content: 'again' } }))
    }
  }
  it('never throws; with no text and no closing marker after a tool result, nothing is answered', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...STEPS), { minLength: 1, maxLength: 14 }), (steps) => {
        let last: string | null = null
        const lines = steps.map((s, i) => {
          const l = record(s, i, last)
          if (s === 'text' || s === 'tool_use') last = l
          return l
        })
        const runs = runLines('claude-code', lines)
        runs.forEach(sane)
        const canAnswer =
          steps.some((s) => s === 'text') ||
          steps.some((s, i) => s === 'tool_result' && steps.slice(i + 1).some((x) => x === 'turn_duration' || x === 'stop_hook'))
        if (!canAnswer) for (const r of runs) expect(r.ending.kind).not.toBe('answered')
        // a repeated record never doubles the text
        for (const r of runs) if (r.response !== null) expect(r.response.includes('done\n\ndone')).toBe(false)
      }),
      { numRuns: numRuns() },
    )
  })

  it('stream-json: a success with an empty result on a tool_use stop is never answered (K18), whatever comes before', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('text', 'tool_use', 'tool_result', 'repeat'), { maxLength: 6 }),
        fc.constantFrom('', undefined, null),
        fc.constantFrom('tool_use', undefined),
        (steps, text, stop) => {
          const init = { type: 'system', subtype: 'init', session_id: 'k', tools: [], model: 'x', claude_code_version: '2.1.0' }
          const recs: Array<unknown> = [init]
          let prev: unknown = null
          steps.forEach((s, i) => {
            if (s === 'text')
              recs.push(
                (prev = { type: 'assistant', session_id: 'k', parent_tool_use_id: null, message: { id: `m${i}`, content: [{ type: 'text', text: 'x' }] } }),
              )
            else if (s === 'tool_use')
              recs.push(
                (prev = {
                  type: 'assistant',
                  session_id: 'k',
                  parent_tool_use_id: null,
                  message: { id: `m${i}`, content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: {} }] },
                }),
              )
            else if (s === 'tool_result')
              recs.push({
                type: 'user',
                session_id: 'k',
                parent_tool_use_id: null,
                message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i - 1}`, content: 'ok' }] },
              })
            else if (prev !== null) recs.push(prev)
          })
          const lastBlock = [...recs].reverse().find((r) => (r as { type?: string }).type === 'assistant') as
            | { message: { content: Array<{ type: string }> } }
            | undefined
          recs.push({
            type: 'result',
            subtype: 'success',
            is_error: false,
            num_turns: 1,
            session_id: 'k',
            ...(text !== undefined ? { result: text } : {}),
            ...(stop !== undefined ? { stop_reason: stop } : {}),
          })
          const runs = runLines('claude-code', recs.map(J))
          runs.forEach(sane)
          const onToolUse = stop === 'tool_use' || lastBlock?.message.content[0]?.type === 'tool_use'
          if (onToolUse) for (const r of runs) expect(r.ending.kind).not.toBe('answered')
        },
      ),
      { numRuns: numRuns() },
    )
  })
})

// ---------------------------------------------------------------------------------------------------------------
describe('K24: steers in every position (Codex rollouts)', () => {
  const T = ['019fc73d-bd60-7a00-8b10-4b5c6d7e8f02', '019fc73d-d000-7a00-8b10-4b5c6d7e8f03', 'not-a-uuid']
  const step = fc.oneof(
    fc.record({ k: fc.constant('user' as const) }),
    fc.record({ k: fc.constant('task' as const), t: fc.nat(2) }),
    fc.record({ k: fc.constant('ctx' as const), t: fc.option(fc.nat(2), { nil: undefined }) }),
    fc.record({ k: fc.constant('call' as const) }),
    fc.record({ k: fc.constant('agent' as const) }),
    fc.record({ k: fc.constant('complete' as const), t: fc.nat(2) }),
    fc.record({ k: fc.constant('abort' as const), reason: fc.constantFrom('replaced', 'interrupted', 'budget_limited', 'x') }),
    fc.record({ k: fc.constant('tokens' as const), n: fc.nat(1000) }),
  )
  it('never throws; without a task_complete or an agent message no run is answered; usage never exceeds the total', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 16 }), (steps) => {
        let total = 0
        const lines = [J({ type: 'session_meta', payload: { id: '019fc73d-adc0-7ca3-9e29-4b5c6d7e8f01' } })]
        for (const s of steps) {
          const p: Record<string, unknown> =
            s.k === 'user'
              ? { type: 'user_message', message: 'q' }
              : s.k === 'task'
                ? { type: 'task_started', turn_id: T[s.t] }
                : s.k === 'complete'
                  ? { type: 'task_complete', turn_id: T[s.t], last_agent_message: 'a' }
                  : s.k === 'abort'
                    ? { type: 'turn_aborted', reason: s.reason }
                    : s.k === 'agent'
                      ? { type: 'agent_message', message: 'a' }
                      : s.k === 'tokens'
                        ? { type: 'token_count', info: { total_token_usage: { input_tokens: (total += s.n), output_tokens: 0 } } }
                        : {}
          if (s.k === 'ctx') lines.push(J({ type: 'turn_context', payload: s.t === undefined ? { model: 'm' } : { model: 'm', turn_id: T[s.t] } }))
          else if (s.k === 'call') lines.push(J({ type: 'response_item', payload: { type: 'function_call', name: 'shell', call_id: 'c' } }))
          else lines.push(J({ type: 'event_msg', payload: p }))
        }
        const runs = runLines('codex', lines)
        runs.forEach(sane)
        const canAnswer = steps.some((s) => s.k === 'complete' || s.k === 'agent')
        if (!canAnswer) for (const r of runs) expect(r.ending.kind).not.toBe('answered')
        expect(runs.reduce((a, r) => a + r.usage.inputTokens, 0)).toBeLessThanOrEqual(total)
      }),
      { numRuns: numRuns() },
    )
  })
})
