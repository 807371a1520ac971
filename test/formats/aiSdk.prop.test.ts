/**
 * ai-sdk properties: arbitrary lines and documents never throw, never give a ProtocolError, always give at
 * least one run with a valid ending, and JSONL / SSE / array encodings of the same parts agree.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { endingKinds } from '../../src/core/RunEnding.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { aiSdkFormat, aiSdkReader, readAiSdkDocument } from '../../src/formats/aiSdk.js'

const numRuns = (): number => {
  const n = Number(process.env['FC_NUM_RUNS'] ?? '100')
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 100
}
const runs = numRuns()
console.log(`ai-sdk properties: FC_NUM_RUNS=${runs}`)

const PART_TYPES = [
  'start',
  'start-step',
  'finish-step',
  'finish',
  'abort',
  'error',
  'text-start',
  'text-delta',
  'text-end',
  'reasoning-start',
  'reasoning-delta',
  'reasoning-end',
  'tool-input-start',
  'tool-input-delta',
  'tool-input-end',
  'tool-input-available',
  'tool-input-error',
  'tool-call',
  'tool-result',
  'tool-error',
  'tool-output-available',
  'tool-output-error',
  'tool-output-denied',
  'tool-approval-request',
  'tool-approval-response',
  'source-url',
  'file',
  'raw',
  'message-metadata',
  'data-x',
  'message_start',
  'content_block_start',
  'content_block_delta',
  'message_delta',
  'message_stop',
  'response.created',
  'response.output_text.delta',
  'response.completed',
  'response.failed',
  'response.incomplete',
  'mystery',
  '__proto__',
  'constructor',
] as const

const idArb = fc.constantFrom('c1', 'c2', 'a1', '__proto__', 'constructor')
const fieldValueArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('stop', 'length', 'tool-calls', 'content-filter', 'error', 'other', 'unknown', 'end_turn', 'refusal') },
  { weight: 2, arbitrary: idArb },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 1,
    arbitrary: fc.record(
      { inputTokens: fc.oneof(fc.nat(1000), fc.constant(-5), fc.constant('9')), outputTokens: fc.nat(1000), cachedInputTokens: fc.nat(2000) },
      { requiredKeys: [] },
    ),
  },
)
const FIELDS = [
  'id',
  'toolCallId',
  'toolName',
  'approvalId',
  'delta',
  'text',
  'inputTextDelta',
  'finishReason',
  'rawFinishReason',
  'totalUsage',
  'usage',
  'reason',
  'error',
  'errorText',
  'messageId',
  'input',
  'toolCall',
  'response',
  'message',
  'content_block',
  'choices',
  'object',
]

/** A part-like object: a known (or hostile) type and a few fields with plausible or arbitrary values. */
const partArb: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(fc.constantFrom(...PART_TYPES), fc.dictionary(fc.constantFrom(...FIELDS), fieldValueArb, { maxKeys: 4 }))
  .map(([type, fields]) => ({ ...fields, type }))

/** A line as a recorder could write it: JSON of a part, SSE around it, SSE control lines, arbitrary text or JSON. */
const lineArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: partArb.map((p) => JSON.stringify(p)) },
  { weight: 3, arbitrary: partArb.map((p) => `data: ${JSON.stringify(p)}`) },
  { weight: 1, arbitrary: fc.array(partArb, { maxLength: 4 }).map((ps) => JSON.stringify(ps)) },
  { weight: 1, arbitrary: fc.constantFrom('data: [DONE]', 'event: message', 'id: 3', ': ping', 'data:', 'data: {', '[', ']', '{}', 'null', '"x"') },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
)

const checkResults = (results: ReadonlyArray<RunResult>): void => {
  expect(results.length).toBeGreaterThan(0)
  for (const r of results) {
    expect(r.format).toBe('ai-sdk')
    expect(endingKinds).toContain(r.ending.kind)
    if (r.ending.kind !== 'answered' && r.ending.kind !== 'cut_off') expect(r.response).toBeNull()
    for (const k of ['inputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'outputTokens', 'reasoningTokens'] as const) {
      expect(Number.isFinite(r.usage[k]) && r.usage[k] >= 0).toBe(true)
    }
    expect(r.cost.totalUsd === null || r.cost.totalUsd === 0).toBe(true)
    expect(r.diagnostics.length).toBeLessThanOrEqual(100)
  }
}

describe('ai-sdk properties', () => {
  it('arbitrary lines never throw and never give a ProtocolError; every run has a valid ending', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(lineArb, fc.boolean()), { maxLength: 40 }), (lines) => {
        const results: RunResult[] = []
        const reader = aiSdkReader((r) => results.push(r), { file: 'prop.jsonl' })
        lines.forEach(([text, unterminated], i) => {
          expect(reader.line(text, i + 1, unterminated && i === lines.length - 1)).toBeUndefined()
        })
        reader.end()
        checkResults(results)
        expect(() => JSON.stringify(results)).not.toThrow()
      }),
      { numRuns: runs },
    )
  })

  it('arbitrary documents never throw; sniffing never throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(fc.oneof(partArb, fc.anything()), { maxLength: 40 }), fc.anything(), partArb), (doc) => {
        const results = readAiSdkDocument(doc, { file: null })
        checkResults(results)
        const s = aiSdkFormat.sniffDocument?.(doc) ?? 0
        expect(s >= 0 && s <= 1).toBe(true)
        const l = aiSdkFormat.sniffLines?.(Array.isArray(doc) ? doc : [doc]) ?? 0
        expect(l >= 0 && l <= 1).toBe(true)
      }),
      { numRuns: runs },
    )
  })

  it('JSONL, SSE and a JSON array of the same parts give the same runs (except source and diagnostic lines)', () => {
    fc.assert(
      fc.property(fc.array(partArb, { maxLength: 30 }), (parts) => {
        const viaLines = (lines: string[]): RunResult[] => {
          const out: RunResult[] = []
          const reader = aiSdkReader((r) => out.push(r), {})
          lines.forEach((l, i) => reader.line(l, i + 1, false))
          reader.end()
          return out
        }
        const strip = (rs: ReadonlyArray<RunResult>) =>
          rs.map((r) => {
            const { source: _s, diagnostics, ...rest } = r
            return { ...rest, diagnostics: diagnostics.map((d) => d.message) }
          })
        const jsonl = strip(viaLines(parts.map((p) => JSON.stringify(p))))
        const sse = strip(viaLines([...parts.map((p) => `data: ${JSON.stringify(p)}`), 'data: [DONE]']))
        const doc = strip(readAiSdkDocument(JSON.parse(JSON.stringify(parts)) as unknown, {}))
        expect(sse).toEqual(jsonl)
        expect(doc).toEqual(jsonl)
      }),
      { numRuns: runs },
    )
  })
})
