/** Writes a failing generated input and what went wrong to .tmp/reliability-failures/ (git-ignored) for replay. */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Mutation } from './mutate.js'

const ROOT = join(import.meta.dirname, '../../..')

export const saveFailure = (dir: string, m: Mutation, problems: ReadonlyArray<string>, output?: { stdout: string; stderr: string }): void => {
  const out = join(ROOT, '.tmp/reliability-failures', dir)
  mkdirSync(out, { recursive: true })
  writeFileSync(join(out, `${m.index}.input`), m.input)
  writeFileSync(
    join(out, `${m.index}.json`),
    JSON.stringify(
      { seed: m.seed, ops: m.ops, argv: m.argv, problems, ...(output ? { stdout: output.stdout.slice(0, 4000), stderr: output.stderr.slice(0, 4000) } : {}) },
      null,
      2,
    ),
  )
}
