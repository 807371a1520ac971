/**
 * A command that has failed on its input ends even though the writer of that input is still there, quiet: a FIFO
 * given by path, `/dev/stdin`, or a pipe on standard input. (Found by the hostile-input attack: the error was
 * printed, and the process lived on until the writer wrote again or closed — the read of the FIFO waited in a
 * thread-pool thread, and the read of a pipe in flight kept it open.) Real processes: what is checked is that the
 * process exits, with the writer still holding its end open.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { binPath, repoRoot } from '../support/cli.js'

const env = { ...process.env, NO_COLOR: '1', RUN_OUTCOME_CACHE: '0' }

/** The child's exit and its stderr, or 'still running' after `ms` (the child is then killed). */
const outcome = (child: ChildProcess, ms: number): Promise<{ code: number | null; stderr: string } | 'still running'> => {
  let stderr = ''
  child.stderr?.on('data', (b: Buffer) => {
    stderr += b.toString()
  })
  return Promise.race([
    new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr }))),
    new Promise<'still running'>((resolve) =>
      setTimeout(() => {
        child.kill('SIGKILL')
        resolve('still running')
      }, ms),
    ),
  ])
}

// a first line that is JSON but no format's: the replay waits a moment for more, then gives up on the format
const line = '{"foo":1}\n'
const undetected = (label: string): string =>
  `run-outcome replay: could not detect the format${label}; name it with --format (one of: native, claude-code, codex, openai-agents, gemini, ai-sdk, acp)\n`

describe.skipIf(!existsSync(binPath))('a failed command does not wait for a quiet writer', () => {
  it.each([['replay'], ['events']])('%s FIFO: exits 2 while the writer still holds the FIFO open', async (command) => {
    const fifo = join(mkdtempSync(join(tmpdir(), 'run-outcome-quiet-')), 'pipe')
    execFileSync('mkfifo', [fifo])
    const writer = spawn('sh', ['-c', `exec 3>'${fifo}'; printf '${line.trim()}\\n' >&3; exec sleep 600`], { stdio: 'ignore' })
    try {
      const child = spawn(process.execPath, [binPath, command, fifo], { cwd: repoRoot, env, stdio: ['ignore', 'ignore', 'pipe'] })
      const r = await outcome(child, 20_000)
      expect(r).toStrictEqual({ code: 2, stderr: undetected(` of ${fifo}`).replace('replay', command) })
      expect(writer.exitCode).toBe(null)
    } finally {
      writer.kill()
    }
  })

  it('replay - from a pipe whose writer stays: exits 2 at once', async () => {
    const child = spawn(process.execPath, [binPath, 'replay', '-'], { cwd: repoRoot, env, stdio: ['pipe', 'ignore', 'pipe'] })
    // written, and the pipe left open: only this test's end closes it
    child.stdin?.write(line)
    const r = await outcome(child, 20_000)
    child.stdin?.destroy()
    expect(r).toStrictEqual({ code: 2, stderr: undetected('') })
  })

  it('replay /dev/stdin from a shell pipe whose writer stays: exits 2 while the writer sleeps on', async () => {
    // a shell pipe is a FIFO (a spawned child's stdin is a socket, which /dev/stdin cannot reopen); the pipeline
    // as a whole waits for its writer, so the replay says its status on fd 3 as soon as it ends
    const script = `{ printf '%s\\n' '${line.trim()}'; sleep 60; } | { "${process.execPath}" "${binPath}" replay /dev/stdin 2>&3; echo "code $?" >&3; }`
    const child = spawn('sh', ['-c', `exec 3>&2; ${script}`], { cwd: repoRoot, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true })
    let said = ''
    const ended = await new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve('still running'), 20_000)
      child.stderr?.on('data', (b: Buffer) => {
        said += b.toString()
        if (/code \d+\n$/.test(said)) {
          clearTimeout(timer)
          resolve(said)
        }
      })
    })
    process.kill(-(child.pid as number), 'SIGKILL')
    expect(ended).toBe(`${undetected(' of /dev/stdin')}code 2\n`)
  })
})
