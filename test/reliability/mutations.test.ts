/**
 * 100,000 generated mutations of the corpus logs, each run through the CLI's entry function `main(argv, io)`
 * with injected streams: none may print a stack trace, report an internal error, exit outside SPEC §1, print a
 * malformed result line, or pollute `Object.prototype`. Count and seed from RELIABILITY_MUTATIONS /
 * RELIABILITY_SEED (defaults 100,000 and 20261130). Failing inputs are written to .tmp/reliability-failures/.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { judge, runMain } from './support/cliCheck.js'
import { prototypeFingerprint, prototypesClean } from './support/ids.js'
import { loadSeeds, mutation, type Mutation } from './support/mutate.js'
import { figure } from './support/runs.js'
import { saveFailure } from './support/failures.js'

const ROOT = join(import.meta.dirname, '../..')
const MUTATIONS = Number(process.env['RELIABILITY_MUTATIONS'] ?? '100000')
const SEED = Number(process.env['RELIABILITY_SEED'] ?? '20261130')
const BATCH = 10_000

const seeds = loadSeeds(join(ROOT, 'test/fixtures'), [['examples/native/session.jsonl', join(ROOT, 'examples/native/session.jsonl')]])
figure(`mutations: ${MUTATIONS} in-process CLI runs over ${seeds.length} corpus logs (seed ${SEED})`)

interface Failure {
  readonly m: Mutation
  readonly problems: ReadonlyArray<string>
}

const fingerprint = prototypeFingerprint()
const stats = { runs: 0, bytes: 0, codes: [0, 0, 0, 0], faults: 0, ms: 0 }
const failures: Array<Failure> = []
const opCounts: Record<string, number> = {}

/** Runs one mutation through main (a Node stream as stdin for every 50th, small chunks for every 7th). */
const runOne = async (i: number): Promise<void> => {
  const m = mutation(SEED, i, seeds)
  let problems: Array<string>
  try {
    const o = await runMain(m.argv, m.input, i % 7 === 0 ? 997 : 65_536, i % 50 === 0)
    problems = judge(o, m.argv, true).problems
    if (o.code >= 0 && o.code <= 3) stats.codes[o.code] = (stats.codes[o.code] ?? 0) + 1
  } catch (e) {
    problems = [`main rejected: ${e instanceof Error ? e.name : 'non-error'}`]
  }
  if (!prototypesClean(fingerprint)) problems.push('Object.prototype changed')
  record(m, problems)
}

/** Mutations in flight at once: main awaits between chunks, so a few overlap the waits. */
const IN_FLIGHT = 4

const runBatch = async (from: number, to: number): Promise<void> => {
  const t0 = performance.now()
  let next = from
  const worker = async (): Promise<void> => {
    while (next < to) await runOne(next++)
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  stats.ms += performance.now() - t0
}

const record = (m: Mutation, problems: Array<string>): void => {
  stats.runs++
  stats.bytes += m.input.length
  stats.faults += m.ops.length
  for (const op of m.ops) {
    const k = op.replace(/-.*$/, '')
    opCounts[k] = (opCounts[k] ?? 0) + 1
  }
  if (problems.length > 0) {
    const f = { m, problems }
    failures.push(f)
    if (failures.length <= 50) saveFailure('in-process', m, problems)
  }
}

describe(`corpus mutations through main(argv, io)`, () => {
  const batches = Math.ceil(MUTATIONS / BATCH)
  for (let b = 0; b < batches; b++) {
    const from = b * BATCH
    const to = Math.min(MUTATIONS, from + BATCH)
    it(`mutations ${from}…${to - 1}: exit codes of SPEC §1, no stack trace, well-formed results`, async () => {
      await runBatch(from, to)
      const mine = failures.filter((f) => f.m.index >= from && f.m.index < to)
      expect(mine.slice(0, 10).map((f) => ({ index: f.m.index, seed: f.m.seed, ops: f.m.ops, argv: f.m.argv.join(' '), problems: f.problems }))).toStrictEqual(
        [],
      )
    }, 900_000)
  }

  it('figures', () => {
    figure(
      `mutations: ${stats.runs} runs, ${(stats.bytes / 1048576).toFixed(1)} MiB of input, ${stats.faults} faults injected, exit codes 0/1/2/3: ${stats.codes.join('/')}, ${failures.length} failures, ${(stats.ms / 1000).toFixed(1)} s`,
    )
    figure(
      `mutation kinds: ${Object.entries(opCounts)
        .sort()
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    )
    expect(stats.runs).toBe(MUTATIONS)
  })
})
