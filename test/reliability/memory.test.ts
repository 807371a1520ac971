/**
 * Bounded memory as real processes (issue 14), inputs generated at test time and streamed to the CLI, never
 * committed or held whole by the test: a line at the line cap (64 MiB of text, or 1,000,000 JSON values of the
 * costliest kind) is read with peak RSS ≤ 512 MB; a longer one is skipped with a note naming its line and size;
 * `watch` stays flat however much it reads (it used to keep every chunk).
 *
 * Peak RSS is measured with the heap capped at 512 MB, as the 50 MB-line tests of `hostile.test.ts` do: the
 * process must fit in it, not merely finish (without a cap V8 collects later, and the same runs peak at up to
 * ~650 MiB; docs/reliability.md).
 */
import { createGzip } from 'node:zlib'
import { Readable } from 'node:stream'
import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync, appendFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LINE_CAP_TEXT, MAX_LINE_BYTES, MAX_LINE_VALUES } from '../../src/io/lines.js'
import { binPath, repoRoot } from '../support/cli.js'
import { MAXRSS_PRELOAD, takeMaxRss } from './support/cliCheck.js'
import { figure } from './support/runs.js'
import { repeat, spawnStreamed } from './support/spawnStream.js'

const MiB = 1024 * 1024
const HEAP = ['--max-old-space-size=512']
const LIMIT_MIB = 512 / 1.048576 // 512 MB
// Two 63 MiB lines in one run hold more at once (the first answer is kept while the second line is joined, decoded
// and parsed), and when V8 frees the joined line's bytes depends on when its collector runs: measured 457–471 MiB
// in most runs and 596–597 MiB in about one run in eight (2026-12-01, 30 runs, with the old reader too), so this
// case is held to the bound it keeps every time, the same as with the default heap (644 MiB).
const TWO_LINES_LIMIT_MIB = 660
const j = (o: unknown): string => JSON.stringify(o)
const turnStart = `${j({ type: 'turn/start', sessionId: 's', data: { turn: 1 } })}\n`
const turnEnd = `${j({ type: 'turn/end', sessionId: 's', data: { turn: 1, reason: { kind: 'completed' } } })}\n`

/** `bytes` of `a`, in 1 MiB pieces. */
function* letters(bytes: number, c = 'a'): Generator<string> {
  const piece = c.repeat(MiB)
  for (let left = bytes; left > 0; left -= MiB) yield left >= MiB ? piece : c.repeat(left)
}

/** A native line whose `data.junk` object holds `keys` distinct keys with number values (≈ 200 bytes each once parsed). */
function* manyValues(keys: number): Generator<string> {
  yield '{"type":"assistant/message","sessionId":"s","data":{"message":{"content":[{"type":"text","text":"x"}]},"junk":{'
  let buf = ''
  for (let i = 0; i < keys; i++) {
    buf += `"k${i}":1.5,`
    if (buf.length > 65536) {
      yield buf
      buf = ''
    }
  }
  yield `${buf}"z":0}}}\n`
}

/** The bytes of a generated line, without its newline. */
const sizeOf = (chunks: Iterable<string>): number => {
  let n = 0
  for (const c of chunks) n += Buffer.byteLength(c)
  return n - 1
}

const figures: Array<string> = []

describe('the line cap', () => {
  it(`a native line of ${MAX_LINE_BYTES / MiB} MiB (the cap) is read whole under --format auto, peak RSS ≤ 512 MB`, async () => {
    const text = MAX_LINE_BYTES - 1024
    const r = await spawnStreamed(
      ['replay', '--json', '-'],
      (function* () {
        yield turnStart
        yield '{"type":"assistant/message","sessionId":"s","data":{"message":{"content":[{"type":"text","text":"'
        yield* letters(text)
        yield '"}]}}}\n'
        yield turnEnd
      })(),
      HEAP,
      4096,
    )
    figures.push(`native line at the byte cap ${Math.round(r.mib)} MiB`)
    expect([r.code, r.signal, r.stderr]).toStrictEqual([0, null, ''])
    expect(r.stdout.startsWith('{"format":"native","sessionId":"s","ending":{"kind":"answered"}')).toBe(true)
    expect(r.mib).toBeLessThan(LIMIT_MIB)
  })

  it('Claude Code stream-json: an answer and a result text of 63 MiB each in one run, peak RSS ≤ 660 MiB (usually ~470)', async () => {
    const text = MAX_LINE_BYTES - 1024 * 1024
    const r = await spawnStreamed(
      ['replay', '--json', '-'],
      (function* () {
        yield `${j({ type: 'system', subtype: 'init', session_id: 'c', model: 'claude-x', tools: [] })}\n`
        yield '{"type":"assistant","session_id":"c","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"'
        yield* letters(text)
        yield '"}],"usage":{"input_tokens":1,"output_tokens":1}}}\n{"type":"result","subtype":"success","is_error":false,"session_id":"c","result":"'
        yield* letters(text)
        yield '","num_turns":1,"total_cost_usd":0.01}\n'
      })(),
      HEAP,
      4096,
    )
    figures.push(`Claude Code run of two lines at the byte cap ${Math.round(r.mib)} MiB`)
    expect([r.code, r.signal]).toStrictEqual([0, null])
    expect(r.stdout.startsWith('{"format":"claude-code","sessionId":"c","ending":{"kind":"answered"}')).toBe(true)
    expect(r.mib).toBeLessThan(TWO_LINES_LIMIT_MIB)
  })

  it(`a line of just under ${MAX_LINE_VALUES.toLocaleString('en-US')} JSON values (distinct keys) is read, peak RSS ≤ 512 MB`, async () => {
    const r = await spawnStreamed(
      ['replay', '--json', '-'],
      (function* () {
        yield turnStart
        yield* manyValues(MAX_LINE_VALUES - 100)
        yield turnEnd
      })(),
      HEAP,
      4096,
    )
    figures.push(`line at the value cap ${Math.round(r.mib)} MiB`)
    expect([r.code, r.signal, r.stderr]).toStrictEqual([0, null, ''])
    expect(JSON.parse(r.stdout.split('\n')[0] as string).response).toBe('x')
    expect(r.mib).toBeLessThan(LIMIT_MIB)
  })

  it('a line over either cap is skipped, never parsed, with a note naming its line and size; the run reads on', async () => {
    const overValues = await spawnStreamed(
      ['replay', '--json', '-'],
      (function* () {
        yield turnStart
        yield* manyValues(MAX_LINE_VALUES + 100)
        yield turnEnd
      })(),
      HEAP,
      4096,
    )
    expect([overValues.code, JSON.parse(overValues.stdout.split('\n')[0] as string).ending]).toStrictEqual([0, { kind: 'answered' }])
    expect(overValues.stderr).toBe(
      `run-outcome replay: -: line 2: skipped a line of ${sizeOf(manyValues(MAX_LINE_VALUES + 100)).toLocaleString('en-US')} bytes holding over ${MAX_LINE_VALUES.toLocaleString('en-US')} JSON values (over the line cap of ${LINE_CAP_TEXT})\n`,
    )
    const bytes = MAX_LINE_BYTES + 5 * MiB
    const long = function* (): Generator<string> {
      yield '{"type":"assistant/message","sessionId":"s","data":{"message":{"content":[{"type":"text","text":"'
      yield* letters(bytes)
      yield '"}]}}}\n'
    }
    const overBytes = await spawnStreamed(
      ['replay', '--json', '--format', 'native', '-'],
      (function* () {
        yield turnStart
        yield* long()
        yield turnEnd
      })(),
      HEAP,
      4096,
    )
    expect([overBytes.code, JSON.parse(overBytes.stdout.split('\n')[0] as string).ending]).toStrictEqual([0, { kind: 'answered' }])
    expect(overBytes.stderr).toBe(
      `run-outcome replay: -: line 2: skipped a line of ${sizeOf(long()).toLocaleString('en-US')} bytes (over the line cap of ${LINE_CAP_TEXT})\n`,
    )
    figures.push(`over the value cap ${Math.round(overValues.mib)} MiB, over the byte cap ${Math.round(overBytes.mib)} MiB`)
    // a skipped line is never kept or parsed
    expect(overValues.mib).toBeLessThan(200)
    expect(overBytes.mib).toBeLessThan(200)
  })

  it('one gzipped line of a 25,000,000-element array (≈ 50 KB on disk): skipped by replay and stats alike, memory flat', async () => {
    const line = function* (): Generator<string> {
      yield '{"type":"user/message","sessionId":"s","data":{"message":"hi","junk":['
      yield* repeat('0,'.repeat(MiB / 2), 50)
      yield '0]}}\n'
    }
    const gz = async function* (): AsyncGenerator<Buffer> {
      const src = Readable.from(
        (function* () {
          yield turnStart
          yield* line()
          yield `${j({ type: 'assistant/message', sessionId: 's', data: { message: { content: [{ type: 'text', text: 'ok' }] } } })}\n`
          yield turnEnd
        })(),
      )
      for await (const c of src.pipe(createGzip())) yield c as Buffer
    }
    const replay = await spawnStreamed(['replay', '--json', '-'], gz(), [], 4096)
    expect([replay.code, JSON.parse(replay.stdout.split('\n')[0] as string).response]).toStrictEqual([0, 'ok'])
    expect(replay.stderr).toContain(`line 2: skipped a line of ${sizeOf(line()).toLocaleString('en-US')} bytes holding over 1,000,000 JSON values`)
    const stats = await spawnStreamed(['stats', '--json', '-'], gz(), [], 1 << 16)
    figures.push(`25M-element line: replay ${Math.round(replay.mib)} MiB, stats ${Math.round(stats.mib)} MiB (no heap cap)`)
    expect(stats.code).toBe(0)
    expect(replay.mib).toBeLessThan(200)
    expect(stats.mib).toBeLessThan(300)
  })
})

describe('watch stays flat', () => {
  const RUN_EVENTS = 5_000
  const chunk = `${j({ type: 'assistant/chunk', sessionId: 's', data: { turn: 1, step: 1, chunk: 'x'.repeat(150) } })}\n`
  const run = `${turnStart}${chunk.repeat(RUN_EVENTS)}${turnEnd}${j({ type: 'session/status', sessionId: 's', data: { status: 'idle' } })}\n`
  const runs = Math.ceil((300 * MiB) / run.length)

  it(`a pipe of ${Math.round((runs * run.length) / MiB)} MB: every run printed, peak RSS flat`, async () => {
    const r = await spawnStreamed(['watch', '--json'], repeat(run, runs), [], 1 << 24)
    const lines = r.stdout.trim().split('\n')
    figures.push(`watch, ${Math.round((runs * run.length) / MiB)} MB piped: ${Math.round(r.mib)} MiB`)
    expect([r.code, lines.length, JSON.parse(lines[0] as string).ending]).toStrictEqual([0, runs, { kind: 'answered' }])
    expect(r.mib).toBeLessThan(150)
  })

  it('a followed file of 200 MB: every run printed, then Ctrl-C; peak RSS flat', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'run-outcome-follow-'))
    const file = join(dir, 'live.jsonl')
    writeFileSync(file, '')
    const n = Math.ceil((200 * MiB) / run.length)
    for (let i = 0; i < n; i++) appendFileSync(file, run)
    const child = spawn(process.execPath, [...MAXRSS_PRELOAD, binPath, 'watch', '--json', '--poll', '20', file], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let lines = 0
    let err = ''
    child.stdout.on('data', (b: Buffer) => {
      for (const c of b) if (c === 10) lines++
    })
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString()
    })
    const closed = new Promise<number | null>((res) => child.on('close', (code) => res(code)))
    for (const deadline = Date.now() + 60_000; lines < n && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50))
    child.kill('SIGINT')
    const code = await closed
    const { mib } = takeMaxRss(err)
    figures.push(`watch, 200 MB followed: ${Math.round(mib)} MiB`)
    expect([code, lines]).toStrictEqual([0, n])
    expect(mib).toBeLessThan(150)
    figure(`memory (peak RSS, heap capped at 512 MB where noted in the test): ${figures.join('; ')}`)
  })
})
