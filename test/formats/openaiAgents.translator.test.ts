/**
 * The OpenAI Agents translator through the one pipeline: (a) every fixture fed record by record (stream lines as
 * parsed objects at their lines; RunState files as one document) gives exactly what `replayFile` gives; (b) a
 * checkpoint anywhere — JSON round trip, decoded with the pipeline's codec — resumes to the same runs as folding
 * the whole, for the fixtures and for arbitrary streams, states and results (live or not).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { Pipeline, pipelineStateCodec, type PipelineState } from '../../src/core/pipeline.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { openaiAgentsTranslator, type OpenAiAgentsState } from '../../src/formats/openaiAgents.js'
import { replayFile } from '../../src/node/replay.js'
import { numRuns } from '../support/arbitraries.js'

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url))
const filesOf = (dir: string, ext: string): Array<string> =>
  readdirSync(`${fixtures}${dir}`)
    .filter((f) => f.endsWith(ext))
    .sort()
    .map((f) => `${fixtures}${dir}/${f}`)
const STREAM_FILES = filesOf('openai-agents-stream', '.jsonl')
const STATE_FILES = filesOf('openai-agents-runstate', '.json')

type Step =
  | { readonly kind: 'record'; readonly value: unknown; readonly line?: number }
  | { readonly kind: 'text'; readonly text: string; readonly line?: number; readonly unterminated?: boolean }
  | { readonly kind: 'document'; readonly doc: unknown }

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

type P = Pipeline<OpenAiAgentsState>

const feed = (p: P, step: Step, out: Array<RunResult>): void => {
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
  const p = new Pipeline(openaiAgentsTranslator, opts)
  const out: Array<RunResult> = []
  for (const s of steps) feed(p, s, out)
  p.end()
  out.push(...p.takeResults())
  return out
}

const codec = pipelineStateCodec(openaiAgentsTranslator)

const resume = (p: P, opts: Opts): P => {
  const json: unknown = JSON.parse(JSON.stringify(p.checkpoint()))
  const decoded = codec.decode(json)
  expect(E.isRight(decoded)).toBe(true)
  return new Pipeline(openaiAgentsTranslator, opts, (decoded as E.Right<PipelineState<OpenAiAgentsState>>).right)
}

/** Folds with a checkpoint (JSON round trip, decoded) before each of `cuts` (step indices; `steps.length` = before the end). */
const foldResumed = (steps: ReadonlyArray<Step>, opts: Opts, cuts: ReadonlyArray<number>): Array<RunResult> => {
  let p = new Pipeline(openaiAgentsTranslator, opts)
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

describe('openai-agents translator: the fixtures through the pipeline equal replayFile', () => {
  for (const file of STREAM_FILES) {
    it(`${file.slice(fixtures.length)} (parsed records, one per line)`, async () => {
      const want = await replayFile(file, { format: 'openai-agents' })
      const got = foldAll(stepsOfLines(readFileSync(file, 'utf8')), { file })
      expect(want).toHaveLength(1)
      expect(json(got)).toBe(json(want))
    })
  }
  for (const file of STATE_FILES) {
    it(`${file.slice(fixtures.length)} (one document)`, async () => {
      const want = await replayFile(file, { format: 'openai-agents' })
      const got = foldAll([{ kind: 'document', doc: JSON.parse(readFileSync(file, 'utf8')) as unknown }], { file })
      expect(json(got)).toBe(json(want))
    })
    it(`${file.slice(fixtures.length)} (written on one line)`, async () => {
      const doc = JSON.parse(readFileSync(file, 'utf8')) as unknown
      const fromDoc = await replayFile(file, { format: 'openai-agents' })
      const got = foldAll([{ kind: 'record', value: doc, line: 1 }], { file })
      // the same run; the line-based log gives it its line
      expect(json(got.map((r) => ({ ...r, source: null })))).toBe(json(fromDoc.map((r) => ({ ...r, source: null }))))
      expect(got[0]?.source).toEqual({ file, firstLine: 1, lastLine: 1 })
    })
  }
})

describe('openai-agents translator: a checkpoint anywhere resumes to the same runs', () => {
  const all = [
    ...STREAM_FILES.map((file) => ({ file, steps: stepsOfLines(readFileSync(file, 'utf8')) })),
    // every fixture in one log: stream runs, then one RunState per line (each its own run)
    {
      file: 'all.jsonl',
      steps: [
        ...STREAM_FILES.flatMap((f) => stepsOfLines(readFileSync(f, 'utf8'))),
        ...STATE_FILES.map((f): Step => ({ kind: 'record', value: JSON.parse(readFileSync(f, 'utf8')) as unknown })),
      ].map((s, i): Step => (s.kind === 'record' ? { ...s, line: i + 1 } : s)),
    },
    // a document spread over lines, gathered up to the end
    { file: 'pretty.json', steps: stepsOfLines(JSON.stringify(JSON.parse(readFileSync(STATE_FILES[0] as string, 'utf8')) as unknown, null, 2)) },
  ]
  for (const { file, steps } of all) {
    for (const live of [false, true]) {
      it(`${file.replace(fixtures, '')}${live ? ' (live)' : ''}: every single cut`, () => {
        const opts = { file, live }
        const whole = json(foldAll(steps, opts))
        for (let cut = 0; cut <= steps.length; cut++) expect(json(foldResumed(steps, opts, [cut]))).toBe(whole)
      })
    }
  }
})

// ---- arbitrary inputs ------------------------------------------------------------------------------------

const value = <A>(plausible: fc.Arbitrary<A>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 6, arbitrary: plausible }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) })
const count = fc.oneof(fc.nat({ max: 5000 }), fc.constantFrom(-1, 1.5))
const ids = fc.constantFrom('c1', 'c2', 'c3', '__proto__')
const agents = fc.constantFrom('A', 'B', 'C', '__proto__')
const agent = agents.map((name) => ({ name }))

const usageArb = fc.record(
  {
    inputTokens: value(count),
    outputTokens: value(count),
    totalTokens: count,
    inputTokensDetails: value(fc.record({ cached_tokens: count })),
    outputTokensDetails: value(fc.array(fc.record({ reasoning_tokens: count }), { maxLength: 2 })),
  },
  { requiredKeys: ['inputTokens', 'outputTokens'] },
)
const fcallArb = fc.record({
  type: fc.constant('function_call'),
  id: ids.map((i) => `fc_${i}`),
  callId: ids,
  name: fc.constantFrom('t1', 't2'),
  arguments: fc.constantFrom('{}', '{"a":1}', 'x'),
})

const raw = (data: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> => data.map((d) => ({ type: 'raw_model_stream_event', data: d }))
const itemEv = (name: fc.Arbitrary<string>, item: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.record({ type: fc.constant('run_item_stream_event'), name, item })

const streamEventArb: fc.Arbitrary<unknown> = fc.oneof(
  raw(fc.constant({ type: 'response_started' })),
  raw(fc.record({ type: fc.constant('output_text_delta'), delta: value(fc.string({ maxLength: 4 })) })),
  raw(
    fc.record({
      type: fc.constant('response_done'),
      response: fc.record({
        id: fc.constant('r'),
        usage: value(usageArb),
        output: fc.constant([]),
        providerData: value(fc.record({ model: fc.constantFrom('m1', 'm2') })),
      }),
    }),
  ),
  raw(fc.record({ type: fc.constantFrom('model', 'weird') })),
  itemEv(
    fc.constant('message_output_created'),
    fc.record({
      type: fc.constant('message_output_item'),
      agent,
      rawItem: fc.record({
        content: value(fc.array(fc.record({ type: fc.constantFrom('output_text', 'refusal'), text: fc.string({ maxLength: 4 }) }), { maxLength: 2 })),
      }),
    }),
  ),
  itemEv(
    fc.constantFrom('tool_called', 'tool_output', 'tool_approval_requested'),
    fc.record({ agent, rawItem: value(fcallArb), toolName: fc.constantFrom('t1', 't2') }, { requiredKeys: ['rawItem'] }),
  ),
  itemEv(fc.constant('handoff_occurred'), fc.record({ sourceAgent: agent, targetAgent: value(agent), rawItem: fc.constant({}) })),
  itemEv(fc.constantFrom('handoff_requested', 'reasoning_item_created', 'nope'), fc.record({ agent })),
  fc.record({ type: fc.constant('agent_updated_stream_event'), agent: value(agent) }),
)

const stateArb = fc.record(
  {
    $schemaVersion: fc.constantFrom('1.2', '1.18', '1.20', '1.99', 'x'),
    currentTurn: value(fc.nat(5)),
    maxTurns: value(fc.nat(5)),
    currentStep: value(
      fc.oneof(
        fc.constant({ type: 'next_step_final_output', output: 'done' }),
        fc.constant({ type: 'next_step_run_again' }),
        fc.record({
          type: fc.constant('next_step_interruption'),
          data: fc.record({ interruptions: fc.array(fc.record({ type: fc.constant('tool_approval_item'), rawItem: fcallArb }), { maxLength: 2 }) }),
        }),
      ),
    ),
    modelResponses: value(fc.array(fc.record({ usage: value(usageArb) }), { maxLength: 2 })),
    generatedItems: value(fc.array(fc.record({ type: fc.constant('tool_call_item'), rawItem: fcallArb }), { maxLength: 3 })),
    context: value(fc.record({ usage: value(usageArb), approvals: fc.constant({ t1: { approved: [], rejected: ['c1'] } }) })),
    conversationId: fc.constantFrom('conv-1', 'conv-2'),
    pendingAgentToolRuns: value(
      fc.dictionary(
        fc.constantFrom('t1:c1', '__proto__'),
        fc.constant('{"$schemaVersion":"1.2","currentTurn":1,"generatedItems":[{"type":"tool_call_item","rawItem":{"callId":"n1","name":"t"}}]}'),
      ),
    ),
  },
  { requiredKeys: ['$schemaVersion', 'currentTurn'] },
)

const resultArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.record(
    {
      finalOutput: value(fc.oneof(fc.string({ maxLength: 4 }), fc.constant({ city: 'Paris' }))),
      interruptions: value(fc.array(fc.record({ type: fc.constant('tool_approval_item'), rawItem: fcallArb }), { maxLength: 2 })),
    },
    { requiredKeys: [] },
  ),
  fc.record({ cancelled: fc.boolean(), state: value(stateArb) }, { requiredKeys: ['cancelled'] }),
  fc.record(
    {
      name: fc.constantFrom('MaxTurnsExceededError', 'ModelBehaviorError', 'InputGuardrailTripwireTriggered', 'ModelRefusalError'),
      message: value(fc.string({ maxLength: 4 })),
      state: value(stateArb),
    },
    { requiredKeys: ['name'] },
  ),
)

const noiseArb = fc.constantFrom('not json', '{"type":"raw_model_stream_event","data":', '[1,2]', '{}')

const stepsArb: fc.Arbitrary<Array<Step>> = fc
  .array(
    fc.oneof(
      { weight: 8, arbitrary: streamEventArb.map((value) => ({ kind: 'record' as const, value })) },
      { weight: 1, arbitrary: stateArb.map((value) => ({ kind: 'record' as const, value })) },
      { weight: 1, arbitrary: resultArb.map((value) => ({ kind: 'record' as const, value })) },
      { weight: 1, arbitrary: noiseArb.map((text) => ({ kind: 'text' as const, text })) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }).map((value) => ({ kind: 'record' as const, value })) },
    ),
    { maxLength: 25 },
  )
  .map((xs) => xs.map((x, i) => ({ ...x, line: i + 1 }) as Step))

describe('openai-agents translator: properties', () => {
  it('folding a prefix, checkpointing through JSON and folding the rest gives the same runs (any split points)', () => {
    fc.assert(
      fc.property(stepsArb, fc.array(fc.nat(26), { maxLength: 3 }), fc.boolean(), (steps, rawCuts, live) => {
        const opts = { file: 'x.jsonl', live }
        const cuts = rawCuts.map((c) => c % (steps.length + 1))
        expect(json(foldResumed(steps, opts, cuts))).toBe(json(foldAll(steps, opts)))
      }),
      { numRuns: numRuns() },
    )
  })

  it('a document (an array of records) checkpointed before its end resumes to the same runs', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(streamEventArb, stateArb, resultArb), { maxLength: 12 }), (doc) => {
        const steps: Array<Step> = [{ kind: 'document', doc }]
        const opts = { file: null }
        expect(json(foldResumed(steps, opts, [1]))).toBe(json(foldAll(steps, opts)))
      }),
      { numRuns: numRuns() },
    )
  })
})
