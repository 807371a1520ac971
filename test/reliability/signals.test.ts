/**
 * Signals, pipes and every kind of input, as real processes (`dist/cli/bin.js`; issue 14): a closed stderr is
 * no crash, SIGTERM / SIGINT never cut a `--json` line, SIGHUP in `watch` prints the open run as SIGINT does,
 * `watch` ends when the reader of its output has gone, a read error on stdin is an error, and `watch` reads
 * named pipes, `/dev/stdin` and `<(…)`, exits on the first Ctrl-C on a pipe no one writes to, and ends with the
 * open run printed when the file it follows is replaced by a directory.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { binPath, repoRoot } from '../support/cli.js'
import { figure } from './support/runs.js'
import { pump } from './support/spawnStream.js'

const native = readFileSync(new URL('../../examples/native/session.jsonl', import.meta.url), 'utf8')
const lines = native.trim().split('\n')
/** Run 1 of the example (answered, ends with the root idle) and the first lines of run 2 (open). */
const run1 = `${lines.slice(0, 13).join('\n')}\n`
const run2Open = `${lines.slice(13, 16).join('\n')}\n`
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const env = { ...process.env, NO_COLOR: '1' }

interface Proc {
  readonly child: ChildProcess
  readonly out: () => string
  readonly err: () => string
  readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

const start = (argv: ReadonlyArray<string>, stdin: 'pipe' | 'ignore' | number = 'pipe', shell = false): Proc => {
  const child = shell
    ? spawn('bash', ['-c', argv.join(' ')], { cwd: repoRoot, env, stdio: [stdin, 'pipe', 'pipe'] })
    : spawn(process.execPath, [binPath, ...argv], { cwd: repoRoot, env, stdio: [stdin, 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout?.on('data', (b: Buffer) => {
    out += b.toString()
  })
  child.stderr?.on('data', (b: Buffer) => {
    err += b.toString()
  })
  child.stdin?.on('error', () => {})
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.on('close', (code, signal) => res({ code, signal })))
  return { child, out: () => out, err: () => err, closed }
}

const until = async (cond: () => boolean, ms = 15_000): Promise<void> => {
  for (const deadline = Date.now() + ms; !cond() && Date.now() < deadline; ) await sleep(20)
}

/** Whether process `pid` holds `path` open (Linux: its /proc fd links); `true` where that cannot be told. */
const holdsOpen = (pid: number | undefined, path: string): boolean => {
  if (pid === undefined || !existsSync(`/proc/${pid}/fd`)) return true
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === path
      } catch {
        return false
      }
    })
  } catch {
    return true
  }
}

const jsonLines = (s: string): Array<Record<string, unknown>> =>
  s
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)

describe('closed pipes', () => {
  it('a closed stderr (2>&1 | head -1) is no crash: replay and stats keep their documented exit codes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'run-outcome-stderr-'))
    writeFileSync(join(dir, 'a.jsonl'), native)
    // files whose format is not recognised: one note each on stderr
    for (let i = 0; i < 50; i++) writeFileSync(join(dir, `noise-${i}.txt`), 'hello\n'.repeat(10))
    const withClosedStderr = async (argv: ReadonlyArray<string>): Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }> => {
      const p = start(argv, 'ignore')
      p.child.stderr?.destroy()
      return { ...(await p.closed), err: p.err() }
    }
    const open = async (argv: ReadonlyArray<string>): Promise<number | null> => {
      const p = start(argv, 'ignore')
      return (await p.closed).code
    }
    for (const argv of [
      ['replay', dir],
      ['replay', '--json', dir],
      ['stats', dir],
      ['stats', '--json', dir],
      ['replay', join(dir, 'missing.jsonl')],
    ]) {
      const closed = await withClosedStderr(argv)
      expect({ argv, code: closed.code, signal: closed.signal }).toStrictEqual({ argv, code: await open(argv), signal: null })
      expect([0, 1, 2, 3]).toContain(closed.code)
    }
  })

  it('watch ends when the reader of its output has gone, though its input stays open', async () => {
    const p = start(['watch', '--json'])
    p.child.stdin?.write(run1)
    await until(() => p.out().includes('\n'))
    expect(jsonLines(p.out())[0]?.['ending']).toStrictEqual({ kind: 'answered' })
    p.child.stdout?.destroy()
    // the next result cannot be written: watch stops following (stdin is still open)
    p.child.stdin?.write(`${lines.slice(13).join('\n')}\n`)
    const r = await Promise.race([p.closed, sleep(10_000).then(() => 'still running' as const)])
    if (r === 'still running') p.child.kill('SIGKILL')
    // run 2 is cut off (max_tokens): the exit status still says how the runs ended
    expect(r).toStrictEqual({ code: 1, signal: null })
  })

  it('replay - < / : a read error on standard input is exit 2, not an empty input', async () => {
    const fd = openSync('/', 'r')
    try {
      for (const argv of [['replay', '-'], ['watch']]) {
        const p = start(argv, fd)
        const r = await p.closed
        expect({ argv, ...r, out: p.out() }).toStrictEqual({ argv, code: 2, signal: null, out: '' })
        expect(p.err()).toMatch(/is a directory/)
      }
    } finally {
      closeSync(fd)
    }
  })
})

describe('signals', () => {
  // 120 runs whose answers are 256 KiB each: the output is far larger than a pipe holds
  const bigRun = (i: number): string =>
    `${JSON.stringify({ type: 'turn/start', sessionId: 's', data: { turn: i } })}\n${JSON.stringify({ type: 'assistant/message', sessionId: 's', data: { message: { content: [{ type: 'text', text: String(i % 10).repeat(256 * 1024) }] } } })}\n${JSON.stringify({ type: 'turn/end', sessionId: 's', data: { turn: i, reason: { kind: 'completed' } } })}\n${JSON.stringify({ type: 'session/status', sessionId: 's', data: { status: 'idle' } })}\n`

  it('SIGTERM and SIGINT during replay --json never leave a cut JSON line (10 trials)', async () => {
    const tally: Array<string> = []
    for (let trial = 0; trial < 10; trial++) {
      const signal = trial % 2 === 0 ? 'SIGTERM' : 'SIGINT'
      const child = spawn(process.execPath, [binPath, 'replay', '--json', '--format', 'native', '-'], { cwd: repoRoot, env, stdio: ['pipe', 'pipe', 'pipe'] })
      child.stdin.on('error', () => {})
      const chunks: Array<Buffer> = []
      let got = 0
      child.stdout.on('data', (b: Buffer) => {
        chunks.push(b)
        got += b.length
        // read slowly: the process's own buffer fills while a line is being written
        child.stdout.pause()
        setTimeout(() => child.stdout.resume(), 5)
      })
      const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.on('close', (code, sig) => res({ code, signal: sig })))
      void pump(
        child,
        (function* () {
          for (let i = 0; i < 120; i++) yield bigRun(i)
        })(),
      )
      await until(() => got > 3 * 256 * 1024 + trial * 100_000)
      child.kill(signal)
      const r = await closed
      const out = Buffer.concat(chunks).toString('utf8')
      expect(r.signal).toBe(signal)
      // whatever was printed is whole lines, each a whole result
      expect(out.endsWith('\n')).toBe(true)
      const results = jsonLines(out)
      for (const x of results) expect((x['response'] as string).length).toBe(256 * 1024)
      tally.push(`${signal} after ${results.length} runs`)
    }
    figure(`signals: replay --json stopped mid-output 10 times, no cut line (${tally.join(', ')})`)
  })

  it('SIGHUP in watch prints the open run, as SIGINT does', async () => {
    for (const signal of ['SIGHUP', 'SIGINT', 'SIGTERM'] as const) {
      const p = start(['watch', '--json'])
      p.child.stdin?.write(run1)
      await until(() => p.out().includes('\n'))
      p.child.stdin?.write(run2Open)
      await sleep(400)
      p.child.kill(signal)
      const r = await p.closed
      const runs = jsonLines(p.out())
      expect({ sent: signal, ...r, endings: runs.map((x) => x['ending']) }).toStrictEqual({
        sent: signal,
        code: 1,
        signal: null,
        endings: [{ kind: 'answered' }, { kind: 'unfinished', lastEventType: 'assistant/message' }],
      })
    }
  })
})

describe('watch on every kind of input', () => {
  const tmp = (): string => mkdtempSync(join(tmpdir(), 'run-outcome-inputs-'))

  it('a named pipe, /dev/stdin and <(…) are read as streams (no positional reads: no ESPIPE)', async () => {
    const d = tmp()
    const fifo = join(d, 'pipe')
    execFileSync('mkfifo', [fifo])
    const file = join(d, 'log.jsonl')
    writeFileSync(file, native)
    const viaFifo = start(['watch', '--json', fifo], 'ignore')
    await sleep(300)
    writeFileSync(fifo, native) // opens the pipe for writing, writes, closes: end of input
    const cases: Array<[string, Proc]> = [['named pipe', viaFifo]]
    cases.push(['/dev/stdin (a pipe)', start([`cat ${file} |`, process.execPath, binPath, 'watch', '--json', '/dev/stdin'], 'ignore', true)])
    // a socket on stdin (how a parent process often connects it): /dev/stdin cannot be opened again, it is read as stdin
    const viaSocket = start(['watch', '--json', '/dev/stdin'])
    viaSocket.child.stdin?.end(native)
    cases.push(['/dev/stdin (a socket)', viaSocket])
    cases.push(['<(…)', start([process.execPath, binPath, 'watch', '--json', `<(cat ${file})`], 'ignore', true)])
    for (const [name, p] of cases) {
      const r = await p.closed
      expect({ name, ...r, endings: jsonLines(p.out()).map((x) => (x['ending'] as { kind: string }).kind), err: p.err() }).toStrictEqual({
        name,
        code: 1,
        signal: null,
        endings: ['answered', 'cut_off'],
        err: '',
      })
    }
  })

  it('the first Ctrl-C on a named pipe nobody writes to exits at once', async () => {
    const d = tmp()
    const fifo = join(d, 'pipe')
    execFileSync('mkfifo', [fifo])
    const p = start(['watch', '--json', fifo], 'ignore')
    // a loaded machine may take over 500 ms to start watch: a SIGINT before it listens kills it (no exit code)
    await until(() => holdsOpen(p.child.pid, fifo))
    await sleep(300)
    p.child.kill('SIGINT')
    const r = await Promise.race([p.closed, sleep(5_000).then(() => 'still running' as const)])
    if (r === 'still running') p.child.kill('SIGKILL')
    // nothing was read: one unfinished run, as for an empty input
    expect(r).toStrictEqual({ code: 1, signal: null })
    expect(jsonLines(p.out()).map((x) => x['ending'])).toStrictEqual([{ kind: 'unfinished' }])
  })

  it('a followed file replaced by a directory: the open run is printed as unfinished, with a clear error (exit 2)', async () => {
    const d = tmp()
    const f = join(d, 'live.jsonl')
    writeFileSync(f, run1 + run2Open)
    const p = start(['watch', '--json', '--poll', '50', f], 'ignore')
    await until(() => p.out().includes('\n'))
    await sleep(300)
    rmSync(f)
    mkdirSync(f)
    const r = await Promise.race([p.closed, sleep(10_000).then(() => 'still running' as const)])
    if (r === 'still running') p.child.kill('SIGKILL')
    expect(r).toStrictEqual({ code: 2, signal: null })
    expect(jsonLines(p.out()).map((x) => x['ending'])).toStrictEqual([{ kind: 'answered' }, { kind: 'unfinished', lastEventType: 'assistant/message' }])
    expect(p.err()).toBe(`run-outcome watch: ${f}: it was replaced by a directory; watch follows a file\n`)
  })
})
