/**
 * The executable gathers output to a file or pipe and writes it once per event-loop turn (src/cli/bin.ts): the
 * bytes must be those the command wrote, in order, whatever the size; a write that fails (a full disk) must still
 * be reported with exit 2 even though it now happens after the command returned.
 */
import { spawnSync } from 'node:child_process'
import { closeSync, existsSync, openSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { binPath, repoRoot, runCli } from '../support/cli.js'

const env = { ...process.env, NO_COLOR: '1', RUN_OUTCOME_CACHE: '0' }

describe.skipIf(!existsSync(binPath))('gathered output of the executable', () => {
  it('a directory of many runs through a pipe: the same bytes as the command wrote in-process', async () => {
    // ~86 KB of runs: many pieces (spawnSync's stdout is a pipe: 4 KiB pieces)
    const args = ['replay', '--json', 'test/fixtures/claude-code-transcript', 'test/fixtures/codex-rollout']
    const spawned = spawnSync(process.execPath, [binPath, ...args], { cwd: repoRoot, env, encoding: 'utf8', maxBuffer: 64 << 20 })
    const inProcess = await runCli(args)
    expect(spawned.stdout.length).toBeGreaterThan(64 * 1024)
    expect(spawned.stdout).toBe(inProcess.stdout)
    expect(spawned.status).toBe(inProcess.code)
  })

  // before the exit status waited a turn for it, this case exited 1 without a word: the write error arrived after
  // the status was set, and the process ended before the error handler ran
  it.skipIf(!existsSync('/dev/full'))('stdout on a full disk (/dev/full): the failure is said on stderr, exit 2', () => {
    const fd = openSync('/dev/full', 'w')
    try {
      const r = spawnSync(process.execPath, [binPath, 'replay', '--json', 'examples/native/session.jsonl'], {
        cwd: repoRoot,
        env,
        encoding: 'utf8',
        stdio: ['ignore', fd, 'pipe'],
      })
      expect(r.stderr).toBe('run-outcome: could not write the output (ENOSPC); it is incomplete\n')
      expect(r.status).toBe(2)
    } finally {
      closeSync(fd)
    }
  })
})
