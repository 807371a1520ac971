/**
 * Reading files with synchronous reads (src/node/fileChunks.ts), and the replay parsing each line once (the head
 * it sniffs is handed to the reader as parsed values): the bytes and results are those of a stream.
 */
import { execFileSync, spawn } from 'node:child_process'
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { projectOf } from '../../src/cli/stats/records.js'
import { fileChunks } from '../../src/node/fileChunks.js'
import { replayStream } from '../../src/node/replay.js'

const fixtures = new URL('../fixtures/', import.meta.url).pathname
const dir = (): string => mkdtempSync(join(tmpdir(), 'run-outcome-chunks-'))
const collect = async (it: AsyncIterable<Buffer>): Promise<Array<Buffer>> => {
  const out: Array<Buffer> = []
  for await (const c of it) out.push(c)
  return out
}
const openFds = (): number => readdirSync('/proc/self/fd').length

describe('fileChunks', () => {
  it('gives the file bytes exactly, in chunks of at most chunkBytes', async () => {
    const f = join(dir(), 'a.jsonl')
    const bytes = Buffer.from(Array.from({ length: 10_000 }, (_, i) => `{"i":${i}}\n`).join(''))
    writeFileSync(f, bytes)
    const chunks = await collect(fileChunks(f, { chunkBytes: 4096 }))
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true)
    expect(chunks.every((c) => c.length <= 4096)).toBe(true)
    expect(chunks.length).toBe(Math.ceil(bytes.length / 4096))
    // one chunk when the file fits
    expect((await collect(fileChunks(f))).length).toBe(1)
  })

  it('an empty file gives no chunk; a file that grows while read is read to its new end', async () => {
    const f = join(dir(), 'e.jsonl')
    writeFileSync(f, '')
    expect(await collect(fileChunks(f))).toStrictEqual([])
    writeFileSync(f, 'x'.repeat(100))
    const out: Array<Buffer> = []
    for await (const c of fileChunks(f, { chunkBytes: 64 })) {
      if (out.length === 0) appendFileSync(f, 'y'.repeat(70_000))
      out.push(c)
    }
    expect(Buffer.concat(out).toString()).toBe('x'.repeat(100) + 'y'.repeat(70_000))
  })

  it('throws the file system error: ENOENT, EISDIR', async () => {
    await expect(collect(fileChunks(join(dir(), 'missing.jsonl')))).rejects.toMatchObject({ code: 'ENOENT' })
    await expect(collect(fileChunks(dir()))).rejects.toMatchObject({ code: 'EISDIR' })
  })

  it('closes the file when the loop is left early or fails', async () => {
    const f = join(dir(), 'b.jsonl')
    writeFileSync(f, 'z'.repeat(100_000))
    const before = openFds()
    for await (const _ of fileChunks(f, { chunkBytes: 1000 })) break
    await collect(fileChunks(dir())).catch(() => undefined)
    expect(openFds()).toBe(before)
  })

  it('reads a FIFO as a stream, without blocking the thread on open', async () => {
    const d = dir()
    const fifo = join(d, 'pipe')
    execFileSync('mkfifo', [fifo])
    const reading = collect(fileChunks(fifo))
    // the writer comes after the reader has opened: a blocking open would hold this thread, and no writer would come
    const writer = spawn('sh', ['-c', `sleep 0.2; printf '{"a":1}\\n' > '${fifo}'`], { stdio: 'ignore' })
    await new Promise((res) => writer.on('exit', res))
    expect(Buffer.concat(await reading).toString()).toBe('{"a":1}\n')
  })

  // read through createReadStream, the read waited in a thread-pool thread for the writer, and neither return()
  // nor the process's end could stop it until the writer wrote or closed
  it('return() while a read of a FIFO waits on a quiet writer ends that read at once', async () => {
    const d = dir()
    const fifo = join(d, 'pipe')
    execFileSync('mkfifo', [fifo])
    const it = fileChunks(fifo)
    const first = it.next()
    const writer = spawn('sh', ['-c', `exec 3>'${fifo}'; printf 'one\\n' >&3; exec sleep 600`], { stdio: 'ignore' })
    try {
      expect((await first).value?.toString()).toBe('one\n')
      const waiting = it.next()
      const quiet = new Promise<'still waiting'>((resolve) => setTimeout(resolve, 20_000, 'still waiting'))
      expect(await Promise.race([it.return(undefined), quiet])).toStrictEqual({ done: true, value: undefined })
      expect(await waiting).toStrictEqual({ done: true, value: undefined })
      // the writer still holds the FIFO open: nothing but return() ended the read
      expect(writer.exitCode).toBe(null)
      expect(await it.next()).toStrictEqual({ done: true, value: undefined })
    } finally {
      writer.kill()
    }
  })
})

describe('the replay parses each line once', () => {
  afterEach(() => vi.restoreAllMocks())

  it('a native log of 30 lines: 30 JSON.parse calls, though the first 20 were parsed to detect the format', async () => {
    const ev = (seq: number, type: string, data: unknown): string => JSON.stringify({ type, sessionId: 's', seq, time: 1796029200000 + seq, data })
    const lines = [
      ev(0, 'turn/start', { turn: 1 }),
      ev(1, 'step/start', { turn: 1, step: 1 }),
      ...Array.from({ length: 26 }, (_, i) => ev(2 + i, 'assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', text: `t${i} ` } })),
      ev(28, 'step/end', { turn: 1, step: 1 }),
      ev(29, 'turn/end', { turn: 1, reason: { kind: 'completed' } }),
    ]
    const parse = vi.spyOn(JSON, 'parse')
    const runs: Array<{ ending: { kind: string }; response: string | null }> = []
    const outcome = await replayStream(
      (async function* () {
        yield Buffer.from(`${lines.join('\n')}\n`)
      })(),
      (r) => runs.push(r as never),
    )
    expect(outcome.format).toBe('native')
    expect(parse).toHaveBeenCalledTimes(30)
    expect(runs.map((r) => r.ending.kind)).toStrictEqual(['answered'])
    expect((runs[0] as unknown as { turns: number }).turns).toBe(1)
  })
})

describe('projectOf from the bytes already read', () => {
  it('equals reading the file again, for every transcript and rollout fixture and any first-chunk size', async () => {
    const files = (readdirSync(fixtures, { recursive: true }) as Array<string>).filter((f) => f.endsWith('.jsonl')).map((f) => join(fixtures, f))
    let compared = 0
    for (const file of files) {
      const bytes = readFileSync(file)
      for (const format of ['claude-code', 'codex']) {
        const expected = await projectOf(file, format)
        for (const cut of [bytes.length, 1, 100, 4096, 65_536, 300_000, 1_048_576]) {
          const head = { bytes: bytes.subarray(0, Math.min(cut, bytes.length)), whole: cut >= bytes.length }
          expect(await projectOf(file, format, head)).toBe(expected)
          compared++
        }
      }
    }
    expect(compared).toBeGreaterThan(500)
  })
})
