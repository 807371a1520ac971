/**
 * `npm run fuzz -- SECONDS [SEED]` refuses what it could not honour, before it builds anything (a hostile-input
 * trial found `0x2` and ` 2 ` taken as seconds by `Number`, and extra arguments ignored without a word).
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const script = fileURLToPath(new URL('../../scripts/fuzz.mjs', import.meta.url))
const USAGE = 'usage: npm run fuzz [-- SECONDS [SEED]]   (SECONDS: a decimal number more than 0, at most 86400; SEED: a whole number of at most 18 digits)\n'

describe('npm run fuzz: its arguments', () => {
  it.each([[['0x2']], [[' 2 ']], [['1e3']], [['abc']], [['0']], [['86401']], [['2', '1', 'extra']], [['2', '0000000000000000001']], [['2', '-1']]])(
    '%j is a usage error (exit 2), nothing fuzzed',
    (args) => {
      const r = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', timeout: 30_000 })
      expect(r.status).toBe(2)
      expect(r.stderr).toBe(USAGE)
      expect(r.stdout).toBe('')
    },
  )
})
