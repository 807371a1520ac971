/**
 * The built CLI (`dist/cli/bin.js`) as a real process whose standard input is written from a generator, chunk
 * by chunk as the process reads it (backpressure), so inputs of hundreds of megabytes are streamed at test time
 * and never held whole by the test — and its peak RSS (`MAXRSS_PRELOAD`).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { binPath, repoRoot } from '../../support/cli.js'
import { MAXRSS_PRELOAD, takeMaxRss } from './cliCheck.js'

export interface Streamed {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  /** Peak resident set size of the CLI process, MiB. */
  readonly mib: number
}

/** Writes every chunk of `input` to `child`'s stdin, waiting for `drain`; stops quietly when the child stops reading. */
export const pump = async (child: ChildProcess, input: Iterable<string | Buffer> | AsyncIterable<string | Buffer>): Promise<void> => {
  const stdin = child.stdin
  if (stdin === null) return
  let closed = false
  stdin.on('error', () => {
    closed = true
  })
  for await (const c of input) {
    if (closed) return
    if (!stdin.write(c))
      await new Promise<void>((r) => {
        stdin.once('drain', r)
        stdin.once('close', r)
      })
  }
  stdin.end()
}

/** Runs the CLI with `argv`, `input` streamed to it; `nodeArgs` go before the script. Stdout is kept up to `keep` characters. */
export const spawnStreamed = (
  argv: ReadonlyArray<string>,
  input: Iterable<string | Buffer> | AsyncIterable<string | Buffer>,
  nodeArgs: ReadonlyArray<string> = [],
  keep = 1 << 20,
): Promise<Streamed> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, ...MAXRSS_PRELOAD, binPath, ...argv], {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let seen = 0
    const err: Array<Buffer> = []
    child.stdout.on('data', (b: Buffer) => {
      seen += b.length
      if (stdout.length < keep) stdout += b.toString('utf8')
    })
    child.stderr.on('data', (b: Buffer) => err.push(b))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      const { mib, stderr } = takeMaxRss(Buffer.concat(err).toString('utf8'))
      resolve({ code, signal, stdout: seen > keep ? stdout.slice(0, keep) : stdout, stderr, mib })
    })
    void pump(child, input)
  })

/** `n` chunks of `s` (a string or a generator's worth of one), for building big inputs lazily. */
export function* repeat(s: string, n: number): Generator<string> {
  for (let i = 0; i < n; i++) yield s
}
