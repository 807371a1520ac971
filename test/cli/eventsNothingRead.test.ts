/**
 * `events` over inputs that give nothing, as a new user hit them: a folder none of whose files could be read exited
 * 0 (replay and stats exit 2), and an empty input's note spoke of a run that `events` does not print.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'

const fx = (p: string): string => new URL(`../fixtures/${p}`, import.meta.url).pathname

describe('events DIR where nothing could be read', () => {
  it('exits 2 and says so after naming each skipped file, like replay', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-events-skips-'))
    for (let i = 1; i <= 3; i++) writeFileSync(join(dir, `f${i}.json`), '{"x":1}\n')
    const r = await runCli(['events', dir])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.trimEnd().split('\n')).toStrictEqual([
      `run-outcome events: skipped ${join(dir, 'f1.json')}: format not recognised`,
      `run-outcome events: skipped ${join(dir, 'f2.json')}: format not recognised`,
      `run-outcome events: skipped ${join(dir, 'f3.json')}: format not recognised`,
      `run-outcome events: none of the 3 file(s) under ${dir} could be read as a log; name the format with --format if they are one`,
    ])
  })

  it('one readable log among them is enough: exit 0, its events printed, the others named', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-events-skips-'))
    writeFileSync(join(dir, 'a.json'), '{"x":1}\n')
    writeFileSync(join(dir, 'run.jsonl'), readFileSync(fx('claude-code-stream-json/claude.jsonl')))
    const r = await runCli(['events', dir])
    expect(r.code).toBe(0)
    const types = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { type: string }).type)
    expect(types).toContain('turn/end')
    expect(r.stderr).toBe(`run-outcome events: skipped ${join(dir, 'a.json')}: format not recognised\n`)
  })
})

describe('events of an empty input', () => {
  it('notes that it holds no records and that no events follow, not a run', async () => {
    const r = await runCli(['events', '-'], '')
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe('run-outcome events: -: the input holds no records (empty or blank): no events\n')
    // replay keeps its words: it does print that run
    const replay = await runCli(['replay', '-'], '')
    expect(replay.stderr).toBe('run-outcome replay: -: the input holds no records (empty or blank): one unfinished run\n')
    expect(replay.code).toBe(1)
  })
})
