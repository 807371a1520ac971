/**
 * `stats`' slowest and most expensive runs do not depend on the order the files were read in (worker threads
 * finish files in any order): runs of equal duration or cost are listed in file, then run order.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StatsAggregate } from '../../src/cli/stats/aggregate.js'
import type { RunRecord } from '../../src/cli/stats/records.js'

const run = (file: string, index: number, durationMs: number, costUsd: number): RunRecord => ({
  file,
  index,
  format: 'native',
  kind: 'answered',
  detail: 'answered',
  success: true,
  turns: 1,
  toolCalls: 0,
  inputTokens: 10,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 5,
  reasoningTokens: 0,
  costUsd,
  estimated: false,
  durationMs,
  startedAt: '2026-11-30T10:00:00.000Z',
  endedAt: '2026-11-30T10:01:00.000Z',
  sessionId: null,
  project: null,
  models: [],
})

const tops = (runs: ReadonlyArray<RunRecord>): unknown => {
  const a = new StatsAggregate('ending')
  for (const r of runs) a.addRun(r)
  const j = a.toJSON() as { slowest: Array<{ file: string; index: number }>; mostExpensive: Array<{ file: string; index: number }> }
  return { slowest: j.slowest.map((x) => `${x.file}#${x.index}`), mostExpensive: j.mostExpensive.map((x) => `${x.file}#${x.index}`) }
}

describe('stats top lists', () => {
  it('ties are listed in file, then run order', () => {
    const runs = [run('b.jsonl', 1, 1000, 0.5), run('a.jsonl', 2, 1000, 0.5), run('a.jsonl', 1, 1000, 0.5), run('c.jsonl', 1, 2000, 0.25)]
    expect(tops(runs)).toStrictEqual({
      slowest: ['c.jsonl#1', 'a.jsonl#1', 'a.jsonl#2', 'b.jsonl#1'],
      mostExpensive: ['a.jsonl#1', 'a.jsonl#2', 'b.jsonl#1', 'c.jsonl#1'],
    })
  })

  it('any read order gives the same lists (few distinct values, so many ties)', () => {
    const arbRun = fc.record({
      f: fc.integer({ min: 0, max: 5 }),
      i: fc.integer({ min: 1, max: 3 }),
      d: fc.integer({ min: 1, max: 3 }),
      c: fc.integer({ min: 1, max: 3 }),
    })
    fc.assert(
      fc.property(fc.uniqueArray(arbRun, { minLength: 1, maxLength: 20, selector: (r) => `${r.f}#${r.i}` }), fc.func(fc.integer()), (specs, shuffleKey) => {
        const runs = specs.map((s) => run(`f${s.f}.jsonl`, s.i, s.d * 1000, s.c / 8))
        const shuffled = runs
          .map((r, k) => [shuffleKey(k), r] as const)
          .sort((x, y) => x[0] - y[0])
          .map(([, r]) => r)
        expect(tops(shuffled)).toStrictEqual(tops(runs))
      }),
    )
  })
})
