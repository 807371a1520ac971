/**
 * `replay` with no input and /dev/null on standard input (cron, CI, `< /dev/null`) reads the usual places, as on a
 * terminal and as `stats` does (found by the new-user trial: it printed one unfinished run of an empty input,
 * exit 1). A pipe, even an empty one, is still read as the input.
 */
import { spawnSync } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'

const bin = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url))
const home = fileURLToPath(new URL('../fixtures/homes/basic', import.meta.url))
const env = { ...process.env, HOME: home, CODEX_HOME: '', CLAUDE_CONFIG_DIR: '', NO_COLOR: '1' }
delete (env as Record<string, string | undefined>)['CODEX_HOME']
delete (env as Record<string, string | undefined>)['CLAUDE_CONFIG_DIR']

describe.skipIf(!existsSync(bin))('replay with /dev/null on standard input', () => {
  it('reads the usual places (a real process)', () => {
    const fd = openSync('/dev/null', 'r')
    try {
      const r = spawnSync(process.execPath, [bin, 'replay', '--json'], { stdio: [fd, 'pipe', 'pipe'], env, encoding: 'utf8' })
      expect(r.stderr).toContain('run-outcome replay: no input given; reading the usual places:\n  ~/.claude/projects\n')
      expect(r.stdout.trim().split('\n')).toHaveLength(17)
    } finally {
      closeSync(fd)
    }
  })
  it('an empty pipe is still read as the input: one unfinished run', () => {
    const r = spawnSync(process.execPath, [bin, 'replay', '--json'], { input: '', env, encoding: 'utf8' })
    expect(r.status).toBe(1)
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { ending: { kind: string } }).ending.kind),
    ).toStrictEqual(['unfinished'])
  })
  it('in-process: stdinPiped false is taken as nothing piped in; without it an empty stdin is the input', async () => {
    const run = async (stdinPiped: boolean | undefined): Promise<{ code: number; stderr: string; runs: number }> => {
      let out = ''
      let err = ''
      const code = await main(['replay', '--json'], {
        stdin: (async function* () {})(),
        stdout: {
          write: (s: string) => {
            out += s
            return true
          },
        },
        stderr: {
          write: (s: string) => {
            err += s
            return true
          },
        },
        env: { HOME: home, NO_COLOR: '1' },
        ...(stdinPiped !== undefined ? { stdinPiped } : {}),
      })
      return { code, stderr: err, runs: out.trim().split('\n').filter(Boolean).length }
    }
    const devNull = await run(false)
    expect(devNull.stderr).toContain('reading the usual places')
    expect(devNull.runs).toBe(17)
    const empty = await run(undefined)
    expect([empty.code, empty.runs]).toStrictEqual([1, 1])
    expect(empty.stderr).not.toContain('usual places')
  })
  // a fresh-user walkthrough: an empty ~/.claude/projects gave only `no log files under /root/.claude/projects`,
  // where stats says what was not there and what to do
  it('usual places that hold no log: named with ~, the places not there, and what to give instead', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'ro-replay-home-'))
    mkdirSync(join(empty, '.claude', 'projects'), { recursive: true })
    let err = ''
    const code = await main(['replay'], {
      stdin: (async function* () {})(),
      stdinPiped: false,
      stdout: { write: () => true },
      stderr: {
        write: (s: string) => {
          err += s
          return true
        },
      },
      env: { HOME: empty, NO_COLOR: '1' },
    })
    expect(code).toBe(2)
    expect(err).toBe(
      [
        'run-outcome replay: no input given; reading the usual places:',
        '  ~/.claude/projects',
        'run-outcome replay: no log files under ~/.claude/projects (looked for .jsonl, .ndjson, .json, .log, .txt and their .gz)',
        '(not there: ~/.config/claude/projects, ~/.codex/sessions, ~/.codex/archived_sessions, ~/.gemini/tmp)',
        "Give a log file or directory, or pipe a log into standard input (see 'run-outcome replay --help').",
        '',
      ].join('\n'),
    )
  })
})
