/**
 * fast-check properties of the Claude Code reader: arbitrary lines (random strings, random JSON values and
 * mutated real records of both shapes) never make it throw or return a ProtocolError, and every run it
 * emits is a well-formed RunResult. Run count from env FC_NUM_RUNS (default 100).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { endingKinds } from '../../src/core/RunEnding.js'
import { MAX_DIAGNOSTICS, type RunResult } from '../../src/core/RunResult.js'
import { createClaudeCodeReader } from '../../src/formats/claudeCode.js'

const NUM_RUNS = (() => {
  const n = Number(process.env['FC_NUM_RUNS'] ?? '100')
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 100
})()
console.log(`claude-code properties: FC_NUM_RUNS=${NUM_RUNS}`)

const FIX = join(import.meta.dirname, '..', 'fixtures')
const linesOf = (rel: string): Array<string> =>
  readFileSync(join(FIX, rel), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
const STREAM = [
  ...linesOf('claude-code-stream-json/claude.jsonl'),
  ...linesOf('claude-code-stream-json/claude-error.jsonl'),
  ...linesOf('claude-code-stream-json/stream.jsonl').slice(0, 30),
]
const TRANSCRIPT = [
  ...linesOf('claude-code-transcript/full-session-askuserquestion.jsonl'),
  ...linesOf('claude-code-transcript/task_non_sdk.jsonl'),
  ...linesOf('claude-code-transcript/small.jsonl'),
]
const REAL = [...STREAM, ...TRANSCRIPT]

/** Replaces the value at a path chosen by `steps` (indices taken modulo the keys at each level). */
const mutate = (line: string, steps: ReadonlyArray<number>, replacement: unknown, drop: boolean): string => {
  const root = JSON.parse(line) as unknown
  let cur: unknown = root
  for (let i = 0; i < steps.length; i++) {
    if (typeof cur !== 'object' || cur === null) break
    const keys = Object.keys(cur)
    if (keys.length === 0) break
    const k = keys[(steps[i] as number) % keys.length] as string
    const child = (cur as Record<string, unknown>)[k]
    const lastStep = i === steps.length - 1 || typeof child !== 'object' || child === null
    if (lastStep) {
      if (drop && !Array.isArray(cur)) delete (cur as Record<string, unknown>)[k]
      else (cur as Record<string, unknown>)[k] = replacement
      break
    }
    cur = child
  }
  return JSON.stringify(root)
}

const TYPES = ['system', 'assistant', 'user', 'result', 'summary', 'attachment', 'file-history-snapshot', 'stream_event', '__proto__', 'constructor']
const SUBTYPES = ['init', 'success', 'error_during_execution', 'error_max_turns', 'api_retry', 'task_notification', 'weird', '__proto__']

const arbLine: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc
    .record({
      type: fc.constantFrom(...TYPES),
      subtype: fc.option(fc.constantFrom(...SUBTYPES), { nil: undefined }),
      session_id: fc.option(fc.constantFrom('s', 'other', '__proto__'), { nil: undefined }),
      is_error: fc.option(fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 1 })), { nil: undefined }),
      terminal_reason: fc.option(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('tool_deferred', 'max_turns', 'aborted_tools')), { nil: undefined }),
      message: fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }),
      modelUsage: fc.option(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 })), { nil: undefined }),
      total_cost_usd: fc.option(fc.oneof(fc.double(), fc.jsonValue({ maxDepth: 1 })), { nil: undefined }),
      num_turns: fc.option(fc.oneof(fc.integer(), fc.double()), { nil: undefined }),
    })
    .map((r) => JSON.stringify(r)),
  fc
    .tuple(fc.constantFrom(...REAL), fc.array(fc.nat(), { minLength: 1, maxLength: 5 }), fc.jsonValue({ maxDepth: 3 }), fc.boolean())
    .map(([line, steps, repl, drop]) => mutate(line, steps, repl, drop)),
  fc.constantFrom(...REAL),
  fc.constantFrom(...REAL).map((l) => l.slice(0, Math.floor(l.length / 2))),
)

/** Feeds lines to a fresh reader, asserting no line returns anything; returns the emitted runs. */
const feed = (lines: ReadonlyArray<string>, cutLast: boolean): Array<RunResult> => {
  const runs: Array<RunResult> = []
  const r = createClaudeCodeReader((x) => runs.push(x), { file: 'prop.jsonl' })
  lines.forEach((l, i) => {
    const out = r.line(l, i + 1, cutLast && i === lines.length - 1)
    expect(out).toBeUndefined()
  })
  r.end()
  return runs
}

const wellFormed = (r: RunResult): void => {
  expect(r.format).toBe('claude-code')
  expect(endingKinds).toContain(r.ending.kind)
  if (r.ending.kind !== 'answered' && r.ending.kind !== 'cut_off') expect(r.response).toBeNull()
  for (const k of ['inputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'outputTokens', 'reasoningTokens'] as const) {
    expect(Number.isFinite(r.usage[k]) && r.usage[k] >= 0).toBe(true)
  }
  // a cost is complete exactly when it is known; unknown when an item lacks one, or when nothing was priced (K27)
  expect(r.cost.complete).toBe(r.cost.totalUsd !== null)
  if (r.cost.missing > 0) expect(r.cost.totalUsd).toBeNull()
  expect(r.diagnostics.length).toBeLessThanOrEqual(MAX_DIAGNOSTICS)
  expect(Number.isInteger(r.turns) && r.turns >= 0).toBe(true)
  for (const d of r.diagnostics) expect(d.message.length).toBeLessThan(200)
}

describe('claude-code reader properties', () => {
  it('arbitrary lines never throw, never give a ProtocolError, and every run is well formed', () => {
    fc.assert(
      fc.property(fc.array(arbLine, { maxLength: 40 }), fc.boolean(), (lines, cutLast) => {
        const runs = feed(lines, cutLast)
        expect(runs.length).toBeGreaterThanOrEqual(1)
        runs.forEach(wellFormed)
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('mutated real logs of each shape never throw and keep producing runs', () => {
    for (const base of [STREAM, TRANSCRIPT]) {
      fc.assert(
        fc.property(
          fc.array(
            fc.tuple(fc.nat({ max: base.length - 1 }), fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), fc.boolean()),
            { maxLength: 8 },
          ),
          (muts) => {
            const lines = base.slice()
            for (const [i, steps, repl, drop] of muts) lines[i] = mutate(lines[i] as string, steps, repl, drop)
            feed(lines, false).forEach(wellFormed)
          },
        ),
        { numRuns: NUM_RUNS },
      )
    }
  })

  it('noise lines inserted anywhere change only the diagnostics', () => {
    const base = linesOf('claude-code-stream-json/claude.jsonl')
    const strip = (rs: ReadonlyArray<RunResult>): unknown => rs.map((r) => ({ ...r, diagnostics: [], source: null }))
    const expected = strip(feed(base, false))
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: base.length }), fc.constantFrom('not json', '{"broken":', '42', '"text"', 'null')), { maxLength: 6 }),
        (noise) => {
          const lines = base.slice()
          for (const [at, n] of noise.sort((a, b) => b[0] - a[0])) lines.splice(at, 0, n)
          const runs = feed(lines, false)
          expect(strip(runs)).toEqual(expected)
          expect(runs.reduce((s, r) => s + r.diagnostics.length, 0)).toBe(noise.length)
        },
      ),
      { numRuns: NUM_RUNS },
    )
  })

  it('a 100,000-level nested value is read without throwing and never echoed', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
    const lines = [
      `{"type":"system","subtype":"init","session_id":"s","tools":[]}`,
      `{"type":"assistant","session_id":"s","message":{"id":"m","model":"x","content":${deep},"usage":${deep}}}`,
      `{"type":"result","subtype":"success","is_error":false,"session_id":"s","result":"ok","modelUsage":{"x":${deep}},"deferred_tool_use":${deep},"permission_denials":${deep}}`,
      deep,
    ]
    const runs = feed(lines, false)
    expect(runs.map((r) => r.ending.kind)).toEqual(['answered'])
    expect(JSON.stringify(runs[0]?.diagnostics).length).toBeLessThan(2000)
  })
})
