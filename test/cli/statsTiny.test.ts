/**
 * `stats` under 45 columns (found by the hostile trial): the run tables fell back to their uncut layout, 167
 * columns (wider than the 140 a wide terminal gets), and the cost line, wrapped twice, held lines of one space.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { textWidth } from '../../src/cli/stats/table.js'
import { repoRoot, runCli } from '../support/cli.js'

const home = join(repoRoot, 'test/fixtures/homes/basic')

describe('stats in a very narrow terminal', () => {
  for (const columns of [20, 30, 44]) {
    it(`COLUMNS=${columns}: the run tables as narrow as they can be drawn, no blank line inside the headline`, async () => {
      const r = await runCli(['stats', '--no-cache'], '', { HOME: home, COLUMNS: String(columns), TZ: 'UTC' })
      expect(r.code).toBe(0)
      const lines = r.stdout.split('\n')
      // the ending table has no shrinkable column: 59 is its width; every other line is narrower
      expect(Math.max(...lines.map(textWidth))).toBe(59)
      const slowest = lines.findIndex((l) => l.includes('slowest runs'))
      const table = lines.slice(slowest - 1, slowest + 7)
      expect(table.map(textWidth)).toStrictEqual(Array(8).fill(Math.max(columns, 42)))
      expect(table[1]).toMatch(/^│ slowest runs +│ duration │ +cost │$/)
      const headline = lines.slice(0, lines.indexOf(''))
      expect(headline.filter((l) => l.trim() === '')).toStrictEqual([])
      expect(headline.join(' ').replace(/\s+/g, ' ')).toContain('cost ~$2.54 estimated (17 runs)')
    })
  }
})
