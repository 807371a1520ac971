/**
 * Every fixture and example, replayed by the CLI, gives exactly the results recorded in golden.json (exit code,
 * every field of every run, stderr). The record was made with the CLI before the pipeline redesign, so any change
 * in what a user sees shows up here; an intended change regenerates it (`node test/golden/make.mjs`) in a
 * commit that says why.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { repoRoot, runCli } from '../support/cli.js'

interface Golden {
  readonly code: number
  readonly runs: ReadonlyArray<unknown>
  readonly stderr: ReadonlyArray<string>
}

const golden = JSON.parse(readFileSync(new URL('./golden.json', import.meta.url), 'utf8')) as Record<string, Golden>

describe('golden: replay --json of every fixture is unchanged', () => {
  it.each(Object.keys(golden))('%s', async (input) => {
    const want = golden[input] as Golden
    const prev = process.cwd()
    process.chdir(repoRoot)
    try {
      const r = await runCli(['replay', '--json', input])
      const runs = r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as unknown)
      const got = { code: r.code, runs, stderr: r.stderr.split('\n').filter(Boolean) }
      // compared as JSON text: key order is part of the output, and vitest's deep equality misreads an own
      // "constructor" key (a model or session named so in the hostile fixtures)
      if (JSON.stringify(got) !== JSON.stringify(want)) expect(got).toEqual(want)
      expect(JSON.stringify(got)).toBe(JSON.stringify(want))
    } finally {
      process.chdir(prev)
    }
  })
})
