/**
 * The `stats` worker pool (src/cli/stats/pool.ts): a worker that dies takes only the file it was reading, which
 * is reported as skipped by name; every other file is still read, by the other workers or a replacement.
 */
import { describe, expect, it } from 'vitest'
import { runPool } from '../../src/cli/stats/pool.js'
import type { FileOutcome } from '../../src/cli/stats/records.js'

const crashWorker = new URL('../support/crashWorker.mjs', import.meta.url)
const batchCrashWorker = new URL('../support/batchCrashWorker.mjs', import.meta.url)

const run = async (
  units: Array<Array<string>> | Array<string>,
  jobs: number,
  maxRestarts?: number,
  workerUrl: URL = crashWorker,
  workerData: unknown = null,
): Promise<{ outcomes: Array<FileOutcome>; inProcess: Array<string> }> => {
  const outcomes: Array<FileOutcome> = []
  const inProcess: Array<string> = []
  await runPool(
    units.map((u) => (typeof u === 'string' ? [u] : u)),
    {
      workerUrl,
      workerData,
      jobs,
      ...(maxRestarts !== undefined ? { maxRestarts } : {}),
      inProcess: async (files, onOutcome, silent) => {
        files.forEach((file, i) => {
          if (i < silent) return
          inProcess.push(file)
          onOutcome({ file, ok: true, format: 'native', runs: [] })
        })
      },
    },
    (o) => outcomes.push(o),
  )
  return { outcomes, inProcess }
}

const byFile = (os: ReadonlyArray<FileOutcome>): Record<string, string> =>
  Object.fromEntries(os.map((o): [string, string] => [o.file, o.ok ? 'read' : o.why]).sort(([a], [b]) => (a < b ? -1 : 1)))

describe('stats worker pool', () => {
  it('every file gets one outcome; the files a dead worker had not reached go to the others', async () => {
    const files = ['a.jsonl', 'b-crash.jsonl', 'c.jsonl', 'd-exit.jsonl', 'e.jsonl', 'f.jsonl', 'g.jsonl', 'h.jsonl']
    const { outcomes } = await run(files, 2)
    expect(outcomes).toHaveLength(files.length)
    expect(byFile(outcomes)).toStrictEqual({
      'a.jsonl': 'read',
      'b-crash.jsonl': 'crashed',
      'c.jsonl': 'read',
      'd-exit.jsonl': 'crashed',
      'e.jsonl': 'read',
      'f.jsonl': 'read',
      'g.jsonl': 'read',
      'h.jsonl': 'read',
    })
  })

  it('a single worker that dies: a replacement reads the rest', async () => {
    const { outcomes, inProcess } = await run(['crash-1.jsonl', 'x.jsonl', 'y.jsonl'], 1)
    expect(byFile(outcomes)).toStrictEqual({ 'crash-1.jsonl': 'crashed', 'x.jsonl': 'read', 'y.jsonl': 'read' })
    expect(inProcess).toStrictEqual([])
  })

  it('a worker that dies inside a unit (a folder): the files before are kept, the rest of the unit is read', async () => {
    const { outcomes } = await run([['p/1.jsonl', 'p/2-crash.jsonl', 'p/3.jsonl', 'p/4.jsonl'], ['q/1.jsonl']], 2)
    expect(outcomes).toHaveLength(5)
    expect(byFile(outcomes)).toStrictEqual({ 'p/1.jsonl': 'read', 'p/2-crash.jsonl': 'crashed', 'p/3.jsonl': 'read', 'p/4.jsonl': 'read', 'q/1.jsonl': 'read' })
  })

  it('past the restart budget the rest is read in this thread, never dropped', async () => {
    const { outcomes, inProcess } = await run(['crash-1.jsonl', 'crash-2.jsonl', 'p.jsonl', 'q.jsonl'], 1, 1)
    expect(byFile(outcomes)).toStrictEqual({ 'crash-1.jsonl': 'crashed', 'crash-2.jsonl': 'crashed', 'p.jsonl': 'read', 'q.jsonl': 'read' })
    expect(inProcess).toStrictEqual(['p.jsonl', 'q.jsonl'])
  })

  it('a worker posting batches dies with finished files unposted: those are read again, only the crash is skipped', async () => {
    const unit = ['p/1.jsonl', 'p/2.jsonl', 'p/3.jsonl', 'p/4.jsonl', 'p/5-crash.jsonl', 'p/6.jsonl', 'p/7.jsonl']
    const { outcomes } = await run([unit, ['q/1.jsonl', 'q/2.jsonl']], 2, undefined, batchCrashWorker, { batch: 3 })
    // one outcome per file: 1–3 posted as a batch, 4 finished but unposted (read again), 5 crashed, 6–7 read after
    expect(outcomes.map((o) => o.file).sort()).toStrictEqual([...unit, 'q/1.jsonl', 'q/2.jsonl'].sort())
    expect(byFile(outcomes)).toStrictEqual({
      'p/1.jsonl': 'read',
      'p/2.jsonl': 'read',
      'p/3.jsonl': 'read',
      'p/4.jsonl': 'read',
      'p/5-crash.jsonl': 'crashed',
      'p/6.jsonl': 'read',
      'p/7.jsonl': 'read',
      'q/1.jsonl': 'read',
      'q/2.jsonl': 'read',
    })
  })

  it('past the restart budget, a unit whose worker died mid-batch is read here with its posted files silent', async () => {
    const unit = ['p/1.jsonl', 'p/2.jsonl', 'p/3.jsonl', 'p/4.jsonl', 'p/5-crash.jsonl', 'p/6.jsonl']
    const { outcomes, inProcess } = await run([unit], 1, 0, batchCrashWorker, { batch: 3 })
    expect(outcomes.map((o) => o.file).sort()).toStrictEqual([...unit].sort())
    expect(byFile(outcomes)['p/5-crash.jsonl']).toBe('crashed')
    // 1–3 were posted (read again only for their records, no outcome), 4 finished unposted, 6 never reached
    expect(inProcess).toStrictEqual(['p/4.jsonl', 'p/6.jsonl'])
  })
})
