/**
 * `--since` later than `--until` is a usage error naming both (found by the new-user trial: it silently gave a
 * report of 0 runs); equal or overlapping bounds are a range.
 */
import { describe, expect, it } from 'vitest'
import { parseBound, rangeIsEmpty, type TimeBound } from '../../src/cli/stats/time.js'
import { runCli } from '../support/cli.js'

const b = (s: string): TimeBound => parseBound(s) as TimeBound

describe('--since / --until range', () => {
  it('is empty only when since is after until, in the time zone', () => {
    expect(rangeIsEmpty(b('20251001'), b('20250901'), 'UTC')).toBe(true)
    expect(rangeIsEmpty(b('2025-09-24'), b('20250924'), 'UTC')).toBe(false) // one whole day
    expect(rangeIsEmpty(b('2025-09-24T18:00'), b('2025-09-24'), 'UTC')).toBe(false) // inside the until day
    expect(rangeIsEmpty(b('2025-09'), b('2025-09-15'), 'UTC')).toBe(false)
    expect(rangeIsEmpty(b('2025-09-16'), b('2025-09-15'), 'UTC')).toBe(true)
    expect(rangeIsEmpty(b('2025-09-24T10:00:00Z'), b('2025-09-24T09:00:00Z'), 'UTC')).toBe(true)
    // 23:30 UTC is already the next day in Paris
    expect(rangeIsEmpty(b('2025-09-24T23:30:00Z'), b('2025-09-24'), 'Europe/Paris')).toBe(true)
    expect(rangeIsEmpty(b('2025-09-24T23:30:00Z'), b('2025-09-24'), 'UTC')).toBe(false)
    expect(rangeIsEmpty(b('2025-09-25'), b('2025-09-24T23:30:00Z'), 'Europe/Paris')).toBe(false)
  })
  it('stats exits 2 and names both bounds', async () => {
    const r = await runCli(['stats', '--timezone', 'UTC', '--since', '20251001', '--until', '20250901', 'test/fixtures/codex-rollout'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('--since 20251001 is after --until 20250901 (UTC): no run can be in that range')
  })
})

describe('--order desc', () => {
  it('reverses the dated groups and keeps "(no time)" last', async () => {
    const keys = async (order: string): Promise<Array<string>> =>
      Object.keys(
        (
          JSON.parse(
            (await runCli(['stats', '--by', 'day', '--timezone', 'UTC', '--order', order, '--json', 'test/fixtures/acp', 'test/fixtures/codex-rollout']))
              .stdout,
          ) as { groups: object }
        ).groups,
      )
    const asc = await keys('asc')
    expect(asc[asc.length - 1]).toBe('(no time)')
    expect(asc.length).toBeGreaterThan(2)
    expect(await keys('desc')).toStrictEqual([...asc.slice(0, -1).reverse(), '(no time)'])
  })
})
