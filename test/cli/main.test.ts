/** The CLI entry: version from package.json on every command, help for unknown names never an internal error. */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'

const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version

describe('run-outcome main', () => {
  it.each([['--version'], ['-v'], ['-V'], ['replay', '--version'], ['stats', '-v'], ['events', '--version']])(
    '%s %s prints the package version',
    async (...argv) => {
      const r = await runCli(argv)
      expect([r.code, r.stdout]).toStrictEqual([0, `${version}\n`])
    },
  )
  it.each(['__proto__', 'constructor', 'toString', 'nope'])('help %s is an unknown command (exit 2), never an internal error', async (name) => {
    const r = await runCli(['help', name])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`unknown command "${name}"`)
    expect(r.stderr).not.toContain('internal error')
    const direct = await runCli([name])
    expect(direct.code).toBe(2)
    expect(direct.stderr).not.toContain('internal error')
  })
  it('an option before any command is named as one, not as an unknown command', async () => {
    const r = await runCli(['--bogus'])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(`run-outcome: an option before a command: "--bogus". Commands: replay, watch, events, stats, consume.\nTry 'run-outcome --help'.\n`)
  })
  it('help replay shows the replay help', async () => {
    const r = await runCli(['help', 'replay'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Usage: run-outcome replay')
  })
})
