/**
 * `replayRuns`: the streaming library API. The runs it yields equal `replayFile`'s (endings, token counts, line
 * spans), the input is read only as far as the caller has taken runs (a count of bytes read, not a timing), and
 * leaving the loop early closes the input.
 */
import { createReadStream, existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough, Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { ProtocolError } from '../../src/core/ProtocolError.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { ReplayError, replayFile, replayRuns } from '../../src/node/replay.js'

const root = join(import.meta.dirname, '..', '..')
const example = join(root, 'examples', 'native', 'session.jsonl')
const dir = mkdtempSync(join(tmpdir(), 'replay-runs-'))

const collect = async (it: AsyncIterable<RunResult>): Promise<Array<RunResult>> => {
  const out: Array<RunResult> = []
  for await (const r of it) out.push(r)
  return out
}

/** A native log of `runs` runs of 4 lines each; run i (from 0) uses 100 + i input and 10 + i output tokens. */
const nativeLog = (runs: number): { text: string; lineEnds: Array<number> } => {
  const lines: Array<string> = []
  const pad = 'x'.repeat(200)
  const s = 'root'
  for (let i = 0; i < runs; i++) {
    lines.push(JSON.stringify({ type: 'turn/start', sessionId: s, seq: 4 * i, data: { turn: 1 } }))
    lines.push(
      JSON.stringify({
        type: 'assistant/message',
        sessionId: s,
        seq: 4 * i + 1,
        data: { turn: 1, step: 1, message: { content: [{ type: 'text', text: `${i} ${pad}` }] }, usage: { inputTokens: 100 + i, outputTokens: 10 + i } },
      }),
    )
    lines.push(JSON.stringify({ type: 'turn/end', sessionId: s, seq: 4 * i + 2, data: { turn: 1, reason: { kind: 'completed' } } }))
    lines.push(JSON.stringify({ type: 'session/status', sessionId: s, seq: 4 * i + 3, data: { status: 'idle' } }))
  }
  // byte offset just past each line's newline, by 1-based line number (index 0 unused)
  const lineEnds = [0]
  let at = 0
  for (const l of lines) {
    at += Buffer.byteLength(l) + 1
    lineEnds.push(at)
  }
  return { text: `${lines.join('\n')}\n`, lineEnds }
}

const big = nativeLog(3000)
const bigPath = join(dir, 'big.jsonl')
writeFileSync(bigPath, big.text)

describe('replayRuns', () => {
  it('yields the runs of a native log with their endings, tokens and lines, as replayFile does', async () => {
    const runs = await collect(replayRuns(example))
    expect(runs.map((r) => r.ending)).toEqual([{ kind: 'answered' }, { kind: 'cut_off', finishReason: 'max_tokens' }])
    expect(runs.map((r) => [r.usage.inputTokens, r.usage.outputTokens, r.usage.cacheReadTokens])).toEqual([
      [1700, 62, 2100],
      [250, 4096, 1500],
    ])
    expect(runs.map((r) => r.source)).toEqual([
      { file: example, firstLine: 1, lastLine: 13 },
      { file: example, firstLine: 14, lastLine: 18 },
    ])
    expect(runs).toEqual(await replayFile(example))
  })

  it('reads a byte stream (here gzip-free chunks of 7 bytes) to the same runs, labelled by options.file', async () => {
    const bytes = Buffer.from(big.text.split('\n').slice(0, 40).join('\n'))
    const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7))
    const runs = await collect(replayRuns(Readable.from(chunks), { file: 'piped' }))
    expect(runs.length).toBe(10)
    expect(runs.map((r) => r.usage.inputTokens)).toEqual([100, 101, 102, 103, 104, 105, 106, 107, 108, 109])
    expect(runs[9]?.source).toEqual({ file: 'piped', firstLine: 37, lastLine: 40 })
    expect(runs.every((r) => r.ending.kind === 'answered')).toBe(true)
  })

  it('reads the input only as far as the runs the caller took (at most two 256 KiB chunks ahead)', async () => {
    const stream = createReadStream(bigPath, { highWaterMark: 256 * 1024 })
    let most = 0
    let n = 0
    for await (const r of replayRuns(stream, { file: bigPath })) {
      const consumed = big.lineEnds[r.source?.lastLine ?? 0] as number
      most = Math.max(most, stream.bytesRead - consumed)
      n++
    }
    expect(n).toBe(3000)
    expect(big.text.length).toBeGreaterThan(4 * 256 * 1024)
    expect(most).toBeLessThanOrEqual(2 * 256 * 1024)
  })

  it('closes a stream it was given when the caller breaks off, having read only its first chunks', async () => {
    const stream = createReadStream(bigPath, { highWaterMark: 256 * 1024 })
    const closed = new Promise<boolean>((res) => stream.once('close', () => res(true)))
    const taken: Array<number> = []
    for await (const r of replayRuns(stream)) {
      taken.push(r.usage.outputTokens)
      if (taken.length === 2) break
    }
    expect(taken).toEqual([10, 11])
    expect(stream.destroyed).toBe(true)
    expect(await closed).toBe(true)
    expect(stream.bytesRead).toBeLessThan(big.text.length)
  })

  it('leaves at once when the caller breaks off while a live stream is quiet (a read in flight)', async () => {
    // two whole runs written (a reader hands out a run once the next one starts), then the writer stays open and
    // silent, as a live agent between turns
    const live = new PassThrough()
    live.write(`${big.text.split('\n').slice(0, 8).join('\n')}\n`)
    const taken: Array<number> = []
    for await (const r of replayRuns(live)) {
      taken.push(r.usage.inputTokens)
      break
    }
    expect(taken).toEqual([100])
    expect(live.destroyed).toBe(true)
  })

  it('leaves at once when the caller throws while an async iterable it was given never answers', async () => {
    let returned = false
    const quiet = async function* (): AsyncGenerator<string> {
      try {
        yield `${big.text.split('\n').slice(0, 8).join('\n')}\n`
        await new Promise<never>(() => {})
      } finally {
        returned = true
      }
    }
    const seen: Array<number> = []
    await expect(
      (async () => {
        for await (const r of replayRuns(quiet())) {
          seen.push(r.usage.outputTokens)
          throw new Error('caller gave up')
        }
      })(),
    ).rejects.toThrow('caller gave up')
    expect(seen).toEqual([10])
    // the generator is parked in an await that never settles: its return() is queued behind it, so not run yet
    expect(returned).toBe(false)
  })

  it.skipIf(!existsSync('/proc/self/fd'))('closes the file it opened when the caller breaks off', async () => {
    const fds = (): number => readdirSync('/proc/self/fd').length
    const before = fds()
    let first: RunResult | undefined
    for await (const r of replayRuns(bigPath)) {
      first = r
      break
    }
    expect(first?.usage.inputTokens).toBe(100)
    expect(first?.source).toEqual({ file: bigPath, firstLine: 1, lastLine: 4 })
    expect(fds()).toBe(before)
  })

  it('yields the runs before a malformed native line, then throws its ProtocolError with the line', async () => {
    // a recorded log hands a run out when the next begins: the run of lines 5–8 is still open at line 9
    const p = join(dir, 'bad.jsonl')
    writeFileSync(p, `${big.text.split('\n').slice(0, 8).join('\n')}\n{"type":"turn/end","sessionId":"root","data":{}}\n`)
    const got: Array<number> = []
    let error: unknown
    try {
      for await (const r of replayRuns(p)) got.push(r.usage.inputTokens)
    } catch (e) {
      error = e
    }
    expect(got).toEqual([100])
    expect(error).toBeInstanceOf(ProtocolError)
    expect(error).toMatchObject({ kind: 'turn-end', line: 9, path: 'reason', file: p })
  })

  it('throws ReplayError undetected for text that is no log, and ENOENT for a missing file', async () => {
    const p = join(dir, 'notes.txt')
    writeFileSync(p, 'just some words\nand more words\n')
    await expect(collect(replayRuns(p))).rejects.toSatisfy((e) => e instanceof ReplayError && e.code === 'undetected')
    await expect(collect(replayRuns(join(dir, 'missing.jsonl')))).rejects.toMatchObject({ code: 'ENOENT' })
    await expect(collect(replayRuns(example, { format: 'nope' }))).rejects.toMatchObject({ name: 'ReplayError', code: 'unknown-format' })
  })

  it('attaches a Claude Code session’s subagent files, as replayFile does', async () => {
    const session = join(root, 'test', 'fixtures', 'homes', 'basic', '.claude', 'projects', '-path-to-Demo', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl')
    const runs = await collect(replayRuns(session))
    expect(runs).toEqual(await replayFile(session))
    expect(runs.flatMap((r) => r.children).length).toBeGreaterThan(0)
  })
})
