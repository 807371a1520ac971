/** Runs the CLI in-process with injected streams, or as a real process from dist/. */
import { spawnSync } from 'node:child_process'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { main } from '../../src/cli/main.js'

export interface CliRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** What else a test's CLI run may say about its world: nothing piped in (`stdinPiped: false`), a terminal's stdout. */
export interface CliWorld {
  readonly stdinPiped?: boolean
  readonly stdout?: { readonly isTTY: boolean; readonly columns: number }
}

export const runCli = async (
  argv: ReadonlyArray<string>,
  stdin: string | Buffer = '',
  env: Record<string, string> = {},
  world: CliWorld = {},
): Promise<CliRun> => {
  let stdout = ''
  let stderr = ''
  const input = Readable.from([typeof stdin === 'string' ? Buffer.from(stdin) : stdin]) as Readable & { isTTY?: boolean }
  const code = await main(argv, {
    stdin: input,
    ...(world.stdinPiped !== undefined ? { stdinPiped: world.stdinPiped } : {}),
    stdout: {
      write: (s: string) => {
        stdout += s
      },
      ...(world.stdout ?? {}),
    },
    stderr: {
      write: (s: string) => {
        stderr += s
      },
    },
    env: { NO_COLOR: '1', ...env },
  })
  return { code, stdout, stderr }
}

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url))
export const binPath = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url))

export const spawnCli = (argv: string[], input?: string): CliRun => {
  const r = spawnSync(process.execPath, [binPath, ...argv], {
    cwd: repoRoot,
    input: input ?? '',
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 60_000,
  })
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }
}
