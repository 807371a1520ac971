/**
 * What a library user needs to replay a folder as the CLI does (a fresh-user trial found both unexported): one
 * `SeenRecords` shared by the files of the folder, so a resumed Claude Code session's copied records count once,
 * and `bundledEstimator`, the CLI's cost estimates. With them, `replayRuns` over the files of a folder gives the
 * runs `replay --json FOLDER` prints, costs included.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { bundledEstimator, listLogFiles, priceTableEstimator, replayRuns, SeenRecords, type RunResult } from '../../src/index.js'
import { runCli } from '../support/cli.js'

const folder = fileURLToPath(new URL('../fixtures/claude-code-transcript/resumed-session', import.meta.url))

describe('the library replays a folder as the CLI does', () => {
  it('SeenRecords and bundledEstimator: the same runs, endings and estimated costs as replay --json FOLDER', async () => {
    const seen = new SeenRecords()
    const estimate = bundledEstimator()
    const runs: Array<RunResult> = []
    for (const file of await listLogFiles(folder)) for await (const run of replayRuns(file, { seen, estimate })) runs.push(run)
    const cli = (await runCli(['replay', '--json', folder])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as RunResult)
    const view = (r: RunResult) => [r.ending.kind, r.usage.inputTokens, r.usage.outputTokens, r.cost.totalUsd, r.cost.estimated === true]
    expect(runs.map(view)).toStrictEqual(cli.map(view))
    expect(runs.length).toBeGreaterThan(0)
    expect(runs.every((r) => r.cost.totalUsd !== null && r.cost.totalUsd > 0 && r.cost.estimated === true)).toBe(true)
    // without the shared set the resumed file's copies count again: more usage than the CLI reports
    let alone = 0
    for (const file of await listLogFiles(folder)) for await (const run of replayRuns(file)) alone += run.usage.inputTokens + run.usage.outputTokens
    expect(alone).toBeGreaterThan(runs.reduce((n, r) => n + r.usage.inputTokens + r.usage.outputTokens, 0))
  })

  it('priceTableEstimator prices from a table: 1e6 input tokens at $3', () => {
    expect(
      priceTableEstimator({ 'claude-sonnet-*': { input: 3, output: 15 } })('claude-sonnet-4-5', {
        inputTokens: 1e6,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 0,
        reasoningTokens: 0,
      }),
    ).toBe(3)
  })
})
