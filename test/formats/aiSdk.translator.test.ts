/**
 * The ai-sdk translator through the one pipeline: (a) every fixture, fed record by record (provider chunk lines
 * as parsed objects; UI message stream arrays as one document, and element by element as objects), gives
 * exactly what `replayFile` gives; (b) a checkpoint anywhere — JSON round trip, decoded with the pipeline's
 * codec — resumes to the same runs as folding the whole, for the fixtures and for arbitrary part sequences
 * (live or not); (c) live part objects written from the `ai` package's published `TextStreamPart` types (v5/v6:
 * `undefined` optional fields, a `Date` in `response.timestamp`, an `Error` instance in an `error` part) read
 * the same as their JSON, straight through `runResults({ format: 'ai-sdk' })`, and hostile objects (getters
 * that throw, cycles, BigInts) never make it throw.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { from, lastValueFrom, toArray } from 'rxjs'
import { describe, expect, it } from 'vitest'
import { Pipeline, pipelineStateCodec, type PipelineState } from '../../src/core/pipeline.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { aiSdkTranslator } from '../../src/formats/aiSdk.js'
import type { AiSdkState } from '../../src/formats/aiSdk/run.js'
import { replayFile } from '../../src/node/replay.js'
import { runResults } from '../../src/operators/runResults.js'
import { numRuns } from '../support/arbitraries.js'

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url))
const filesOf = (dir: string, ext: string): Array<string> =>
  readdirSync(`${fixtures}${dir}`)
    .filter((f) => f.endsWith(ext))
    .sort()
    .map((f) => `${fixtures}${dir}/${f}`)
const PROVIDER_FILES = filesOf('ai-sdk-provider-chunks', '.chunks.txt')
const UI_FILES = filesOf('ai-sdk-ui-message-stream', '.json')

/** One input step: a parsed record (an object, or a line's value), a non-JSON line, or a whole document. */
type Step =
  | { readonly kind: 'record'; readonly value: unknown; readonly line?: number }
  | { readonly kind: 'text'; readonly text: string; readonly line?: number }
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

const feed = (p: Pipeline<AiSdkState>, step: Step, out: Array<RunResult>): void => {
  if (step.kind === 'record') expect(p.record(step.value, step.line)).toBeUndefined()
  else if (step.kind === 'text') expect(p.textLine(step.text, step.line)).toBeUndefined()
  else expect(p.document(step.doc)).toBe(true)
  out.push(...p.takeResults())
}

interface Opts {
  readonly file: string | null
  readonly live?: boolean
}

const foldAll = (steps: ReadonlyArray<Step>, opts: Opts): Array<RunResult> => {
  const p = new Pipeline(aiSdkTranslator, opts)
  const out: Array<RunResult> = []
  for (const s of steps) feed(p, s, out)
  p.end()
  out.push(...p.takeResults())
  return out
}

/** Folds `steps`, checkpointing (through JSON and the codec) and resuming at each of `cuts`. */
const foldWithCheckpoints = (steps: ReadonlyArray<Step>, cuts: ReadonlyArray<number>, opts: Opts): Array<RunResult> => {
  const codec = pipelineStateCodec(aiSdkTranslator)
  let p = new Pipeline(aiSdkTranslator, opts)
  const out: Array<RunResult> = []
  const at = new Set(cuts)
  steps.forEach((s, i) => {
    if (at.has(i)) {
      const decoded = codec.decode(JSON.parse(JSON.stringify(p.checkpoint())))
      expect(E.isRight(decoded)).toBe(true)
      p = new Pipeline(aiSdkTranslator, opts, (decoded as E.Right<PipelineState<AiSdkState>>).right)
    }
    feed(p, s, out)
  })
  p.end()
  out.push(...p.takeResults())
  return out
}

/** Results compared as JSON (key order included), the way the CLI prints them. */
const asJson = (rs: ReadonlyArray<RunResult>): string => JSON.stringify(rs)

describe('ai-sdk translator: fixtures through the pipeline equal replayFile', () => {
  for (const file of PROVIDER_FILES) {
    it(`${file.slice(fixtures.length)} (lines as parsed records)`, async () => {
      const want = await replayFile(file, { format: 'ai-sdk' })
      const got = foldAll(stepsOfLines(readFileSync(file, 'utf8')), { file })
      expect(asJson(got)).toBe(asJson(want))
    })
  }
  for (const file of UI_FILES) {
    it(`${file.slice(fixtures.length)} (one document, and element by element as objects)`, async () => {
      const want = await replayFile(file, { format: 'ai-sdk' })
      const doc = JSON.parse(readFileSync(file, 'utf8')) as Array<unknown>
      expect(asJson(foldAll([{ kind: 'document', doc }], { file }))).toBe(asJson(want))
      expect(
        asJson(
          foldAll(
            doc.map((value) => ({ kind: 'record', value })),
            { file },
          ),
        ),
      ).toBe(asJson(want))
    })
  }
})

// ---- arbitrary part sequences --------------------------------------------------------------------------

const idArb = fc.constantFrom('c1', 'c2', 'a1', '__proto__', 'constructor')
const reasonArb = fc.constantFrom('stop', 'length', 'tool-calls', 'content-filter', 'error', 'other', 'end_turn', 'refusal', 'tool_use', 'tool_calls')
const usageArb = fc.record(
  {
    inputTokens: fc.oneof(fc.nat(1000), fc.constant(-5)),
    outputTokens: fc.nat(1000),
    cachedInputTokens: fc.nat(2000),
    input_tokens: fc.nat(100),
    output_tokens: fc.nat(100),
    prompt_tokens: fc.nat(100),
  },
  { requiredKeys: [] },
)
const partArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ type: fc.constant('start'), messageId: fc.option(fc.constantFrom('m1', '__proto__'), { nil: undefined }) }, { requiredKeys: ['type'] }),
  fc.constantFrom(
    { type: 'start-step' },
    { type: 'text-start', id: 't' },
    { type: 'text-end', id: 't' },
    { type: 'raw', rawValue: {} },
    { type: 'data-x', data: 1 },
    { type: 'mystery' },
  ),
  fc.record({ type: fc.constant('text-delta'), id: fc.constant('t'), text: fc.string({ maxLength: 5 }) }),
  fc.record({ type: fc.constant('finish-step'), usage: usageArb, response: fc.record({ modelId: fc.constantFrom('m1', 'm2') }) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('finish'), finishReason: reasonArb, totalUsage: usageArb }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('abort'), reason: fc.option(fc.string({ maxLength: 5 }), { nil: undefined }) }),
  fc.record({
    type: fc.constant('error'),
    error: fc.oneof(fc.string({ maxLength: 5 }), fc.record({ message: fc.string({ maxLength: 5 }), statusCode: fc.nat(600) })),
  }),
  fc.record({ type: fc.constantFrom('tool-input-start', 'tool-input-delta'), id: idArb, toolName: fc.constant('rm'), delta: fc.constantFrom('{"a":', '1}') }),
  fc.record({ type: fc.constant('tool-call'), toolCallId: idArb, toolName: fc.constant('rm'), input: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ type: fc.constantFrom('tool-result', 'tool-output-available', 'tool-output-denied'), toolCallId: idArb }),
  fc.record({ type: fc.constant('tool-approval-request'), approvalId: idArb, toolCallId: idArb }),
  fc.record({ type: fc.constant('message_start'), message: fc.record({ id: fc.constantFrom('msg1', 'msg2'), model: fc.constant('claude'), usage: usageArb }) }),
  fc.record({
    type: fc.constant('content_block_start'),
    index: fc.nat(2),
    content_block: fc.record({ type: fc.constant('tool_use'), id: idArb, name: fc.constant('t') }),
  }),
  fc.record({ type: fc.constant('message_delta'), delta: fc.record({ stop_reason: reasonArb }), usage: usageArb }),
  fc.record({
    type: fc.constantFrom('response.created', 'response.output_text.delta', 'response.completed'),
    delta: fc.constant('x'),
    response: fc.record({ id: fc.constant('r1'), usage: usageArb }),
  }),
  fc.record({
    object: fc.constant('chat.completion.chunk'),
    id: fc.constantFrom('cc1', 'cc2'),
    choices: fc.array(fc.record({ delta: fc.record({ content: fc.constant('y') }), finish_reason: fc.option(reasonArb, { nil: null }) }), { maxLength: 1 }),
  }),
  fc.jsonValue({ maxDepth: 2 }),
)
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: partArb.map((value) => ({ kind: 'record' as const, value })) },
  { weight: 1, arbitrary: fc.constantFrom<Step>({ kind: 'text', text: 'data: [DONE]' }, { kind: 'text', text: ': ping' }, { kind: 'text', text: 'not json' }) },
  { weight: 1, arbitrary: partArb.map((p) => ({ kind: 'text' as const, text: `data: ${JSON.stringify(p)}` })) },
)
/** Steps with their lines (as a log would number them). */
const stepsArb = fc.array(stepArb, { maxLength: 40 }).map((steps) => steps.map((s, i) => (s.kind === 'document' ? s : { ...s, line: i + 1 })))

describe('ai-sdk translator: a checkpoint anywhere resumes to the same runs', () => {
  it('the fixtures, cut anywhere', () => {
    const inputs: Array<[string, Array<Step>]> = [
      ...PROVIDER_FILES.map((f): [string, Array<Step>] => [f, stepsOfLines(readFileSync(f, 'utf8'))]),
      ...UI_FILES.map((f): [string, Array<Step>] => [f, (JSON.parse(readFileSync(f, 'utf8')) as Array<unknown>).map((value) => ({ kind: 'record', value }))]),
    ]
    fc.assert(
      fc.property(fc.constantFrom(...inputs), fc.array(fc.nat(1000), { maxLength: 4 }), fc.boolean(), ([file, steps], cuts, live) => {
        const opts = { file, live }
        expect(
          asJson(
            foldWithCheckpoints(
              steps,
              cuts.map((c) => c % (steps.length + 1)),
              opts,
            ),
          ),
        ).toBe(asJson(foldAll(steps, opts)))
      }),
      { numRuns: numRuns() },
    )
  })

  it('arbitrary part sequences (hostile ids, SSE lines, several dialects), live or not', () => {
    fc.assert(
      fc.property(stepsArb, fc.array(fc.nat(50), { maxLength: 4 }), fc.boolean(), (steps, cuts, live) => {
        const opts = { file: 'x.jsonl', live }
        expect(asJson(foldWithCheckpoints(steps, cuts, opts))).toBe(asJson(foldAll(steps, opts)))
      }),
      { numRuns: numRuns() },
    )
  })
})

// ---- live objects (shapes of the `ai` package's published TextStreamPart types) -------------------------

/** An `AISDKError` subclass as `ai` throws it: `name` set by the class, `statusCode` and a large `responseBody`. */
class APICallErrorLike extends Error {
  override readonly name = 'AI_APICallError'
  readonly statusCode = 529
  readonly isRetryable = true
  readonly url = 'https://api.example.invalid/v1/messages'
  readonly requestBodyValues: unknown = { model: 'x' }
  get responseBody(): string {
    throw new Error('a getter that throws must never be read')
  }
}

/** A v5/v6 `fullStream` of one tool round and an answer, as `streamText` yields it (optional fields `undefined`). */
const fullStreamObjects = (error?: unknown): Array<Record<string, unknown>> => [
  { type: 'start' },
  { type: 'start-step', request: { body: undefined }, warnings: [] },
  { type: 'text-start', id: '0', providerMetadata: undefined },
  { type: 'text-delta', id: '0', text: 'Let me check.', providerMetadata: undefined },
  { type: 'text-end', id: '0', providerMetadata: undefined },
  { type: 'tool-input-start', id: 'call_1', toolName: 'weather', providerExecuted: undefined, dynamic: undefined, title: undefined },
  { type: 'tool-input-delta', id: 'call_1', delta: '{"city":"Oslo"}', providerMetadata: undefined },
  { type: 'tool-input-end', id: 'call_1', providerMetadata: undefined },
  {
    type: 'tool-call',
    toolCallId: 'call_1',
    toolName: 'weather',
    input: { city: 'Oslo' },
    providerExecuted: undefined,
    providerMetadata: undefined,
    dynamic: undefined,
    invalid: undefined,
    error: undefined,
  },
  {
    type: 'tool-result',
    toolCallId: 'call_1',
    toolName: 'weather',
    input: { city: 'Oslo' },
    output: { tempC: 12 },
    providerExecuted: undefined,
    preliminary: undefined,
    dynamic: undefined,
  },
  {
    type: 'finish-step',
    response: { id: 'resp_1', timestamp: new Date('2026-01-01T00:00:00.000Z'), modelId: 'gpt-5', headers: undefined },
    usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120, reasoningTokens: undefined, cachedInputTokens: 40 },
    finishReason: 'tool-calls',
    rawFinishReason: undefined,
    providerMetadata: undefined,
  },
  { type: 'start-step', request: { body: undefined }, warnings: [] },
  { type: 'text-start', id: '1', providerMetadata: undefined },
  { type: 'text-delta', id: '1', text: 'It is 12°C in Oslo.', providerMetadata: undefined },
  { type: 'text-end', id: '1', providerMetadata: undefined },
  ...(error !== undefined ? [{ type: 'error', error }] : []),
  {
    type: 'finish-step',
    response: { id: 'resp_2', timestamp: new Date('2026-01-01T00:00:01.000Z'), modelId: 'gpt-5', headers: undefined },
    usage: {
      inputTokens: 200,
      inputTokenDetails: { noCacheTokens: 100, cacheReadTokens: 100, cacheWriteTokens: undefined },
      outputTokens: 30,
      outputTokenDetails: { textTokens: 30, reasoningTokens: undefined },
      totalTokens: 230,
    },
    finishReason: 'stop',
    rawFinishReason: 'end_turn',
    providerMetadata: undefined,
  },
  {
    type: 'finish',
    finishReason: 'stop',
    rawFinishReason: 'end_turn',
    totalUsage: {
      inputTokens: 300,
      inputTokenDetails: { noCacheTokens: 160, cacheReadTokens: 140, cacheWriteTokens: undefined },
      outputTokens: 50,
      outputTokenDetails: { textTokens: 50, reasoningTokens: undefined },
      totalTokens: 350,
    },
  },
]

const viaOperator = (parts: ReadonlyArray<unknown>): Promise<Array<RunResult>> => lastValueFrom(from(parts).pipe(runResults({ format: 'ai-sdk' }), toArray()))
const withoutSource = (rs: ReadonlyArray<RunResult>): Array<Omit<RunResult, 'source'>> => rs.map(({ source: _s, ...rest }) => rest)

describe('ai-sdk translator: live TextStreamPart objects (written from the ai package’s published types)', () => {
  it('a fullStream of part objects through runResults({ format: "ai-sdk" }) reads as its JSON lines do', async () => {
    const runs = await viaOperator(fullStreamObjects())
    expect(runs).toHaveLength(1)
    const r = runs[0] as RunResult
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.finishReason).toBe('end_turn')
    expect(r.response).toBe('It is 12°C in Oslo.')
    expect(r.turns).toBe(2)
    expect(r.toolCalls).toBe(1)
    expect(r.usage).toMatchObject({ inputTokens: 160, cacheReadTokens: 140, outputTokens: 50 })
    expect(r.usage.byModel['gpt-5']).toMatchObject({ inputTokens: 160, cacheReadTokens: 140, outputTokens: 50, costUsd: null })
    // the same parts written as JSON lines (a Date becomes its ISO string, undefined fields vanish)
    const lines = foldAll(
      fullStreamObjects().map((p, i) => ({ kind: 'record', value: JSON.parse(JSON.stringify(p)) as unknown, line: i + 1 })),
      { file: null, live: true },
    )
    expect(withoutSource(runs)).toEqual(withoutSource(lines))
  })

  it('an error part whose error is an Error instance (an AI_APICallError with a throwing getter) → failed, its message/name/statusCode read', async () => {
    const parts = fullStreamObjects(new APICallErrorLike('Overloaded')).slice(0, 16)
    const runs = await viaOperator(parts)
    expect(runs.map((r) => r.ending)).toEqual([
      { kind: 'failed', reason: 'error', phase: 'stream', error: { message: 'Overloaded', code: 529, name: 'AI_APICallError' } },
    ])
    expect(runs[0]?.finishReason).toBe('error')
    expect(runs[0]?.response).toBeNull()
    // a plain Error, then the run's finish: the error beats the label next to it
    const withFinish = await viaOperator(fullStreamObjects(new TypeError('fetch failed')))
    expect(withFinish.map((r) => r.ending)).toEqual([{ kind: 'failed', reason: 'error', error: { message: 'fetch failed', name: 'TypeError' } }])
  })

  it('an abort part with reason undefined → stopped by caller, no reason; the partial text is not the answer', async () => {
    const runs = await viaOperator([...fullStreamObjects().slice(0, 14), { type: 'abort', reason: undefined }])
    expect(runs.map((r) => [r.ending, r.finishReason, r.response])).toEqual([[{ kind: 'stopped', by: 'caller' }, 'abort', null]])
  })

  it('a v6 tool-approval-request object → suspended with the pending call (its input copied as JSON)', async () => {
    const input = { path: '/tmp/x', when: new Date('2026-01-01T00:00:00.000Z') }
    const toolCall = { type: 'tool-call', toolCallId: 'c9', toolName: 'deleteFile', input, providerExecuted: undefined, dynamic: undefined }
    const runs = await viaOperator([
      { type: 'start' },
      { type: 'start-step', request: {}, warnings: [] },
      toolCall,
      { type: 'tool-approval-request', approvalId: 'ap-1', toolCall },
      {
        type: 'finish-step',
        response: { id: 'r', timestamp: new Date(0), modelId: 'm' },
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        finishReason: 'tool-calls',
        rawFinishReason: 'tool_use',
        providerMetadata: undefined,
      },
      { type: 'finish', finishReason: 'tool-calls', rawFinishReason: 'tool_use', totalUsage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } },
    ])
    expect(runs.map((r) => r.ending)).toEqual([
      {
        kind: 'suspended',
        pending: [{ id: 'ap-1', kind: 'approval', toolName: 'deleteFile', arguments: { path: '/tmp/x', when: '2026-01-01T00:00:00.000Z' } }],
      },
    ])
  })

  it('hostile objects never throw: cyclic and BigInt tool inputs, a file whose getter throws, a cyclic raw value, a type getter that throws', () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic['self'] = cyclic
    const file = {
      mediaType: 'image/png',
      get base64(): string {
        throw new Error('never read')
      },
    }
    const badType = {
      get type(): string {
        throw new Error('never read')
      },
    }
    const raw: Record<string, unknown> = {}
    raw['raw'] = raw
    const revoked = Proxy.revocable({}, {})
    revoked.revoke()
    const p = new Pipeline(aiSdkTranslator, { file: null, live: true })
    const parts: Array<unknown> = [
      { type: 'start' },
      { type: 'start-step', request: {}, warnings: [] },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'a', input: cyclic },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'b', input: { n: 10n } },
      { type: 'file', file },
      { type: 'raw', rawValue: raw },
      badType,
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('proxy')
          },
          has: () => {
            throw new Error('proxy')
          },
        },
      ),
      // even Array.isArray throws on a revoked proxy
      revoked.proxy,
      {
        type: 'finish',
        finishReason: 'tool-calls',
        rawFinishReason: undefined,
        totalUsage: { inputTokens: undefined, outputTokens: Number.NaN, totalTokens: undefined },
      },
    ]
    for (const part of parts) expect(() => p.record(part)).not.toThrow()
    p.end()
    const runs = p.takeResults()
    expect(runs.map((r) => r.ending)).toEqual([
      {
        kind: 'suspended',
        pending: [
          { id: 'c1', kind: 'tool_result', toolName: 'a', arguments: { a: 1, self: null } },
          { id: 'c2', kind: 'tool_result', toolName: 'b', arguments: {} },
        ],
      },
    ])
    expect(runs[0]?.diagnostics.map((d) => d.message)).toEqual([
      'skipped a record without a string type',
      'skipped a record without a string type',
      'skipped a part that could not be read (reading one of its fields threw)',
      'ignored a token count that is not a whole, non-negative number',
    ])
    // the state stays plain JSON: it checkpoints and decodes
    expect(E.isRight(pipelineStateCodec(aiSdkTranslator).decode(JSON.parse(JSON.stringify(p.checkpoint()))))).toBe(true)
  })
})
