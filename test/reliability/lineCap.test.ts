/**
 * The line cap is stated where a user looks (issue 14): every command that reads logs says it in `--help`, the
 * README says it, and the figure is the one the reader enforces (`LINE_CAP_TEXT` is built from
 * `MAX_LINE_BYTES` and `MAX_LINE_VALUES`). What it costs at the cap is measured in `memory.test.ts`.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { LINE_CAP_TEXT, MAX_LINE_BYTES, MAX_LINE_VALUES } from '../../src/io/lines.js'
import { runCli } from '../support/cli.js'

describe('the line cap is documented', () => {
  it('is 64 MiB or 1,000,000 JSON values', () => {
    expect(MAX_LINE_BYTES).toBe(64 * 1024 * 1024)
    expect(MAX_LINE_VALUES).toBe(1_000_000)
    expect(LINE_CAP_TEXT).toBe('64 MiB or 1,000,000 JSON values')
  })

  it.each(['replay', 'events', 'watch', 'stats'])('%s --help states it', async (command) => {
    const r = await runCli([command, '--help'])
    expect(r.code).toBe(0)
    // the help may wrap anywhere: compare with its lines joined
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(LINE_CAP_TEXT)
    expect(r.stdout).toMatch(/skipped/)
  })

  it('the README and docs/reliability.md state it, with the peak memory measured at the cap', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    expect(readme).toContain('a log line over 64 MiB, or holding over 1,000,000 JSON values, is skipped')
    const doc = readFileSync(new URL('../../docs/reliability.md', import.meta.url), 'utf8')
    expect(doc).toMatch(/64 MiB \(`MAX_LINE_BYTES`\)/)
    expect(doc).toMatch(/at the cap: a native line \d+ MiB/)
    expect(doc).toContain('--max-old-space-size=512')
  })
})
