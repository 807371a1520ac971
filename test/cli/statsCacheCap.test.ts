/**
 * The stats cache holds at most `maxRuns` run records for the entries a report makes (500,000 by default: past
 * that the file would pass its 256 MiB cap and not be written): a unit that would pass it is read, counted in the
 * report, and not kept, so a report over millions of runs does not hold them all for a cache it cannot write
 * (found by the hostile-input trial: 2.4 million runs held ~1 GB).
 */
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openStatsCache } from '../../src/cli/stats/cache.js'
import { readUnitRecords, type FileOutcome, type RecordJob } from '../../src/cli/stats/records.js'

const rollout = new URL('../fixtures/codex-rollout/small.jsonl', import.meta.url).pathname
const job: RecordJob = { format: 'auto', accept: [], estimate: { enabled: false } }

/** Two units of one 4-run rollout each; a report with `maxRuns`, then the next report's hits. */
const twoReports = async (maxRuns: number): Promise<{ first: number; kept: Array<number | undefined> }> => {
  const root = mkdtempSync(join(tmpdir(), 'ro-cache-cap-'))
  const units = ['a', 'b'].map((d) => {
    mkdirSync(join(root, d))
    copyFileSync(rollout, join(root, d, 'small.jsonl'))
    return [join(root, d, 'small.jsonl')]
  })
  const dir = join(root, 'cache')
  const options = { scope: 'test', build: 'test-build', maxRuns }
  const cache = openStatsCache(dir, job, options)
  let first = 0
  for (const u of units) {
    expect(cache?.lookup(u)).toBeUndefined()
    await readUnitRecords(u, job, (o: FileOutcome) => {
      cache?.record(o)
      if (o.ok) first += o.runs.length
    })
  }
  cache?.save()
  const again = openStatsCache(dir, job, options)
  const kept = units.map((u) => again?.lookup(u)?.reduce((n, o) => n + (o.ok ? o.runs.length : 0), 0))
  return { first, kept }
}

describe('stats cache: the run records it holds', () => {
  it('keeps both units while their runs fit (8 of at most 8)', async () => {
    expect(await twoReports(8)).toStrictEqual({ first: 8, kept: [4, 4] })
  })

  it('keeps the first unit and reads the second again when both would pass the cap (8 of at most 6)', async () => {
    expect(await twoReports(6)).toStrictEqual({ first: 8, kept: [4, undefined] })
  })
})
