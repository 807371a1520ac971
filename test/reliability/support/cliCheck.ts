/**
 * Runs the CLI's entry function in-process (or the built bin as a process) and checks what every run must
 * satisfy whatever the input: an exit code from SPEC §1, no stack trace, no internal error, short stderr, and
 * with `--json` one well-formed §3 object per line whose exit code agrees with the endings.
 */
import { spawn } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { main } from '../../../src/cli/main.js'
import { RunEndingCodec } from '../../../src/core/FoldStateCodec.js'
import { endingKinds } from '../../../src/core/RunEnding.js'
import { binPath, repoRoot } from '../../support/cli.js'

export interface CliOutcome {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** An injected standard input: the bytes in chunks of `chunk` bytes, as an async iterable (no stream machinery). */
async function* chunked(input: Buffer, chunk: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < input.length; i += chunk) yield input.subarray(i, i + chunk)
}

/** `main(argv, io)` with `input` on standard input (in chunks of `chunk` bytes). Resolves with what it wrote. */
export const runMain = async (argv: ReadonlyArray<string>, input: Buffer, chunk = 65_536, stream = false): Promise<CliOutcome> => {
  let stdout = ''
  let stderr = ''
  const stdin = stream ? Readable.from([input]) : chunked(input, chunk)
  const code = await main([...argv], {
    stdin,
    stdout: {
      write: (s: string) => {
        stdout += s
      },
    },
    stderr: {
      write: (s: string) => {
        stderr += s
      },
    },
    env: { NO_COLOR: '1' },
  })
  return { code, stdout, stderr }
}

/** The built bin as a real process, `input` piped to it. `nodeArgs` go before the script (heap caps, preloads). */
export const runBin = (
  argv: ReadonlyArray<string>,
  input: Buffer,
  nodeArgs: ReadonlyArray<string> = [],
  timeoutMs = 120_000,
): Promise<CliOutcome & { signal: string | null }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, binPath, ...argv], {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.stdout.on('data', (b: Buffer) => out.push(b))
    child.stderr.on('data', (b: Buffer) => err.push(b))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code: code ?? -1, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') })
    })
    child.stdin.on('error', () => {}) // the CLI may stop reading early (a protocol error): EPIPE is fine
    child.stdin.end(input)
  })

/**
 * `true` when the process failed to load the built modules (a `dist/` being rebuilt by another build on the same
 * tree while it started): not an answer of the CLI. A broken build fails the same way every time.
 */
const isLoadFailure = (stderr: string): boolean =>
  /dist\//.test(stderr) && /SyntaxError: The requested module|ERR_MODULE_NOT_FOUND|Cannot find module|Unexpected end of input/.test(stderr)

/** {@link runBin}, started again (up to 3 times, 2 s apart) when the process could not load `dist/`. */
export const runBinSettled = async (
  argv: ReadonlyArray<string>,
  input: Buffer,
  nodeArgs: ReadonlyArray<string> = [],
): Promise<CliOutcome & { signal: string | null }> => {
  let o = await runBin(argv, input, nodeArgs)
  for (let attempt = 1; attempt < 3 && isLoadFailure(o.stderr); attempt++) {
    await new Promise((r) => setTimeout(r, 2000))
    o = await runBin(argv, input, nodeArgs)
  }
  return o
}

const newest = (dir: string, ext: string): { newest: number; oldest: number } => {
  let n = 0
  let o = Number.POSITIVE_INFINITY
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name.endsWith(ext)) {
        const t = statSync(p).mtimeMs
        n = Math.max(n, t)
        o = Math.min(o, t)
      }
    }
  }
  walk(dir)
  return { newest: n, oldest: o }
}

/**
 * `true` when `dist/` was built after the last change to `src/` (always so in CI, which builds on install).
 * A stale `dist/` answers with older code, so comparing its output with the in-process run means nothing.
 */
export const distIsFresh = (): boolean => {
  try {
    return newest(join(repoRoot, 'src'), '.ts').newest <= newest(join(repoRoot, 'dist'), '.js').oldest
  } catch {
    return false
  }
}

/** A preload that prints the process's peak resident set size (KiB) on stderr at exit: `maxrss=N`. */
export const MAXRSS_PRELOAD = [
  '--import',
  'data:text/javascript,process.on("exit",()=>process.stderr.write("\\nmaxrss="+process.resourceUsage().maxRSS+"\\n"))',
]

/** Peak RSS in MiB from a `MAXRSS_PRELOAD` run, and the stderr without that line. */
export const takeMaxRss = (stderr: string): { mib: number; stderr: string } => {
  const m = /\n?maxrss=(\d+)\n$/.exec(stderr)
  return m === null ? { mib: Number.NaN, stderr } : { mib: Number(m[1]) / 1024, stderr: stderr.slice(0, m.index) }
}

const STACK_FRAME = /^\s+at .+(?::\d+:\d+\)?|\(native\)|<anonymous>\)?)$/m
const ERROR_HEADER = /^(?:\w*Error|Uncaught|node:internal)[:\s]/m
const MAX_STDERR = 64 * 1024

const isObj = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)
const count = (u: unknown): boolean => typeof u === 'number' && Number.isFinite(u) && u >= 0

/** Problems with one `--json` result line (empty when it is a well-formed SPEC §3 object). */
export const resultProblems = (r: unknown): Array<string> => {
  const p: Array<string> = []
  if (!isObj(r)) return ['a result line is not an object']
  if (r['schemaVersion'] !== 1) p.push('schemaVersion is not 1')
  const ending = r['ending']
  if (!isObj(ending) || !(endingKinds as ReadonlyArray<unknown>).includes(ending['kind'])) p.push('ending is not a RunEnding')
  else if (!RunEndingCodec.is(ending)) p.push(`ending ${String(ending['kind'])} does not satisfy RunEndingCodec`)
  if (!(typeof r['format'] === 'string')) p.push('format is not a string')
  if (!(r['response'] === null || typeof r['response'] === 'string')) p.push('response is neither text nor null')
  if (!(r['finishReason'] === null || typeof r['finishReason'] === 'string')) p.push('finishReason is neither text nor null')
  if (!count(r['turns']) || !count(r['toolCalls'])) p.push('turns or toolCalls is not a count')
  const usage = r['usage']
  const buckets = ['inputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'outputTokens', 'reasoningTokens']
  if (!isObj(usage) || !buckets.every((b) => count(usage[b]))) p.push('usage buckets are not finite counts')
  else if (
    !isObj(usage['byModel']) ||
    !Object.values(usage['byModel']).every((m) => isObj(m) && buckets.every((b) => count(m[b])) && (m['costUsd'] === null || count(m['costUsd'])))
  )
    p.push('usage.byModel is not well formed')
  const cost = r['cost']
  if (!isObj(cost) || !(cost['totalUsd'] === null || count(cost['totalUsd'])) || !count(cost['missing']) || typeof cost['complete'] !== 'boolean')
    p.push('cost is not well formed')
  else if ((cost['missing'] as number) > 0 && cost['totalUsd'] !== null) p.push('cost.totalUsd is set although items were missing a cost')
  if (!(r['durationMs'] === null || (typeof r['durationMs'] === 'number' && Number.isFinite(r['durationMs'])))) p.push('durationMs is not finite')
  if (!Array.isArray(r['diagnostics']) || r['diagnostics'].length > 100 || !count(r['diagnosticsDropped'])) p.push('diagnostics are not well formed')
  if (!Array.isArray(r['children'])) p.push('children is not a list')
  return p
}

export interface Verdict {
  readonly problems: Array<string>
  readonly runs: Array<Record<string, unknown>>
}

/**
 * Every problem with a CLI outcome for `argv` (empty when it behaves): exit code, stack traces, internal
 * errors, stderr size, and with `--json` the result lines and the agreement of the exit code with them.
 * `inMemory`: the input came from memory, so a read failure can only be a reader that threw.
 */
export const judge = (o: CliOutcome, argv: ReadonlyArray<string>, inMemory: boolean): Verdict => {
  const problems: Array<string> = []
  const runs: Array<Record<string, unknown>> = []
  if (![0, 1, 2, 3].includes(o.code)) problems.push(`exit code ${o.code} is outside SPEC §1`)
  if (STACK_FRAME.test(o.stdout) || STACK_FRAME.test(o.stderr)) problems.push('a stack trace was printed')
  if (ERROR_HEADER.test(o.stderr)) problems.push('an uncaught error header was printed')
  if (/internal error/.test(o.stderr)) problems.push('the CLI reported an internal error (an exception escaped a reader)')
  if (inMemory && /read failed/.test(o.stderr)) problems.push('"read failed" on an in-memory input (an exception escaped a reader)')
  if (o.stderr.length > MAX_STDERR) problems.push(`stderr is ${o.stderr.length} characters (input echoed?)`)
  const json = argv.includes('--json')
  if (json) {
    for (const line of o.stdout.split('\n')) {
      if (line === '') continue
      let r: unknown
      try {
        r = JSON.parse(line)
      } catch {
        problems.push('a stdout line is not JSON')
        continue
      }
      for (const p of resultProblems(r)) problems.push(p)
      if (isObj(r)) runs.push(r)
    }
    const accept = argv.flatMap((a, i) => (argv[i - 1] === '--accept' ? [a] : []))
    const success = runs.every((r) => isObj(r['ending']) && (r['ending']['kind'] === 'answered' || accept.includes(String(r['ending']['kind']))))
    if (o.code === 0 || o.code === 1) {
      if (runs.length === 0) problems.push(`exit ${o.code} without any run (an input always gives at least one run)`)
      else if ((o.code === 0) !== success) problems.push(`exit ${o.code} disagrees with the endings printed`)
    }
    if (o.code === 3) {
      const last = o.stderr.trim().split('\n').at(-1) ?? ''
      let e: unknown
      try {
        e = JSON.parse(last)
      } catch {
        e = undefined
      }
      if (!isObj(e) || e['name'] !== 'ProtocolError' || typeof e['index'] !== 'number' || typeof e['path'] !== 'string')
        problems.push('exit 3 without ProtocolError JSON on stderr')
    }
  }
  if (o.code === 3 && !/protocol error/.test(o.stderr)) problems.push('exit 3 without a protocol error message')
  if (o.code === 2 && o.stderr.trim() === '') problems.push('exit 2 with nothing on stderr')
  const fi = argv.indexOf('--format')
  const format = fi >= 0 ? argv[fi + 1] : 'auto'
  if (o.code === 3 && format !== undefined && format !== 'auto' && format !== 'native')
    problems.push(`exit 3 from the vendor format ${format} (vendor formats are lenient)`)
  if (o.code === 3 && runs.some((r) => r['format'] !== 'native')) problems.push('exit 3 while reading a vendor format')
  return { problems, runs }
}
