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
  it('hands on whole lines at the end of the turn, in pieces up to the size, a longer line alone', () => {
    const text = fc.string({ unit: 'binary', maxLength: 300 })
    // writes of whole lines, some of several lines
    const write = fc.array(text, { minLength: 1, maxLength: 4 }).map((ls) => `${ls.map((l) => l.replaceAll('\n', ' ')).join('\n')}\n`)
    fc.assert(
      fc.property(fc.array(write, { maxLength: 60 }), fc.integer({ min: 8, max: 600 }), (writes, size) => {
        const { t, pieces } = target()
        const clock = manual()
        const out = new GatheredOutput(t, size, clock.later)
        for (const w of writes) out.write(w)
        expect(pieces).toStrictEqual([])
        clock.turn()
        expect(pieces.join('')).toBe(writes.join(''))
        for (const p of pieces) {
          // whole lines; within the size, or one line alone
          expect(p.endsWith('\n')).toBe(true)
          expect(Buffer.byteLength(p) <= size || p.indexOf('\n') === p.length - 1).toBe(true)
        }
        expect(out.idle).toBe(true)
      }),
      { numRuns: numRuns() },
    )
  })

  it('with callbacks a tick late (as Node calls them), never more than one piece is queued', () => {
    // the target: pieces go out at once while `room` lasts, then queue; every callback comes on a later tick
    const ticks: Array<() => void> = []
    const queue: Array<string> = []
    const sent: Array<string> = []
    let room = 3
    const t = {
      get backlog(): number {
        return queue.reduce((n, p) => n + p.length, 0)
      },
      write(piece: string, done: () => void): void {
        if (room > 0 && queue.length === 0) {
          room--
          sent.push(piece)
          ticks.push(done)
        } else {
          queue.push(piece)
          // leaves when the reader makes room
          drainers.push(() => {
            queue.splice(queue.indexOf(piece), 1)
            sent.push(piece)
            done()
          })
        }
      },
    }
    const drainers: Array<() => void> = []
    const clock = manual()
    const out = new GatheredOutput(t, 10, clock.later)
    const writes = Array.from({ length: 12 }, (_, i) => `line${String(i).padStart(2, '0')}\n`)
    for (const w of writes) out.write(w)
    clock.turn()
    let maxQueued = queue.length
    for (let step = 0; step < 50 && !(out.idle && ticks.length === 0 && drainers.length === 0); step++) {
      for (const f of ticks.splice(0)) f()
      maxQueued = Math.max(maxQueued, queue.length)
      const d = drainers.shift()
      if (d !== undefined) d()
      maxQueued = Math.max(maxQueued, queue.length)
    }
    expect(maxQueued).toBe(1)
    expect(sent.join('')).toBe(writes.join(''))
  })

  it('a write longer than a piece is split between its lines; a longer single line goes alone', () => {
    const { t, pieces } = target()
    const clock = manual()
    const out = new GatheredOutput(t, 12, clock.later)
    out.write('aaaa\nbbbb\ncccc\n' + 'x'.repeat(30) + '\nyy\n')
    clock.turn()
    expect(pieces).toStrictEqual(['aaaa\nbbbb\n', 'cccc\n', `${'x'.repeat(30)}\n`, 'yy\n'])
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

  it('an aside runs only once the writes before it have left; at once when nothing waits; stop runs the rest', () => {
    const { t, pieces } = target()
    const clock = manual()
    const out = new GatheredOutput(t, 10, clock.later)
    const log: Array<string> = []
    out.aside(() => log.push(`note 0 after ${pieces.length}`))
    expect(log).toStrictEqual(['note 0 after 0'])
    t.stalled = true
    for (const w of ['aaaa\n', 'bbbb\n', 'cccc\n']) out.write(w)
    out.aside(() => log.push(`note 1 after ${pieces.length}`))
    out.write('dddd\n')
    out.aside(() => log.push(`note 2 after ${pieces.length}`))
    // the first piece is queued in the target: neither note may pass it
    expect(pieces).toStrictEqual(['aaaa\nbbbb\n'])
    expect(log).toStrictEqual(['note 0 after 0'])
    t.release()
    // then 'cccc', note 1, 'dddd' (a piece of its own: the note stands between), note 2
    expect(pieces).toStrictEqual(['aaaa\nbbbb\n', 'cccc\n', 'dddd\n'])
    expect(log).toStrictEqual(['note 0 after 0', 'note 1 after 2', 'note 2 after 3'])
    t.stalled = true
    out.write('eeee\n')
    out.write('ffff\n')
    clock.turn()
    out.aside(() => log.push('note 3'))
    expect(log).toHaveLength(3)
    // the reader has gone (or the process ends): the writes are dropped, the note still runs
    out.stop()
    expect(log).toHaveLength(4)
    expect(log[3]).toBe('note 3')
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
  it.each([
    ['reads nothing until', ''],
    // once the pipe has filled: the room it makes is what the writer's queued output goes into
    ['reads a block after a second, then stalls until', 'sleep 1; dd bs=20000 count=1 status=none <&3 > "$OUT"; '],
  ])('replay --json into a reader that %s the writer has been ended by SIGINT: whole lines only', async (_what, first) => {
    // the reader: a shell that opens a FIFO at once, and reads (the rest of) it only after the writer has ended
    const dir = mkdtempSync(join(tmpdir(), 'run-outcome-gather-stall-'))
    const fifo = join(dir, 'fifo')
    const outFile = join(dir, 'out')
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
    const reader = spawn('sh', ['-c', `exec 3<"${fifo}"; ${first}sleep 9; cat <&3 >> "$OUT"`], { stdio: 'ignore', env: { ...process.env, OUT: outFile } })
    const fd = openSync(fifo, 'w')
    const input = Array.from({ length: 400 }, (_, i) => nativeRun(i, `answer ${i} `.repeat(40))).join('')
    const child = spawn(process.execPath, [binPath, 'replay', '--json', '--format', 'native', '-'], { cwd: repoRoot, env, stdio: ['pipe', fd, 'pipe'] })
    closeSync(fd)
    child.stdin?.end(input)
    await new Promise((resolve) => setTimeout(resolve, 2000))
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

  // the first version flushed before a note but wrote the note at once: with the pipe full (the reader behind),
  // the note went ahead of the runs still queued in the process (found by `events DIR 2>&1 | cat`)
  it('2>&1 into a reader that is behind: a note still comes after every run written before it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'run-outcome-gather-behind-'))
    const many = 300
    writeFileSync(join(dir, 'a.jsonl'), Array.from({ length: many }, (_, i) => nativeRun(i, `answer ${i} `.repeat(40))).join(''))
    writeFileSync(join(dir, 'b.txt'), 'not a log at all\n')
    writeFileSync(join(dir, 'c.jsonl'), nativeRun(1, 'last'))
    const child = spawn('sh', ['-c', `"${process.execPath}" "${binPath}" replay --json "${dir}" 2>&1 | (sleep 1; cat)`], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString()
    })
    await exited(child, 30_000)
    const lines = out.trim().split('\n')
    // more than the pipe holds came before the note
    expect(lines.slice(0, many).join('\n').length).toBeGreaterThan(64 * 1024)
    expect(lines.map((l) => (l.startsWith('{') ? (JSON.parse(l) as { response: string }).response : l.replace(dir, 'DIR')))).toStrictEqual([
      ...Array.from({ length: many }, (_, i) => `answer ${i} `.repeat(40)),
      'run-outcome replay: skipped DIR/b.txt: format not recognised',
      'last',
    ])
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
