/** The published declarations (the .d.ts files under dist/) compile for a strict consumer with skipLibCheck false. */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../support/cli.js'

describe('published declarations', () => {
  it('a strict consumer of run-outcome type-checks against dist/*.d.ts', () => {
    const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url))
    const r = spawnSync(process.execPath, [tsc, '-p', 'test/types/tsconfig.json'], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 })
    expect(r.stdout + r.stderr).toBe('')
    expect(r.status).toBe(0)
  })
})
