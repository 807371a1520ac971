/**
 * The order of `replay DIR`'s skip notes, as a new user hit it: the count of the skips not named came after the
 * message that nothing under the folder could be read, instead of with the names it continues.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'

describe('replay DIR: skip notes in order', () => {
  it('the count of unnamed skips comes before the message that nothing could be read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-skips-'))
    for (let i = 1; i <= 7; i++) writeFileSync(join(dir, `f${i}.json`), '{"x":1}\n')
    const r = await runCli(['replay', dir])
    expect(r.code).toBe(2)
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(7)
    expect(lines.slice(0, 5).every((l) => l.startsWith(`run-outcome replay: skipped ${dir}/f`))).toBe(true)
    expect(lines[5]).toBe('run-outcome replay: … and 2 more skipped')
    expect(lines[6]).toBe(`run-outcome replay: none of the 7 file(s) under ${dir} could be read as a log; name the format with --format if they are one`)
  })
})
