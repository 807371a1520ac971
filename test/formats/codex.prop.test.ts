/**
 * Properties of the codex reader: arbitrary lines (random text, random JSON, Codex-typed records with random
 * fields, mutated real records from the fixtures) never make it throw or return a ProtocolError, and always
 * give well-formed results; rollout usage per run always adds up to the last running total (K11).
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { endingKinds } from '../../src/core/RunEnding.js'
import { MAX_DIAGNOSTICS, type RunResult } from '../../src/core/RunResult.js'
import { codexReader, CODEX_EXEC_TYPES, CODEX_ROLLOUT_TYPES } from '../../src/formats/codex.js'

const numRuns = ((): number => {
  const n = Number(process.env['FC_NUM_RUNS'] ?? '100')
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 100
})()
console.log(`codex reader properties: FC_NUM_RUNS=${numRuns}`)

const fixtures = join(import.meta.dirname, '..', 'fixtures')

/** Real records: every line of the small exec fixtures, and a spread of lines of each rollout. */
const realRecords: ReadonlyArray<unknown> = (() => {
  const out: Array<unknown> = []
  for (const dir of ['codex-exec-json', 'codex-rollout']) {
    for (const f of readdirSync(join(fixtures, dir)).filter((x) => x.endsWith('.jsonl'))) {
      const lines = readFileSync(join(fixtures, dir, f), 'utf8').split('\n')
      lines.forEach((l, i) => {
        if (dir === 'codex-rollout' && i % 7 !== 0 && i > 12) return
        try {
          out.push(JSON.parse(l))
        } catch {
          // non-JSON noise lines are not records
        }
      })
    }
  }
  return out
})()

/** Every path (up to depth 4) of a JSON value. */
const pathsOf = (v: unknown, depth = 0, prefix: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> => {
  if (depth >= 4 || typeof v !== 'object' || v === null) return out
  const keys: Array<string | number> = Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v)
  for (const k of keys.slice(0, 12)) {
    const p = [...prefix, k]
    out.push(p)
    pathsOf((v as Record<string | number, unknown>)[k], depth + 1, p, out)
  }
  return out
}

/** A real record with one value replaced (or removed). */
const mutatedArb: fc.Arbitrary<unknown> = fc
  .tuple(fc.constantFrom(...realRecords), fc.nat(), fc.option(fc.anything({ maxDepth: 3 }), { nil: undefined }))
  .map(([rec, n, value]) => {
    const copy = JSON.parse(JSON.stringify(rec)) as unknown
    const paths = pathsOf(copy)
    if (paths.length === 0) return value
    const path = paths[n % paths.length] as Array<string | number>
    let parent = copy as Record<string | number, unknown>
    for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>
    const key = path[path.length - 1] as string | number
    if (value === undefined) delete parent[key]
    else parent[key] = value
    return copy
  })

const typeArb = fc.constantFrom(...CODEX_EXEC_TYPES, ...CODEX_ROLLOUT_TYPES, 'task_complete', 'turn_aborted', '__proto__', 'constructor')
const eventTypeArb = fc.constantFrom(
  'user_message',
  'task_started',
  'task_complete',
  'turn_complete',
  'turn_aborted',
  'error',
  'token_count',
  'agent_message',
  'item_completed',
  'toString',
)

/** Codex-typed records whose fields are anything. */
const typedArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.record(
    {
      type: typeArb,
      item: fc.anything({ maxDepth: 2 }),
      usage: fc.anything({ maxDepth: 2 }),
      error: fc.anything({ maxDepth: 2 }),
      thread_id: fc.anything({ maxDepth: 1 }),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({
    timestamp: fc.oneof(
      fc.string(),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.integer(),
    ),
    type: typeArb,
    payload: fc.oneof(
      fc.anything({ maxDepth: 2 }),
      fc.record(
        {
          type: eventTypeArb,
          reason: fc.anything({ maxDepth: 1 }),
          info: fc.anything({ maxDepth: 3 }),
          error: fc.anything({ maxDepth: 2 }),
          message: fc.anything({ maxDepth: 1 }),
          last_agent_message: fc.anything({ maxDepth: 1 }),
        },
        { requiredKeys: ['type'] },
      ),
    ),
  }),
)

const lineArb: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.json({ maxDepth: 3 }),
  typedArb.map((v) => JSON.stringify(v) ?? 'null'),
  mutatedArb.map((v) => JSON.stringify(v) ?? 'null'),
)

const isCount = (n: number): boolean => Number.isFinite(n) && n >= 0

const checkResult = (r: RunResult): void => {
  expect(r.format).toBe('codex')
  expect(endingKinds).toContain(r.ending.kind)
  expect(r.diagnostics.length).toBeLessThanOrEqual(MAX_DIAGNOSTICS)
  for (const k of ['inputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'outputTokens', 'reasoningTokens'] as const) expect(isCount(r.usage[k])).toBe(true)
  if (r.ending.kind !== 'answered' && r.ending.kind !== 'cut_off') expect(r.response).toBeNull()
  expect(() => JSON.stringify(r)).not.toThrow()
}

const feed = (lines: ReadonlyArray<string>, unterminatedLast: boolean): Array<RunResult> => {
  const runs: Array<RunResult> = []
  const reader = codexReader((x) => runs.push(x), { file: 'prop.jsonl' })
  lines.forEach((l, i) => {
    const res = reader.line(l, i + 1, unterminatedLast && i === lines.length - 1)
    expect(res).toBeUndefined()
  })
  reader.end()
  return runs
}

describe('codex reader on arbitrary lines', () => {
  it('never throws, never returns a ProtocolError, and always gives at least one well-formed run', () => {
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 40 }), fc.boolean(), (lines, cut) => {
        const runs = feed(lines, cut)
        expect(runs.length).toBeGreaterThan(0)
        runs.forEach(checkResult)
      }),
      { numRuns },
    )
  })

  it('mutated real records in a real order: same guarantees', () => {
    const big = readFileSync(join(fixtures, 'codex-rollout', 'rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(big.length - 1), mutatedArb), { maxLength: 8 }), (mutations) => {
        const lines = big.slice()
        for (const [i, v] of mutations) lines[i] = JSON.stringify(v) ?? 'null'
        feed(lines, false).forEach(checkResult)
      }),
      { numRuns: Math.max(10, Math.floor(numRuns / 5)) },
    )
  })

  it('a 100,000-level nested value in any field does not throw and is not echoed', () => {
    let deep = '1'
    for (let i = 0; i < 100_000; i++) deep = `[${deep}]`
    const lines = [
      `{"type":"thread.started","thread_id":${deep}}`,
      `{"type":"item.completed","item":${deep}}`,
      `{"type":"turn.completed","usage":${deep}}`,
      `{"type":"turn.failed","error":${deep}}`,
      `{"timestamp":${deep},"type":"event_msg","payload":{"type":"turn_aborted","reason":${deep}}}`,
      `{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":${deep}}}}`,
      `{"type":"event_msg","payload":{"type":"task_complete","error":${deep},"last_agent_message":${deep}}}`,
      `{"type":"response_item","payload":{"type":"message","role":"assistant","content":${deep}}}`,
    ]
    for (const l of lines) {
      const runs = feed([l], false)
      runs.forEach(checkResult)
      for (const r of runs) for (const d of r.diagnostics) expect(d.message.length).toBeLessThan(200)
    }
    const rollout = feed(
      [
        '{"type":"session_meta","payload":{"id":"s"}}',
        '{"type":"event_msg","payload":{"type":"user_message","message":"x"}}',
        lines[4] as string,
        lines[5] as string,
        lines[6] as string,
        lines[7] as string,
      ],
      false,
    )
    expect(rollout[0]?.ending).toEqual({ kind: 'failed', reason: 'unrecognized' })
  })
})

describe('rollout usage (K11)', () => {
  /** One step of a synthetic rollout: a prompt, an agent message, or a model response raising the running total. */
  const stepArb = fc.oneof(
    fc.constant({ kind: 'user' as const }),
    fc.constant({ kind: 'agent' as const }),
    fc.constant({ kind: 'repeat' as const }),
    fc.record({
      kind: fc.constant('tokens' as const),
      uncached: fc.nat(5000),
      cached: fc.nat(5000),
      write: fc.nat(50),
      out: fc.nat(500),
      reasoning: fc.nat(500),
    }),
  )

  it('the runs of a rollout add up exactly to its last running total, whatever the prompts in between', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 30 }), (steps) => {
        const t = { input_tokens: 0, cached_input_tokens: 0, cache_write_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0 }
        let clock = 0
        // the session starts at the clock's origin (1.7e12 ms): a later line never goes back in time
        const lines = ['{"timestamp":"2023-11-14T22:13:20.000Z","type":"session_meta","payload":{"id":"s"}}']
        const line = (payload: object): string => JSON.stringify({ timestamp: new Date(1.7e12 + ++clock * 1000).toISOString(), type: 'event_msg', payload })
        for (const s of steps) {
          if (s.kind === 'user') lines.push(line({ type: 'user_message', message: 'q' }))
          else if (s.kind === 'agent') lines.push(line({ type: 'agent_message', message: 'a' }))
          else if (s.kind === 'repeat') lines.push(line({ type: 'token_count', info: { total_token_usage: { ...t } } }))
          else {
            t.input_tokens += s.uncached + s.cached + s.write
            t.cached_input_tokens += s.cached
            t.cache_write_input_tokens += s.write
            t.output_tokens += s.out + s.reasoning
            t.reasoning_output_tokens += s.reasoning
            lines.push(line({ type: 'token_count', info: { total_token_usage: { ...t } } }))
          }
        }
        const runs = feed(lines, false)
        // One run per prompt; agent messages before the first prompt form a run of their own; no run at all → one.
        const prompts = steps.filter((s) => s.kind === 'user').length
        const firstPrompt = steps.findIndex((s) => s.kind === 'user')
        const orphan = steps.slice(0, firstPrompt === -1 ? steps.length : firstPrompt).some((s) => s.kind === 'agent')
        expect(runs).toHaveLength(Math.max(1, prompts + (orphan && prompts > 0 ? 1 : 0)))
        const sum = (k: 'inputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'outputTokens' | 'reasoningTokens'): number =>
          runs.reduce((a, r) => a + r.usage[k], 0)
        expect(sum('inputTokens')).toBe(t.input_tokens - t.cached_input_tokens - t.cache_write_input_tokens)
        expect(sum('cacheReadTokens')).toBe(t.cached_input_tokens)
        expect(sum('cacheWriteTokens')).toBe(t.cache_write_input_tokens)
        expect(sum('outputTokens')).toBe(t.output_tokens)
        expect(sum('reasoningTokens')).toBe(t.reasoning_output_tokens)
        for (const r of runs) expect(r.diagnostics).toEqual([])
      }),
      { numRuns },
    )
  })
})
