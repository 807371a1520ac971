/**
 * Gathered standard output (src/cli/gatheredOutput.ts, used by src/cli/bin.ts): pieces of whole writes up to the
 * piece size, in order, none handed on while the previous is still queued; and, as real processes, two of the
 * faults an attack on the first version found: a signal with a stalled reader left a cut `--json` line (64 KiB
 * writes, partly written), and `2>&1` put notes before the runs they follow. The third (`watch | head` kept
 * following, its runs having gone out in one write, so no later write failed) went with gathering `watch` at all:
 * its output is written run by run again, as test/reliability/signals.test.ts checks.
 */
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { GatheredOutput, PIPE_PIECE_BYTES } from '../../src/cli/gatheredOutput.js'
import { numRuns } from '../support/arbitraries.js'
import { binPath, repoRoot } from '../support/cli.js'

/** A target that records pieces and queues them while `stalled` (then `done` waits for `release`). */
const target = () => {
  const pieces: Array<string> = []
  const waiting: Array<() => void> = []
  const t = {
    stalled: false,
    backlog: 0,
    write(piece: string, done: () => void): void {
      pieces.push(piece)
      if (t.stalled) {
        t.backlog = Buffer.byteLength(piece)
        waiting.push(done)
      } else done()
    },
    release(): void {
      t.stalled = false
      t.backlog = 0
      for (const d of waiting.splice(0)) d()
    },
  }
  return { t, pieces }
}

const manual = () => {
  const queue: Array<() => void> = []
  return { later: (f: () => void) => queue.push(f), turn: () => queue.splice(0).forEach((f) => f()) }
}

describe('GatheredOutput', () => {
  it('hands on whole writes at the end of the turn, in pieces up to the size, a longer write alone', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'binary', maxLength: 300 }).map((s) => `${s}\n`),
          { maxLength: 60 },
        ),
        fc.integer({ min: 8, max: 600 }),
        (writes, size) => {
          const { t, pieces } = target()
          const clock = manual()
          const out = new GatheredOutput(t, size, clock.later)
          for (const w of writes) out.write(w)
          expect(pieces).toStrictEqual([])
          clock.turn()
          expect(pieces.join('')).toBe(writes.join(''))
          // every piece is a run of whole writes: cut the writes where the pieces end
          let i = 0
          for (const p of pieces) {
            let joined = ''
            let n = 0
            while (joined.length < p.length) joined += writes[i + n++] as string
            expect(joined).toBe(p)
            expect(n === 1 || Buffer.byteLength(p) <= size).toBe(true)
            i += n
          }
          expect(out.idle).toBe(true)
        },
      ),
      { numRuns: numRuns() },
    )
  })

  it('waits for a queued piece to leave before the next; flush writes what it can now; stop drops the rest', () => {
    const { t, pieces } = target()
    const clock = manual()
    const out = new GatheredOutput(t, 10, clock.later)
    t.stalled = true
    for (const w of ['aaaa\n', 'bbbb\n', 'cccc\n', 'dddd\n']) out.write(w)
    out.flush()
    expect(pieces).toStrictEqual(['aaaa\nbbbb\n'])
    expect(out.idle).toBe(false)
    t.release()
    expect(pieces).toStrictEqual(['aaaa\nbbbb\n', 'cccc\ndddd\n'])
    out.write('eeee\n')
    out.stop()
    out.write('ffff\n')
    out.flush()
    clock.turn()
    expect(pieces).toHaveLength(2)
    expect(out.idle).toBe(true)
  })
})

const env = { ...process.env, NO_COLOR: '1', RUN_OUTCOME_CACHE: '0' }
const nativeRun = (i: number, text: string): string =>
  [
    { type: 'turn/start', sessionId: 's', data: { turn: i } },
    { type: 'assistant/message', sessionId: 's', data: { message: { content: [{ type: 'text', text }] } } },
    { type: 'turn/end', sessionId: 's', data: { turn: i, reason: { kind: 'completed' } } },
    { type: 'session/status', sessionId: 's', data: { status: 'idle' } },
  ]
    .map((e) => `${JSON.stringify(e)}\n`)
    .join('')

const exited = (child: ReturnType<typeof spawn>, ms: number): Promise<{ code: number | null; signal: string | null } | 'still running'> =>
  Promise.race([
    // 'exit', not 'close': a test may leave the child's stdout unread until after it has ended
    new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))),
    new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), ms)),
  ])

describe('the executable’s output, as real processes', () => {
  it('replay --json into a stalled reader, then SIGINT: the reader gets whole lines only', async () => {
    // the reader: a shell that opens a FIFO at once but reads it only after the writer has been ended by the signal
    const dir = mkdtempSync(join(tmpdir(), 'run-outcome-gather-stall-'))
    const fifo = join(dir, 'fifo')
    const outFile = join(dir, 'out')
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
    const reader = spawn('sh', ['-c', `exec 3<"${fifo}"; sleep 9; cat <&3 > "${outFile}"`], { stdio: 'ignore' })
    const fd = openSync(fifo, 'w')
    const input = Array.from({ length: 400 }, (_, i) => nativeRun(i, `answer ${i} `.repeat(40))).join('')
    const child = spawn(process.execPath, [binPath, 'replay', '--json', '--format', 'native', '-'], { cwd: repoRoot, env, stdio: ['pipe', fd, 'pipe'] })
    closeSync(fd)
    child.stdin?.end(input)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    child.kill('SIGINT')
    const r = await exited(child, 20_000)
    await exited(reader, 20_000)
    const out = readFileSync(outFile, 'utf8')
    expect(r).toStrictEqual({ code: null, signal: 'SIGINT' })
    // a pipe holds 64 KiB: more than one piece went out, and the rest stayed in the process
    expect(out.length).toBeGreaterThan(PIPE_PIECE_BYTES)
    expect(out.endsWith('\n')).toBe(true)
    const runs = out
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { response: string }).response)
    // whole lines, the first runs in order
    expect(runs).toStrictEqual(runs.map((_, i) => `answer ${i} `.repeat(40)))
  })

  it('2>&1: a note comes after the runs written before it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'run-outcome-gather-order-'))
    writeFileSync(join(dir, 'a.jsonl'), nativeRun(1, 'first'))
    writeFileSync(join(dir, 'b.txt'), 'not a log at all\n')
    writeFileSync(join(dir, 'c.jsonl'), nativeRun(1, 'last'))
    const child = spawn('sh', ['-c', `"${process.execPath}" "${binPath}" replay --json "${dir}" 2>&1 | cat`], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString()
    })
    await exited(child, 20_000)
    const lines = out.trim().split('\n')
    expect(lines.map((l) => (l.startsWith('{') ? (JSON.parse(l) as { response: string }).response : l.replace(dir, 'DIR')))).toStrictEqual([
      'first',
      'run-outcome replay: skipped DIR/b.txt: format not recognised',
      'last',
    ])
  })
})
