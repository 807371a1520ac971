/**
 * `TZ=` (set but empty: UTC, as POSIX reads it) made `stats --by day` fail with "internal error: Invalid time
 * zone specified: Etc/Unknown" after part of its output (found by the hostile trial): Node resolves an empty
 * `TZ` as `Etc/Unknown`, which its own formatters refuse.
 */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { machineTimeZone } from '../../src/cli/stats/time.js'
import { binPath, repoRoot } from '../support/cli.js'

describe('an empty TZ', () => {
  it('is UTC; a TZ that names no zone falls back to a zone Intl accepts', () => {
    expect(machineTimeZone({ TZ: '' })).toBe('UTC')
    expect(machineTimeZone({ TZ: ':' })).toBe('UTC')
    expect(machineTimeZone({ TZ: ' ' })).toBe('UTC')
    expect(machineTimeZone({ TZ: 'Asia/Tokyo' })).toBe('Asia/Tokyo')
    expect(machineTimeZone({ TZ: ':Europe/Paris' })).toBe('Europe/Paris')
    const fallback = machineTimeZone({ TZ: 'Mars/Olympus' })
    expect(() => new Intl.DateTimeFormat('en-US', { timeZone: fallback })).not.toThrow()
  })

  it('the built CLI under TZ= groups by UTC day, as under TZ=UTC', () => {
    const run = (tz: string) =>
      spawnSync(process.execPath, [binPath, 'stats', '--json', '--no-cache', '--by', 'day', 'test/fixtures/codex-rollout'], {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { ...process.env, TZ: tz, NO_COLOR: '1', HOME: '/nonexistent' },
        timeout: 60_000,
      })
    const empty = run('')
    expect([empty.status, empty.stderr]).toStrictEqual([0, ''])
    const utc = run('UTC')
    expect(JSON.parse(empty.stdout)).toStrictEqual(JSON.parse(utc.stdout))
    expect((JSON.parse(empty.stdout) as { timeZone: string }).timeZone).toBe('UTC')
    expect(Object.keys((JSON.parse(empty.stdout) as { groups: object }).groups).length).toBeGreaterThan(0)
  })
})
