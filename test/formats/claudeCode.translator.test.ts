/**
 * The Claude Code translator through the one pipeline: (a) every fixture (stream-json and transcripts), fed as
 * parsed objects one per line, gives exactly what `replayFile` gives; (b) a checkpoint anywhere — JSON round
 * trip, decoded with the pipeline's codec — resumes to the same runs as folding the whole, for the fixtures and
 * for arbitrary stream-json and transcript logs (live or not); (c) live SDK objects of any shape (throwing
 * getters, cycles, Error fields, proxies) never make it throw.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { Pipeline, pipelineStateCodec, type PipelineState } from '../../src/core/pipeline.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { claudeCodeTranslator, type ClaudeCodeState } from '../../src/formats/claudeCode.js'
import { replayFile } from '../../src/node/replay.js'
import { numRuns } from '../support/arbitraries.js'

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url))
const filesOf = (dir: string): Array<string> =>
  readdirSync(`${fixtures}${dir}`)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => `${fixtures}${dir}/${f}`)
const FILES = [...filesOf('claude-code-stream-json'), ...filesOf('claude-code-transcript')]

/** One input step: a parsed record at a line, or a non-JSON line. */
type Step =
  | { readonly kind: 'record'; readonly value: unknown; readonly line?: number }
  | { readonly kind: 'text'; readonly text: string; readonly line?: number }

const stepsOfLines = (text: string): Array<Step> => {
  const out: Array<Step> = []
  text.split('\n').forEach((l, i) => {
    if (l.trim() === '') return
    try {
      out.push({ kind: 'record', value: JSON.parse(l) as unknown, line: i + 1 })
    } catch {
      out.push({ kind: 'text', text: l, line: i + 1 })
    }
  })
  return out
}
const STEPS = new Map(FILES.map((f) => [f, stepsOfLines(readFileSync(f, 'utf8'))]))

interface Opts {
  readonly file: string | null
  readonly live?: boolean
}

const feed = (p: Pipeline<ClaudeCodeState>, step: Step, out: Array<RunResult>): void => {
  if (step.kind === 'record') expect(p.record(step.value, step.line)).toBeUndefined()
  else expect(p.textLine(step.text, step.line)).toBeUndefined()
  out.push(...p.takeResults())
}

const foldAll = (steps: ReadonlyArray<Step>, opts: Opts): Array<RunResult> => {
  const p = new Pipeline(claudeCodeTranslator, opts)
  const out: Array<RunResult> = []
  for (const s of steps) feed(p, s, out)
  p.end()
  out.push(...p.takeResults())
  return out
}

const codec = pipelineStateCodec(claudeCodeTranslator)

const resume = (p: Pipeline<ClaudeCodeState>, opts: Opts): Pipeline<ClaudeCodeState> => {
  const json: unknown = JSON.parse(JSON.stringify(p.checkpoint()))
  const decoded = codec.decode(json)
  expect(E.isRight(decoded)).toBe(true)
  return new Pipeline(claudeCodeTranslator, opts, (decoded as E.Right<PipelineState<ClaudeCodeState>>).right)
}

/** Folds with a checkpoint (JSON round trip, decoded) before each of `cuts` (step indices). */
const foldResumed = (steps: ReadonlyArray<Step>, opts: Opts, cuts: ReadonlyArray<number>): Array<RunResult> => {
  let p = new Pipeline(claudeCodeTranslator, opts)
  const out: Array<RunResult> = []
  const at = new Set(cuts)
  steps.forEach((s, i) => {
    if (at.has(i)) p = resume(p, opts)
    feed(p, s, out)
  })
  if (at.has(steps.length)) p = resume(p, opts)
  p.end()
  out.push(...p.takeResults())
  return out
}

const json = (runs: ReadonlyArray<RunResult>): string => JSON.stringify(runs)

describe('claude-code translator: the fixtures through the pipeline equal replayFile', () => {
  for (const file of FILES) {
    it(`${file.slice(fixtures.length)} (parsed records, one per line)`, async () => {
      const want = await replayFile(file, { format: 'claude-code' })
      const got = foldAll(STEPS.get(file) as Array<Step>, { file })
      expect(json(got)).toBe(json(want))
    })
  }
  it('a stream-json log as one JSON document (the --output-format json array) gives the same runs, without lines', () => {
    for (const file of filesOf('claude-code-stream-json')) {
      const steps = STEPS.get(file) as Array<Step>
      const p = new Pipeline(claudeCodeTranslator, { file: null })
      expect(p.document(steps.map((s) => (s.kind === 'record' ? s.value : null)))).toBe(true)
      p.end()
      const doc = p.takeResults()
      const lines = foldAll(steps, { file: null })
      const strip = (rs: ReadonlyArray<RunResult>): unknown => rs.map((r) => ({ ...r, source: null, diagnostics: r.diagnostics.map((d) => d.message) }))
      expect(strip(doc)).toEqual(strip(lines))
    }
  })
})

describe('claude-code translator: checkpoints', () => {
  it('a checkpoint anywhere in a fixture resumes to the same runs (replay and live)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FILES),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        (file, where, live) => {
          const steps = STEPS.get(file) as Array<Step>
          const opts: Opts = { file, ...(live ? { live: true } : {}) }
          const cuts = where.map((x) => Math.floor(x * (steps.length + 1)))
          expect(json(foldResumed(steps, opts, cuts))).toBe(json(foldAll(steps, opts)))
        },
      ),
      { numRuns: numRuns() },
    )
  })

  const streamRecord = fc.record(
    {
      type: fc.constantFrom('system', 'assistant', 'user', 'result', 'stream_event', 'weird'),
      subtype: fc.constantFrom(
        'init',
        'success',
        'error_during_execution',
        'error_max_turns',
        'task_started',
        'task_notification',
        'permission_denied',
        'api_retry',
      ),
      session_id: fc.constantFrom('s', 'p2', 'other'),
      parent_tool_use_id: fc.constantFrom('task-1', null),
      tool_use_id: fc.constantFrom('task-1', 'd1'),
      tool_name: fc.constant('Bash'),
      status: fc.constantFrom('completed', 'failed', 'stopped', 'odd'),
      is_error: fc.boolean(),
      terminal_reason: fc.constantFrom('completed', 'tool_deferred', 'max_turns', 'aborted_tools', 'quantum'),
      deferred_tool_use: fc.constant({ id: 't1', name: 'Bash', input: { command: 'ls' } }),
      result: fc.string({ maxLength: 4 }),
      structured_output: fc.constant({ ok: true }),
      duration_ms: fc.nat(5000),
      error: fc.constantFrom('rate_limit', 'max_output_tokens'),
      message: fc.record({
        id: fc.constantFrom('m1', 'm2', 'm3'),
        model: fc.constantFrom('a', 'b', '<synthetic>'),
        content: fc.array(
          fc.oneof(
            fc.record({ type: fc.constant('text'), text: fc.constantFrom('x', 'API Error: y', '[Request interrupted by user]') }),
            fc.record({ type: fc.constant('tool_use'), id: fc.constantFrom('t1', 'task-1'), name: fc.constantFrom('Bash', 'Task') }),
            fc.record({ type: fc.constant('tool_result'), tool_use_id: fc.constantFrom('t1', 'task-1'), is_error: fc.boolean(), content: fc.constant('r') }),
          ),
          { maxLength: 3 },
        ),
        usage: fc.record({ input_tokens: fc.nat(50), output_tokens: fc.nat(50), cache_read_input_tokens: fc.nat(50) }),
        stop_reason: fc.constantFrom('end_turn', 'max_tokens', null),
      }),
      total_cost_usd: fc.constantFrom(0, 0.1, 0.2, 0.05),
      num_turns: fc.nat(6),
      modelUsage: fc.dictionary(
        fc.constantFrom('a', 'b'),
        fc.record(
          { inputTokens: fc.nat(90), outputTokens: fc.nat(90), costUSD: fc.constantFrom(0.01, 0.02) },
          { requiredKeys: ['inputTokens', 'outputTokens'] },
        ),
      ),
      permission_denials: fc.array(fc.record({ tool_name: fc.constant('Bash'), tool_use_id: fc.constantFrom('d1', 'd2') }), { maxLength: 2 }),
    },
    { requiredKeys: ['type'] },
  )
  const transcriptRecord = fc.record(
    {
      parentUuid: fc.constant(null),
      uuid: fc.constantFrom('u1', 'u2'),
      type: fc.constantFrom('user', 'assistant', 'attachment', 'summary', 'odd'),
      sessionId: fc.constantFrom('s1', 's2'),
      isSidechain: fc.boolean(),
      agentId: fc.constant('ag'),
      timestamp: fc.nat(59).map((n) => `2025-01-01T00:00:${String(n).padStart(2, '0')}.000Z`),
      isMeta: fc.boolean(),
      isApiErrorMessage: fc.boolean(),
      toolUseResult: fc.record({ status: fc.constantFrom('completed', 'async_launched'), agentId: fc.constantFrom('ag1', 'ag2') }, { requiredKeys: [] }),
      attachment: fc.record({ type: fc.constant('max_turns_reached'), maxTurns: fc.nat(5), turnCount: fc.nat(5) }),
      message: fc.record({
        id: fc.constantFrom('m1', 'm2', 'm3'),
        model: fc.constantFrom('a', '<synthetic>'),
        content: fc.oneof(
          fc.constantFrom('hello', '<command-name>/x</command-name>', '[Request interrupted by user]'),
          fc.array(
            fc.oneof(
              fc.record({ type: fc.constant('text'), text: fc.constantFrom('x', 'API Error: y') }),
              fc.record({ type: fc.constant('thinking'), thinking: fc.constant('t') }),
              fc.record({
                type: fc.constant('tool_use'),
                id: fc.constantFrom('t1', 'task-1', 'q1'),
                name: fc.constantFrom('Bash', 'Task', 'AskUserQuestion', 'ExitPlanMode'),
                input: fc.constant({ q: 1 }),
              }),
              fc.record({
                type: fc.constant('tool_result'),
                tool_use_id: fc.constantFrom('t1', 'task-1', 'q1'),
                is_error: fc.boolean(),
                content: fc.constant('r'),
              }),
            ),
            { maxLength: 3 },
          ),
        ),
        usage: fc.record({ input_tokens: fc.nat(50), output_tokens: fc.nat(50) }),
        stop_reason: fc.constantFrom('end_turn', 'max_tokens', null),
      }),
    },
    { requiredKeys: ['type', 'uuid'] },
  )
  const log = (rec: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Array<Step>> =>
    fc
      .array(
        fc.oneof(
          { weight: 12, arbitrary: rec.map((value): Record<string, unknown> => value) },
          { weight: 1, arbitrary: fc.constant<Record<string, unknown>>({ noise: true }) },
        ),
        {
          maxLength: 30,
        },
      )
      .map((rs) => rs.map((r, i): Step => ('noise' in r ? { kind: 'text', text: 'not json', line: i + 1 } : { kind: 'record', value: r, line: i + 1 })))

  for (const [name, arb] of [
    ['stream-json', log(streamRecord)],
    ['transcript', log(transcriptRecord)],
  ] as const) {
    it(`a checkpoint anywhere in an arbitrary ${name} log resumes to the same runs (replay and live)`, () => {
      fc.assert(
        fc.property(arb, fc.array(fc.nat(31), { minLength: 1, maxLength: 3 }), fc.boolean(), (steps, cuts, live) => {
          const opts: Opts = { file: 'x.jsonl', ...(live ? { live: true } : {}) }
          expect(json(foldResumed(steps, opts, cuts))).toBe(json(foldAll(steps, opts)))
        }),
        { numRuns: numRuns() },
      )
    })
  }
})

describe('claude-code translator: live SDK objects of any shape', () => {
  const boom = (): never => {
    throw new Error('getter')
  }
  const hostile = (): Array<unknown> => {
    const cyclic: Record<string, unknown> = { type: 'assistant', session_id: 's', parent_tool_use_id: null }
    const content: Array<unknown> = [{ type: 'text', text: 'hi' }]
    content.push(content)
    cyclic['message'] = { id: 'm1', model: 'claude-x', content, usage: { input_tokens: 1, output_tokens: 2 } }
    cyclic['self'] = cyclic
    const getter = Object.defineProperty({ type: 'assistant', session_id: 's' }, 'message', { get: boom, enumerable: true })
    const typeGetter = Object.defineProperty({}, 'type', { get: boom, enumerable: true })
    const usageGetter = {
      type: 'assistant',
      session_id: 's',
      message: Object.defineProperty({ id: 'm2', model: 'x', content: [] }, 'usage', { get: boom, enumerable: true }),
    }
    const trap = new Proxy(
      {},
      {
        get: boom,
        has: boom,
        ownKeys: boom,
        getOwnPropertyDescriptor: boom,
      },
    )
    const modelUsage = new Proxy({}, { ownKeys: boom })
    return [
      { type: 'system', subtype: 'init', session_id: 's', tools: [], claude_code_version: '2.1.0' },
      cyclic,
      getter,
      typeGetter,
      usageGetter,
      trap,
      [trap, { type: 'user', session_id: 's', message: { content: [new Error('x'), { type: 'tool_result', tool_use_id: new Error('y') }] } }],
      {
        type: 'assistant',
        session_id: 's',
        error: new Error('e'),
        message: { id: new Error('id'), model: new Error('m'), content: [new Error('c')], usage: new Error('u') },
      },
      // a result whose modelUsage cannot be listed is skipped (it cannot be read), and does not end the run
      { type: 'result', subtype: 'success', is_error: false, session_id: 's', modelUsage },
      {
        type: 'result',
        subtype: 'success',
        is_error: false,
        session_id: 's',
        result: new Error('r'),
        modelUsage: { x: new Error('m') },
        total_cost_usd: 0.01,
        permission_denials: [new Error('d')],
        errors: [new Error('e')],
      },
      { type: 'result', subtype: new Error('s'), session_id: 's' },
      Symbol('x'),
      10n,
      () => 1,
      undefined,
    ]
  }

  it('never throws; every run is well formed and the record that could not be read is a diagnostic', () => {
    for (const live of [false, true]) {
      const p = new Pipeline(claudeCodeTranslator, { file: null, ...(live ? { live: true } : {}) })
      const out: Array<RunResult> = []
      for (const v of hostile()) {
        expect(() => p.record(v)).not.toThrow()
        out.push(...p.takeResults())
      }
      p.end()
      out.push(...p.takeResults())
      expect(out.length).toBeGreaterThanOrEqual(1)
      const all = out.flatMap((r) => r.diagnostics.map((d) => d.message))
      expect(all).toContain('skipped a record that could not be read')
      for (const r of out) {
        expect(r.format).toBe('claude-code')
        expect(Number.isFinite(r.usage.inputTokens)).toBe(true)
      }
      expect(out.some((r) => r.ending.kind === 'answered')).toBe(true)
    }
  })

  it('a transcript record with a cyclic or deep AskUserQuestion input still checkpoints', () => {
    const deep: Record<string, unknown> = {}
    let cur = deep
    for (let i = 0; i < 5000; i++) {
      const next: Record<string, unknown> = {}
      cur['a'] = next
      cur = next
    }
    const cyclic: Record<string, unknown> = { q: 1 }
    cyclic['self'] = cyclic
    const env = { parentUuid: null, isSidechain: false, sessionId: 'tx', uuid: 'u' }
    const p = new Pipeline(claudeCodeTranslator, { file: null })
    p.record({ ...env, type: 'user', message: { role: 'user', content: 'pick one' } })
    p.record({
      ...env,
      type: 'assistant',
      message: {
        id: 'a1',
        model: 'claude-x',
        content: [
          { type: 'tool_use', id: 'q1', name: 'AskUserQuestion', input: deep },
          { type: 'tool_use', id: 'q2', name: 'AskUserQuestion', input: cyclic },
        ],
      },
    })
    const state = JSON.parse(JSON.stringify(p.checkpoint().translator)) as unknown
    expect(claudeCodeTranslator.stateCodec.is(state)).toBe(true)
    p.end()
    const [r] = p.takeResults()
    expect(r?.ending.kind).toBe('suspended')
    if (r?.ending.kind === 'suspended') expect(r.ending.pending.map((x) => x.id)).toEqual(['q1', 'q2'])
  })
})
