/**
 * AI SDK `fullStream` parts as JSONL (test/fixtures/ai-sdk-fullstream, written from the published
 * `TextStreamPart` types): the endings, usage and counts each one must give — replayed from the file, and as the
 * live part objects piped through `runResults({ format: 'ai-sdk' })`.
 */
import { readFileSync } from 'node:fs'
import { from, lastValueFrom, toArray } from 'rxjs'
import { describe, expect, it } from 'vitest'
import { replayFile } from '../../src/node/replay.js'
import { runResults } from '../../src/operators/runResults.js'

const dir = new URL('../fixtures/ai-sdk-fullstream/', import.meta.url).pathname

const cases: ReadonlyArray<[string, Record<string, unknown>]> = [
  [
    'synthetic-tool-loop-answered.jsonl',
    {
      ending: { kind: 'answered' },
      finishReason: 'stop',
      response: 'It is 12 °C in Oslo.',
      turns: 2,
      toolCalls: 1,
      usage: [110, 140, 0, 32],
      cost: { totalUsd: null, complete: false, missing: 2 },
      inferred: false,
    },
  ],
  [
    'synthetic-provider-error.jsonl',
    {
      ending: { kind: 'failed', reason: 'error', phase: 'stream', error: { message: 'Overloaded', code: 529, name: 'AI_APICallError' } },
      finishReason: 'error',
      response: null,
      turns: 1,
      toolCalls: 1,
      usage: [0, 0, 0, 0],
      cost: { totalUsd: null, complete: false, missing: 0 },
      inferred: false,
    },
  ],
  [
    'synthetic-aborted.jsonl',
    {
      ending: { kind: 'stopped', by: 'caller', reason: 'user pressed stop' },
      finishReason: 'abort',
      response: null,
      turns: 1,
      toolCalls: 0,
      usage: [0, 0, 0, 0],
      cost: { totalUsd: null, complete: false, missing: 0 },
      inferred: false,
    },
  ],
  [
    'synthetic-step-limit.jsonl',
    {
      ending: { kind: 'limit', reason: 'max_steps', actual: 1 },
      finishReason: 'tool-calls',
      response: null,
      turns: 1,
      toolCalls: 1,
      usage: [60, 40, 0, 20],
      cost: { totalUsd: null, complete: false, missing: 1 },
      inferred: true,
    },
  ],
]

const view = (r: Awaited<ReturnType<typeof replayFile>>[number]) => ({
  ending: r.ending,
  finishReason: r.finishReason,
  response: r.response,
  turns: r.turns,
  toolCalls: r.toolCalls,
  usage: [r.usage.inputTokens, r.usage.cacheReadTokens, r.usage.cacheWriteTokens, r.usage.outputTokens],
  cost: r.cost,
  inferred: r.inferred,
})

describe('AI SDK fullStream (JSONL of TextStreamPart objects)', () => {
  it.each(cases)('%s', async (name, want) => {
    const runs = await replayFile(`${dir}${name}`)
    expect(runs.map((r) => r.format)).toStrictEqual(['ai-sdk'])
    expect(view(runs[0] as never)).toStrictEqual(want)
    const parts = readFileSync(`${dir}${name}`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown)
    const live = await lastValueFrom(from(parts).pipe(runResults({ format: 'ai-sdk' }), toArray()))
    expect(live.map(view)).toStrictEqual([want])
  })
})
