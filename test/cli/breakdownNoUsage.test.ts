/**
 * `--breakdown` rows hold all of a group's runs: a run that recorded no usage is its own `(no usage)` row, as
 * `--by model` counts it (found by the fresh-user trial: a month of 22 runs showed one model row of 21).
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'

const line = (type: string, data: Record<string, unknown>, time: string): string => JSON.stringify({ type, sessionId: 's', time, data })

describe('stats --breakdown and runs with no usage', () => {
  it('a day of two runs, one with usage and one without: a model row and a (no usage) row of one run each', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-breakdown-'))
    const t = '2025-10-02T10:00:00.000Z'
    writeFileSync(
      join(dir, 'two.jsonl'),
      `${[
        line('turn/start', {}, t),
        line('usage/add', { model: 'claude-sonnet-4-5-20250929', usage: { inputTokens: 100, outputTokens: 20 } }, t),
        line('turn/end', { reason: { kind: 'completed' } }, t),
        line('session/status', { status: 'idle' }, t),
        line('turn/start', {}, t),
        line('turn/end', { reason: { kind: 'completed' } }, t),
        line('session/status', { status: 'idle' }, t),
      ].join('\n')}\n`,
    )
    const r = await runCli(['stats', '--json', '--by', 'day', '--breakdown', dir], '', { TZ: 'UTC' })
    expect(r.code).toBe(0)
    const day = (
      JSON.parse(r.stdout) as { groups: Record<string, { runs: number; models: Record<string, { runs: number; tokens: { inputTokens: number } }> }> }
    ).groups['2025-10-02']
    expect(day?.runs).toBe(2)
    expect(Object.keys(day?.models ?? {})).toStrictEqual(['claude-sonnet-4-5-20250929', '(no usage)'])
    expect(day?.models['claude-sonnet-4-5-20250929']?.runs).toBe(1)
    expect(day?.models['claude-sonnet-4-5-20250929']?.tokens.inputTokens).toBe(100)
    expect(day?.models['(no usage)']?.runs).toBe(1)
    expect(day?.models['(no usage)']?.tokens.inputTokens).toBe(0)

    const human = await runCli(['stats', '--by', 'day', '--breakdown', dir], '', { TZ: 'UTC', COLUMNS: '100' })
    // at 100 columns the model is named without its date; the (no usage) row has no cost
    const rows = human.stdout.split('\n').filter((l) => l.startsWith('│   └'))
    expect(rows.map((l) => l.split('│').map((c) => c.trim()))).toStrictEqual([
      ['', '└ claude-sonnet-4-5', '1', '', '100', '0', '20', '~$0.0006', ''],
      ['', '└ (no usage)', '1', '', '0', '0', '0', '—', ''],
    ])
  })

  // the fresh-user trial saw `(no usage)` between two named models (a model with no known cost and no tokens sorted
  // after it by name): the rows of no model come last, as in --by model
  it('named models come first, most expensive first; usage that named no model and (no usage) come last', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-breakdown-'))
    const t = '2025-10-02T10:00:00.000Z'
    const run = (usage: Array<string>): Array<string> => [
      line('turn/start', {}, t),
      ...usage,
      line('turn/end', { reason: { kind: 'completed' } }, t),
      line('session/status', { status: 'idle' }, t),
    ]
    writeFileSync(
      join(dir, 'four.jsonl'),
      `${[
        ...run([]),
        ...run([line('usage/add', { model: 'a-model-without-a-price', usage: { inputTokens: 0, outputTokens: 0 } }, t)]),
        ...run([line('usage/add', { usage: { inputTokens: 5000, outputTokens: 50 } }, t)]),
        ...run([line('usage/add', { model: 'zz-model-without-a-price', usage: { inputTokens: 1000, outputTokens: 10 } }, t)]),
        ...run([line('usage/add', { model: 'claude-sonnet-4-5-20250929', usage: { inputTokens: 100, outputTokens: 20 } }, t)]),
      ].join('\n')}\n`,
    )
    const r = await runCli(['stats', '--json', '--by', 'day', '--breakdown', dir], '', { TZ: 'UTC' })
    const day = (JSON.parse(r.stdout) as { groups: Record<string, { runs: number; models: Record<string, unknown> }> }).groups['2025-10-02']
    expect(day?.runs).toBe(5)
    expect(Object.keys(day?.models ?? {})).toStrictEqual([
      'claude-sonnet-4-5-20250929',
      'zz-model-without-a-price',
      'a-model-without-a-price',
      'unknown',
      '(no usage)',
    ])
  })
})
