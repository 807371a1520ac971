/**
 * `watch FILE` ends at a protocol error (the hostile-input trial found it printing the error, then polling the file
 * for ever: the replay stopped reading while a poll waited, and the follower only looked at its stop flag, which
 * nothing set). Run as a real process, so a process that never exits fails the test (killed, no exit status).
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { binPath, repoRoot } from '../support/cli.js'

const j = (o: unknown): string => JSON.stringify(o)

describe('watch FILE and a protocol error', () => {
  it('prints the run before it, names the line and path, and exits 3', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ro-watch-pe-'))
    const file = join(dir, 'pe.jsonl')
    writeFileSync(
      file,
      [
        j({ type: 'turn/start', sessionId: 's', data: { turn: 1 } }),
        j({ type: 'turn/end', sessionId: 's', data: { turn: 1, reason: { kind: 'completed' } } }),
        j({ type: 'session/status', sessionId: 's', data: { status: 'idle' } }),
        j({ type: 'turn/start', sessionId: 's', data: { turn: 2 } }),
        j({ type: 'turn/end', sessionId: 's', data: { turn: 2, reason: { kind: 'limit', reason: 5 } } }),
        '',
      ].join('\n'),
    )
    const r = spawnSync(process.execPath, [binPath, 'watch', '--json', file], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      // far past the poll interval: a watch that keeps polling is killed here and has no status
      timeout: 30_000,
    })
    expect(r.signal).toBeNull()
    expect(r.status).toBe(3)
    const runs = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { ending: { kind: string } })
    expect(runs.map((x) => x.ending.kind)).toStrictEqual(['answered'])
    expect(r.stderr).toContain(`run-outcome watch: protocol error: ${file}:5: event #4 (turn/end) at reason.reason: expected string`)
  })

  it('on a pipe whose writer stays open: exits 3 at once, with the error as JSON under --json (hostile trial)', async () => {
    const child = spawn(process.execPath, [binPath, 'watch', '--json'], { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1' } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.stdin.write(
      `${[
        j({ type: 'turn/start', sessionId: 's', data: { turn: 1 } }),
        j({ type: 'turn/end', sessionId: 's', data: { turn: 1, reason: { kind: 'completed' } } }),
        j({ type: 'session/status', sessionId: 's', data: { status: 'idle' } }),
        j({ type: 'turn/end', sessionId: 's', data: { turn: 2, reason: { kind: 5 } } }),
      ].join('\n')}\n`,
    )
    // the writer never ends its output: before, watch waited for it to (an agent that lives on held it for ever)
    const exit = await new Promise<number | null | 'still running'>((resolve) => {
      const timer = setTimeout(() => resolve('still running'), 15_000)
      child.on('exit', (code) => {
        clearTimeout(timer)
        resolve(code)
      })
    })
    child.kill()
    expect(exit).toBe(3)
    expect(
      stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { ending: { kind: string } }).ending.kind),
    ).toStrictEqual(['answered'])
    const lines = stderr.trim().split('\n')
    expect(lines[0]).toBe(
      'run-outcome watch: protocol error: line 4: event #3 (turn/end) at reason.kind: expected string; a turn/end must carry data.reason with a string kind (SPEC §4)',
    )
    expect(JSON.parse(lines[1] as string)).toMatchObject({ name: 'ProtocolError', line: 4, index: 3, path: 'reason.kind', expected: 'string' })
  })
})
