/**
 * The Gemini translator through the one pipeline: (a) every fixture, fed record by record (stream-json lines as
 * parsed objects, noise lines as text; session files as one document), gives exactly what `replayFile` gives;
 * (b) a checkpoint anywhere — JSON round trip, decoded with the pipeline's codec — resumes to the same runs as
 * folding the whole, for the fixtures and for arbitrary stream-json and session logs (live or not); (c) live
 * SDK objects of any shape (throwing getters, cycles, Error fields) never make it throw.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { Pipeline, pipelineStateCodec, type PipelineState } from '../../src/core/pipeline.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { geminiTranslator, type GeminiState } from '../../src/formats/gemini.js'
import { replayFile } from '../../src/node/replay.js'
import { numRuns } from '../support/arbitraries.js'

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url))
const filesOf = (dir: string): Array<string> =>
  readdirSync(`${fixtures}${dir}`)
    .filter((f) => f.endsWith('.json') || f.endsWith('.jsonl'))
    .sort()
    .map((f) => `${fixtures}${dir}/${f}`)
const STREAM_FILES = filesOf('gemini-stream-json')
const SESSION_FILES = filesOf('gemini-session')

/** One input step: a parsed record at a line, a non-JSON line, or a whole document. */
type Step =
  | { readonly kind: 'record'; readonly value: unknown; readonly line?: number }
  | { readonly kind: 'text'; readonly text: string; readonly line?: number; readonly unterminated?: boolean }
  | { readonly kind: 'document'; readonly doc: unknown }

/** The steps of a log as a line reader sees it: each non-blank line parsed, or kept as text when it is not JSON. */
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

const feed = (p: Pipeline<GeminiState>, step: Step, out: Array<RunResult>): void => {
  if (step.kind === 'record') expect(p.record(step.value, step.line)).toBeUndefined()
  else if (step.kind === 'text') expect(p.textLine(step.text, step.line, step.unterminated === true)).toBeUndefined()
  else expect(p.document(step.doc)).toBe(true)
  out.push(...p.takeResults())
}

interface Opts {
  readonly file: string | null
  readonly live?: boolean
}

const foldAll = (steps: ReadonlyArray<Step>, opts: Opts): Array<RunResult> => {
  const p = new Pipeline(geminiTranslator, opts)
  const out: Array<RunResult> = []
  for (const s of steps) feed(p, s, out)
  p.end()
  out.push(...p.takeResults())
  return out
}

/** Folds with a checkpoint (JSON round trip, decoded) before each of `cuts` (step indices). */
const foldResumed = (steps: ReadonlyArray<Step>, opts: Opts, cuts: ReadonlyArray<number>): Array<RunResult> => {
  const codec = pipelineStateCodec(geminiTranslator)
  let p = new Pipeline(geminiTranslator, opts)
  const out: Array<RunResult> = []
  const at = new Set(cuts)
  steps.forEach((s, i) => {
    if (at.has(i)) p = resume(p, codec, opts)
    feed(p, s, out)
  })
  if (at.has(steps.length)) p = resume(p, codec, opts)
  p.end()
  out.push(...p.takeResults())
  return out
}

const resume = (p: Pipeline<GeminiState>, codec: ReturnType<typeof pipelineStateCodec<GeminiState>>, opts: Opts): Pipeline<GeminiState> => {
  const json: unknown = JSON.parse(JSON.stringify(p.checkpoint()))
  const decoded = codec.decode(json)
  expect(E.isRight(decoded)).toBe(true)
  return new Pipeline(geminiTranslator, opts, (decoded as E.Right<PipelineState<GeminiState>>).right)
}

const json = (runs: ReadonlyArray<RunResult>): string => JSON.stringify(runs)

describe('gemini translator: the fixtures through the pipeline equal replayFile', () => {
  for (const file of STREAM_FILES) {
    it(`${file.slice(fixtures.length)} (parsed records, one per line)`, async () => {
      const want = await replayFile(file, { format: 'gemini' })
      const got = foldAll(stepsOfLines(readFileSync(file, 'utf8')), { file })
      expect(json(got)).toBe(json(want))
    })
  }
  for (const file of SESSION_FILES) {
    it(`${file.slice(fixtures.length)} (one document)`, async () => {
      const want = await replayFile(file, { format: 'gemini' })
      const got = foldAll([{ kind: 'document', doc: JSON.parse(readFileSync(file, 'utf8')) as unknown }], { file })
      expect(json(got)).toBe(json(want))
    })
    it(`${file.slice(fixtures.length)} (its messages as .jsonl records, at lines)`, async () => {
      const doc = JSON.parse(readFileSync(file, 'utf8')) as { messages: Array<unknown> } & Record<string, unknown>
      const { messages, ...meta } = doc
      const steps: Array<Step> = [{ kind: 'record', value: meta, line: 1 }, ...messages.map((m, i): Step => ({ kind: 'record', value: m, line: i + 2 }))]
      const runs = foldAll(steps, { file })
      const fromDoc = await replayFile(file, { format: 'gemini' })
      // the same runs; the line-based log gives each run its lines
      expect(runs.map((r) => [r.ending, r.response, r.usage, r.turns, r.toolCalls, r.sessionId, r.inferred])).toEqual(
        fromDoc.map((r) => [r.ending, r.response, r.usage, r.turns, r.toolCalls, r.sessionId, r.inferred]),
      )
      expect(runs.every((r) => r.source?.firstLine !== null)).toBe(true)
    })
  }
})

// ---- arbitrary logs --------------------------------------------------------------------------------------

const T = (s: number): string => new Date(Date.UTC(2026, 0, 1, 10, 0, s)).toISOString()
const value = <A>(plausible: fc.Arbitrary<A>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 6, arbitrary: plausible }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) })
const count = fc.oneof(fc.nat({ max: 5000 }), fc.constantFrom(-1, 1.5))
const ids = fc.constantFrom('a', 'b', 'c', 'd', '__proto__')

const statsArb = fc.record(
  {
    total_tokens: value(count),
    input_tokens: value(count),
    output_tokens: value(count),
    cached: value(count),
    input: value(count),
    duration_ms: value(count),
    models: value(
      fc.dictionary(
        fc.constantFrom('m1', 'm2', '__proto__'),
        fc.record({ total_tokens: count, input_tokens: count, output_tokens: count, cached: count }, { requiredKeys: [] }),
      ),
    ),
  },
  { requiredKeys: [] },
)

const streamRecordArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record(
    { type: fc.constant('init'), timestamp: fc.nat(60).map(T), session_id: value(ids), model: value(fc.constantFrom('m1', 'gemini-2.5-pro')) },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constant('message'),
      timestamp: fc.nat(60).map(T),
      role: value(fc.constantFrom('user', 'assistant')),
      content: value(fc.string({ maxLength: 5 })),
      delta: fc.boolean(),
    },
    { requiredKeys: ['type', 'role', 'content'] },
  ),
  fc.record(
    { type: fc.constant('tool_use'), timestamp: fc.nat(60).map(T), tool_name: value(fc.constantFrom('ls', 'read')), tool_id: ids },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    { type: fc.constant('tool_result'), timestamp: fc.nat(60).map(T), tool_id: ids, status: value(fc.constantFrom('success', 'error')) },
    { requiredKeys: ['type'] },
  ),
  fc.record({
    type: fc.constant('error'),
    timestamp: fc.nat(60).map(T),
    severity: value(fc.constantFrom('error', 'warning')),
    message: value(
      fc.constantFrom('Maximum session turns exceeded', 'Loop detected, stopping execution', 'Agent execution blocked: x', 'MAX_TOKENS', 'SAFETY', 'boom'),
    ),
  }),
  fc.record(
    {
      type: fc.constant('result'),
      timestamp: fc.nat(60).map(T),
      status: value(fc.constantFrom('success', 'error', 'weird')),
      error: value(
        fc.record(
          {
            type: value(fc.constantFrom('FatalTurnLimitedError', 'FatalCancellationError', 'unknown', 'INVALID_STREAM')),
            message: fc.string({ maxLength: 5 }),
          },
          { requiredKeys: [] },
        ),
      ),
      stats: value(statsArb),
    },
    { requiredKeys: ['type', 'status'] },
  ),
)

const noiseArb = fc.constantFrom('YOLO mode is enabled.', 'TerminalQuotaError: quota', '    code: 429,', 'at main (x.js:1:1)', '{"type":"message","role":"assi')

const streamSteps: fc.Arbitrary<Array<Step>> = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: streamRecordArb.map((value): Omit<Step & { kind: 'record' }, 'line'> => ({ kind: 'record', value })) },
      { weight: 1, arbitrary: noiseArb.map((text) => ({ kind: 'text' as const, text })) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }).map((value) => ({ kind: 'record' as const, value })) },
    ),
    { maxLength: 25 },
  )
  .map((xs) => xs.map((x, i) => ({ ...x, line: i + 1 }) as Step))

const call = fc.record(
  {
    id: ids,
    name: fc.constantFrom('run_shell_command', 'write_file'),
    args: fc.jsonValue({ maxDepth: 2 }),
    status: value(fc.constantFrom('success', 'error', 'cancelled', 'awaiting_approval', 'executing')),
    result: fc.constant([{ functionResponse: { id: 'a', name: 'x', response: { error: 'failed' } } }]),
  },
  { requiredKeys: ['status'] },
)

const sessionMessageArb = fc.record(
  {
    id: ids,
    timestamp: fc.nat(60).map(T),
    type: value(fc.constantFrom('user', 'gemini', 'info', 'error', 'warning')),
    content: fc.oneof(
      fc.string({ maxLength: 4 }),
      fc.constant([{ text: 'hi' }]),
      fc.constant([{ functionResponse: { id: 'a', name: 'x', response: {} } }]),
      fc.constant('<session_context>x'),
    ),
    model: fc.constantFrom('gemini-2.5-pro', 'm2'),
    tokens: value(fc.record({ input: count, output: count, cached: count, thoughts: count, tool: count }, { requiredKeys: [] })),
    toolCalls: value(fc.array(call, { maxLength: 2 })),
  },
  { requiredKeys: ['id', 'type'] },
)

const sessionLineArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: sessionMessageArb },
  { weight: 1, arbitrary: fc.record({ $rewindTo: value(fc.constantFrom('a', 'b', 'c', 'nope')) }) },
  { weight: 1, arbitrary: fc.record({ $set: value(fc.record({ sessionId: fc.constantFrom('s-1', 's-2') }, { requiredKeys: [] })) }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
)

const sessionSteps: fc.Arbitrary<Array<Step>> = fc
  .array(
    fc.oneof(
      { weight: 8, arbitrary: sessionLineArb.map((value) => ({ kind: 'record' as const, value })) },
      { weight: 1, arbitrary: noiseArb.map((text) => ({ kind: 'text' as const, text })) },
    ),
    { maxLength: 25 },
  )
  .map((xs) => [
    { kind: 'record', value: { sessionId: 's-0', projectHash: 'h', startTime: T(0) }, line: 1 } as Step,
    ...xs.map((x, i) => ({ ...x, line: i + 2 }) as Step),
  ])

const documentSteps: fc.Arbitrary<Array<Step>> = fc
  .array(sessionMessageArb, { maxLength: 12 })
  .map((messages) => [{ kind: 'document', doc: { sessionId: 's-doc', projectHash: 'h', messages } } as Step])

const fixtureSteps: Array<[string, Array<Step>]> = [
  ...STREAM_FILES.map((f): [string, Array<Step>] => [f, stepsOfLines(readFileSync(f, 'utf8'))]),
  ...SESSION_FILES.map((f): [string, Array<Step>] => [f, [{ kind: 'document', doc: JSON.parse(readFileSync(f, 'utf8')) as unknown }]]),
]

/** Cut points: indices in 0 … n (before step i; n = after the last step, before the end). */
const cutsFor = (n: number): fc.Arbitrary<Array<number>> => fc.uniqueArray(fc.nat({ max: n }), { minLength: 1, maxLength: 3 })

describe('gemini translator: a checkpoint anywhere resumes to the same runs', () => {
  it('the fixtures, cut at any step(s)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...fixtureSteps).chain(([file, steps]) => fc.tuple(fc.constant(file), fc.constant(steps), cutsFor(steps.length), fc.boolean())),
        ([file, steps, cuts, live]) => {
          const opts = { file, live }
          expect(json(foldResumed(steps, opts, cuts))).toBe(json(foldAll(steps, opts)))
        },
      ),
      { numRuns: numRuns() },
    )
  })

  for (const [name, arb] of [
    ['stream-json logs', streamSteps],
    ['.jsonl session logs ($set, $rewindTo, rewritten ids)', sessionSteps],
    ['session documents', documentSteps],
  ] as const) {
    it(`arbitrary ${name}, live or not`, () => {
      fc.assert(
        fc.property(
          arb.chain((steps) => fc.tuple(fc.constant(steps), cutsFor(steps.length), fc.boolean())),
          ([steps, cuts, live]) => {
            const opts = { file: 'x.jsonl', live }
            expect(json(foldResumed(steps, opts, cuts))).toBe(json(foldAll(steps, opts)))
          },
        ),
        { numRuns: numRuns() },
      )
    })
  }
})

// ---- live objects ----------------------------------------------------------------------------------------

const hostile = (): Array<unknown> => {
  const cyclic: Record<string, unknown> = { type: 'message', role: 'assistant', content: 'x' }
  cyclic['self'] = cyclic
  const throwing = Object.defineProperty({ type: 'result' }, 'status', {
    enumerable: true,
    get() {
      throw new Error('getter')
    },
  })
  const throwingStats = {
    type: 'result',
    status: 'success',
    stats: new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('keys')
        },
        get: () => {
          throw new Error('get')
        },
      },
    ),
  }
  const proxy = new Proxy(
    {},
    {
      get: () => {
        throw new Error('any')
      },
      has: () => {
        throw new Error('has')
      },
    },
  )
  const args: Record<string, unknown> = { command: 'rm' }
  args['again'] = args
  return [
    { type: 'init', session_id: 's', model: 'm' },
    { type: 'message', role: 'user', content: 'go' },
    cyclic,
    { type: 'tool_use', tool_name: 'ls', tool_id: new Error('not an id') },
    { type: 'error', severity: 'error', message: new Error('not a string') },
    throwing,
    throwingStats,
    proxy,
    { type: 'result', status: 'error', error: new Error('boom'), stats: { models: { m: new Error('x') } } },
    Symbol('s'),
    () => 1,
    10n,
  ]
}

describe('gemini translator: live SDK objects of any shape', () => {
  it('never throws, and the state stays plain JSON (stream-json objects)', () => {
    const p = new Pipeline(geminiTranslator, { file: null, live: true })
    const out: Array<RunResult> = []
    for (const v of hostile()) {
      expect(() => p.record(v)).not.toThrow()
      out.push(...p.takeResults())
      expect(() => JSON.stringify(p.checkpoint())).not.toThrow()
    }
    p.end()
    out.push(...p.takeResults())
    expect(out.length).toBeGreaterThanOrEqual(1)
    // the Error message of `result.error` reads as its message; the run failed
    expect(out[0]?.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'boom' } })
    expect(out.every((r) => r.source === null)).toBe(true)
  })

  it('never throws on session objects; a cyclic pending argument is kept as plain JSON', () => {
    const args: Record<string, unknown> = { command: 'rm' }
    args['self'] = args
    const p = new Pipeline(geminiTranslator, { file: null })
    const records: Array<unknown> = [
      { sessionId: 's', projectHash: 'h' },
      { id: 'u', type: 'user', timestamp: T(1), content: [{ text: 'go' }] },
      new Proxy(
        { id: 'x' },
        {
          get: (_o, k) =>
            k === 'id'
              ? 'x'
              : k === 'type'
                ? 'gemini'
                : (() => {
                    throw new Error('get')
                  })(),
        },
      ),
      { id: 'g', type: 'gemini', timestamp: T(2), content: '', toolCalls: [{ id: 'c', name: 'run', status: 'awaiting_approval', args }] },
    ]
    for (const v of records) expect(() => p.record(v)).not.toThrow()
    expect(() => JSON.stringify(p.checkpoint())).not.toThrow()
    p.end()
    const runs = p.takeResults()
    expect(runs.map((r) => r.ending)).toEqual([
      { kind: 'suspended', pending: [{ id: 'c', kind: 'approval', toolName: 'run', arguments: { command: 'rm', self: null } }] },
    ])
  })
})
