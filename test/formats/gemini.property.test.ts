/**
 * fast-check properties of the gemini format module: arbitrary lines (noise, any JSON, Gemini-shaped records
 * with arbitrary field values) and arbitrary JSON documents never throw, never give a ProtocolError, always
 * yield at least one well-formed run, and diagnostics are fixed words only (never input).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { endingKinds } from '../../src/core/RunEnding.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { geminiFormat, geminiReader, readGeminiDocument } from '../../src/formats/gemini.js'

const NUM_RUNS = Number(process.env['FC_NUM_RUNS'] ?? 100)
console.log(`gemini properties: FC_NUM_RUNS=${NUM_RUNS}`)

/** Every diagnostic message the gemini readers can write (fixed text). */
const KNOWN_MESSAGES = new Set([
  'skipped a non-JSON line',
  // the fold's value checks (RunResult.finishRun): times that go backwards
  'the run ends before it starts (its clock went backwards, or the source gives a negative duration): duration unknown',
  'skipped the last line: it was cut off (no newline) and is not valid JSON',
  'skipped a JSON line that is not an object',
  'a $rewindTo names a message that is not in the log; every message was dropped, as gemini-cli does',
  'a message was rewritten with a different role; its first role was kept',
  'a tool call record had an unexpected shape or status type',
  "an error record after the run's result was kept as a diagnostic",
  'ignored a duration_ms that is not a finite, non-negative number',
  'ignored a further result record for a run that already has one',
  'ignored a record of an unknown type',
  'ignored a record that is not a message, metadata, $set or $rewindTo',
  'ignored a result error that is not an object',
  'ignored a sessionId that is not a string',
  'ignored a token count in result stats that is not a whole, non-negative number',
  'ignored a token count that is not a whole, non-negative number',
  'ignored message tokens that are not an object',
  'ignored message tokens with a count that is not a whole, non-negative number',
  'ignored result stats that are not an object',
  'ignored toolCalls that are not an array',
  'skipped a $rewindTo record whose target is not a string',
  'skipped a $set record whose value is not an object',
  'skipped a message of an unknown type',
  'skipped a message record whose role or content has an unexpected type',
  'skipped a message that is not an object',
  'skipped a message without a string type',
  'skipped a record without a string "type"',
  'skipped a result record whose status is not a string',
  'skipped a tool_result record whose status is not a string',
  'skipped a tool_use record whose tool_name is not a string',
  'skipped an error record whose severity or message is not a string',
  'skipped an init record whose session_id or model is not a string',
  'the document is not a Gemini CLI session record (an object with sessionId and messages)',
  'the final answer text of this run was not kept',
  'the session record has no messages array',
])

/** A field value: usually a plausible one, sometimes any JSON value. */
const value = <T>(plausible: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 4, arbitrary: plausible }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) })
const count = fc.oneof(fc.nat({ max: 100_000 }), fc.constantFrom(-1, 1.5, Number.MAX_SAFE_INTEGER))
const ids = fc.constantFrom('a', 'b', 'c', 'd', 'e')

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
        fc.constantFrom('m1', 'm2', '__proto__', 'constructor'),
        fc.record(
          { total_tokens: value(count), input_tokens: value(count), output_tokens: value(count), cached: value(count), input: value(count) },
          { requiredKeys: [] },
        ),
      ),
    ),
  },
  { requiredKeys: [] },
)

const streamRecord: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    type: value(fc.constantFrom('init', 'message', 'tool_use', 'tool_result', 'error', 'result', 'other')),
    timestamp: value(fc.constantFrom('2026-01-01T00:00:00.000Z', 'not a time', '9999-99-99')),
    session_id: value(ids),
    model: value(fc.constantFrom('gemini-2.5-pro', 'm1')),
    role: value(fc.constantFrom('user', 'assistant', 'system')),
    content: value(fc.string()),
    delta: value(fc.boolean()),
    tool_name: value(fc.string()),
    tool_id: value(ids),
    status: value(fc.constantFrom('success', 'error', 'weird')),
    severity: value(fc.constantFrom('error', 'warning')),
    message: value(
      fc.constantFrom('Maximum session turns exceeded', 'Loop detected, stopping execution', 'Agent execution blocked: x', 'MAX_TOKENS', 'SAFETY', 'boom'),
    ),
    error: value(
      fc.record(
        { type: value(fc.constantFrom('FatalTurnLimitedError', 'FatalCancellationError', 'unknown', 'INVALID_STREAM')), message: value(fc.string()) },
        { requiredKeys: [] },
      ),
    ),
    stats: value(statsArb),
  },
  { requiredKeys: ['type'] },
)

const toolCall = fc.record(
  {
    id: value(ids),
    name: value(fc.string()),
    args: fc.jsonValue({ maxDepth: 2 }),
    status: value(fc.constantFrom('success', 'error', 'cancelled', 'awaiting_approval', 'executing', 'validating', 'scheduled', 'odd')),
    result: value(fc.constant([{ functionResponse: { id: 'a', name: 'x', response: { error: 'failed' } } }])),
    resultDisplay: value(fc.string()),
  },
  { requiredKeys: [] },
)

const sessionMessage: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    id: value(ids),
    timestamp: value(fc.constantFrom('2026-01-01T00:00:00.000Z', '2026-01-01T00:00:05.000Z', 'bad')),
    type: value(fc.constantFrom('user', 'gemini', 'info', 'error', 'warning', 'other')),
    content: value(
      fc.oneof(
        fc.string(),
        fc.constant([{ text: 'hi' }]),
        fc.constant([{ functionResponse: { id: 'a', name: 'x', response: {} } }]),
        fc.constant('<session_context>x'),
        fc.constant([{ text: 't', thought: true }]),
      ),
    ),
    model: value(fc.constantFrom('gemini-2.5-pro', 'm2')),
    tokens: value(
      fc.record(
        { input: value(count), output: value(count), cached: value(count), thoughts: value(count), tool: value(count), total: value(count) },
        { requiredKeys: [] },
      ),
    ),
    toolCalls: value(fc.array(value(toolCall), { maxLength: 3 })),
  },
  { requiredKeys: [] },
)

const sessionLine: fc.Arbitrary<unknown> = fc.oneof(
  sessionMessage,
  fc.record({ $rewindTo: value(ids) }),
  fc.record({ $set: value(fc.record({ sessionId: value(fc.string()), messages: fc.array(sessionMessage, { maxLength: 2 }) }, { requiredKeys: [] })) }),
  fc.record({ sessionId: value(fc.string()), projectHash: fc.constant('h') }),
)

const line: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.json({ maxDepth: 3 }),
  streamRecord.map((r) => JSON.stringify(r)),
  sessionLine.map((r) => JSON.stringify(r)),
)

/** Lines of one of three shapes: mostly stream-json, mostly session, or anything. */
const input = fc.oneof(
  fc.array(fc.oneof({ weight: 1, arbitrary: fc.string() }, { weight: 5, arbitrary: streamRecord.map((r) => JSON.stringify(r)) }), { maxLength: 30 }),
  fc.array(fc.oneof({ weight: 1, arbitrary: fc.string() }, { weight: 5, arbitrary: sessionLine.map((r) => JSON.stringify(r)) }), { maxLength: 30 }),
  fc.array(line, { maxLength: 30 }),
)

const document = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record(
    { sessionId: value(fc.string()), projectHash: value(fc.string()), messages: value(fc.array(value(sessionMessage), { maxLength: 12 })) },
    { requiredKeys: [] },
  ),
)

const wellFormed = (runs: ReadonlyArray<RunResult>): void => {
  expect(runs.length).toBeGreaterThanOrEqual(1)
  for (const r of runs) {
    expect(r.format).toBe('gemini')
    expect(endingKinds).toContain(r.ending.kind)
    if (r.ending.kind !== 'answered' && r.ending.kind !== 'cut_off') expect(r.response).toBeNull()
    for (const k of ['inputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'outputTokens', 'reasoningTokens'] as const) {
      expect(Number.isFinite(r.usage[k]) && r.usage[k] >= 0).toBe(true)
    }
    expect(r.usage.reasoningTokens).toBeLessThanOrEqual(r.usage.outputTokens)
    // Gemini has no cost: the total is never a number, priced items or not (K12).
    expect(r.cost.totalUsd).toBeNull()
    expect(r.cost.complete).toBe(false)
    for (const d of r.diagnostics) expect(KNOWN_MESSAGES).toContain(d.message)
    expect(() => JSON.stringify(r)).not.toThrow()
  }
}

describe('gemini properties', () => {
  it('arbitrary lines never throw, never return a ProtocolError, and give well-formed runs', () => {
    fc.assert(
      fc.property(input, fc.boolean(), (lines, cut) => {
        const runs: Array<RunResult> = []
        const reader = geminiReader((r) => runs.push(r), { file: 'x.jsonl' })
        lines.forEach((l, i) => expect(reader.line(l, i + 1, cut && i === lines.length - 1)).toBeUndefined())
        reader.end()
        wellFormed(runs)
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('arbitrary JSON documents never throw and give well-formed runs', () => {
    fc.assert(
      fc.property(document, (doc) => {
        wellFormed(readGeminiDocument(doc, { file: null }))
        const s = geminiFormat.sniffDocument?.(doc) ?? 0
        expect(s >= 0 && s <= 1).toBe(true)
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('sniffLines never throws and scores within [0, 1]', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(undefined), streamRecord, sessionLine), { maxLength: 20 }), (values) => {
        const s = geminiFormat.sniffLines?.(values) ?? 0
        expect(s >= 0 && s <= 1).toBe(true)
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('a 100,000-level nested value in any field is handled without recursion', () => {
    let deep: unknown = 1
    for (let i = 0; i < 100_000; i++) deep = [deep]
    const runs: Array<RunResult> = []
    const reader = geminiReader((r) => runs.push(r), { file: null })
    // JSON.stringify of `deep` would throw, so the lines are built by hand.
    const deepText = '['.repeat(100_000) + '1' + ']'.repeat(100_000)
    const texts = [
      '{"type":"init","session_id":"s","model":"m"}',
      '{"type":"message","role":"user","content":"x"}',
      `{"type":"tool_use","tool_name":"t","tool_id":"a","parameters":${deepText}}`,
      `{"type":"result","status":"error","error":{"type":${deepText},"message":${deepText}},"stats":{"models":{"m":${deepText}}}}`,
    ]
    texts.forEach((t, i) => expect(reader.line(t, i + 1, false)).toBeUndefined())
    reader.end()
    expect(runs.map((r) => r.ending)).toEqual([{ kind: 'failed', reason: 'error' }])
    const doc = readGeminiDocument(
      {
        sessionId: 's',
        messages: [
          { id: 'u', type: 'user', content: deep },
          { id: 'g', type: 'gemini', content: deep, tokens: deep, toolCalls: [{ status: 'awaiting_approval', id: 'c', name: 't', args: 1, result: deep }] },
        ],
      },
      { file: null },
    )
    expect(doc.map((r) => r.ending.kind)).toEqual(['suspended'])
  })
})
