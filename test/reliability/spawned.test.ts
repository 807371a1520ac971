/**
 * 1,000 generated mutations of the corpus logs run as real processes (dist/cli/bin.js, two at a time): the
 * same checks as in-process, plus the same exit code and stdout as `main(argv, io)` on the same input.
 * Count from RELIABILITY_SPAWNED (default 1,000); the mutation stream is seeded apart from the in-process one.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { distIsFresh, judge, runBinSettled, runMain } from './support/cliCheck.js'
import { loadSeeds, mutation, type Mutation } from './support/mutate.js'
import { saveFailure } from './support/failures.js'
import { figure } from './support/runs.js'

const ROOT = join(import.meta.dirname, '../..')
const SPAWNED = Number(process.env['RELIABILITY_SPAWNED'] ?? '1000')
const SEED = Number(process.env['RELIABILITY_SEED'] ?? '20261130') + 1
const PARALLEL = 2

const seeds = loadSeeds(join(ROOT, 'test/fixtures'), [['examples/native/session.jsonl', join(ROOT, 'examples/native/session.jsonl')]])

describe('corpus mutations as real processes', () => {
  it(`${SPAWNED} spawned CLI runs: exit codes of SPEC §1, no stack trace, same answer as in-process`, async () => {
    // a dist/ older than src/ (a local tree edited since the last build; never in CI) answers with older code:
    // then only the checks that need no in-process twin are made
    const fresh = distIsFresh()
    if (!fresh) figure('spawned: dist/ is older than src/ — exit codes and stdout are not compared with the in-process run')
    const failures: Array<{ m: Mutation; problems: ReadonlyArray<string> }> = []
    const codes = [0, 0, 0, 0]
    let faults = 0
    let next = 0
    const t0 = performance.now()
    const worker = async (): Promise<void> => {
      while (next < SPAWNED) {
        const m = mutation(SEED, next++, seeds)
        faults += m.ops.length
        const [real, inProcess] = await Promise.all([runBinSettled(m.argv, m.input), runMain(m.argv, m.input)])
        const problems = judge(real, m.argv, true).problems
        if (real.signal !== null) problems.push(`killed by ${real.signal}`)
        if (fresh && real.code !== inProcess.code) problems.push(`exit ${real.code} as a process, ${inProcess.code} in-process`)
        else if (fresh && real.stdout !== inProcess.stdout) problems.push('stdout differs from the in-process run')
        if (real.code >= 0 && real.code <= 3) codes[real.code] = (codes[real.code] ?? 0) + 1
        if (problems.length > 0) {
          failures.push({ m, problems })
          if (failures.length <= 50) saveFailure('spawned', m, problems, real)
        }
      }
    }
    await Promise.all(Array.from({ length: PARALLEL }, worker))
    figure(
      `spawned: ${SPAWNED} processes (${PARALLEL} at a time), ${faults} faults injected, exit codes 0/1/2/3: ${codes.join('/')}, ${failures.length} failures, ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    )
    expect(
      failures.slice(0, 10).map((f) => ({ index: f.m.index, seed: f.m.seed, ops: f.m.ops, argv: f.m.argv.join(' '), problems: f.problems })),
    ).toStrictEqual([])
  }, 1_800_000)
})
