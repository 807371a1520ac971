/**
 * Files read through one `ReadBuffer` (src/node/fileChunks.ts): every chunk lands in the same buffer, so whatever
 * the replay keeps of a chunk past its next read (a line cut by the chunk's end, the head it sniffs, a document's
 * pieces, a gzip stream's input) must be copied first (src/io/reusedChunks.ts). The results are compared with a
 * replay of the same bytes in fresh buffers, over every corpus log of the line formats and documents, with chunks
 * from 7 bytes up, one file after another through one buffer.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { mayBeOverwritten } from '../../src/io/reusedChunks.js'
import { fileChunks, ReadBuffer } from '../../src/node/fileChunks.js'
import { replayStream } from '../../src/node/replay.js'

const FIXTURES = join(import.meta.dirname, '..', 'fixtures')
const walk = (d: string): Array<string> =>
  readdirSync(d)
    .sort()
    .flatMap((n) => {
      const p = join(d, n)
      return statSync(p).isDirectory() ? walk(p) : /\.(jsonl|json)$/.test(n) ? [p] : []
    })
const LOGS = walk(FIXTURES).filter((f) => !f.includes('/hostile/') && statSync(f).size < 2_000_000)

/** A replay of `source` as JSON: runs, outcome and notes, or the rejection. */
const replayJson = async (source: AsyncIterable<Uint8Array>, file: string): Promise<string> => {
  const runs: Array<unknown> = []
  try {
    const outcome = await replayStream(source, (r) => runs.push(r), { file })
    return JSON.stringify({ runs, outcome })
  } catch (e) {
    return JSON.stringify({ runs, rejected: e instanceof Error ? `${e.name}: ${e.message}` : String(e) })
  }
}

const once = async function* (bytes: Buffer): AsyncGenerator<Buffer> {
  yield Buffer.from(bytes)
}

describe('files read through one ReadBuffer', () => {
  it('give the results of a replay in fresh buffers, whatever the chunk size, one file after another', async () => {
    const shared = new ReadBuffer()
    let compared = 0
    for (const chunkBytes of [7, 113, 4096, 65_536]) {
      // the smallest chunks over the small logs only (a chunk of 7 bytes is one read per 7 bytes)
      for (const file of LOGS.filter((f) => statSync(f).size <= chunkBytes * 5_000)) {
        const want = await replayJson(once(readFileSync(file)), file)
        const got = await replayJson(fileChunks(file, { chunkBytes, reuse: shared }), file)
        expect(got, `${file} in chunks of ${chunkBytes}`).toBe(want)
        compared++
      }
    }
    expect(compared).toBeGreaterThan(150)
  }, 60_000)

  it('a gzip file, a blank start and a last line without a newline read the same through it', async () => {
    const d = mkdtempSync(join(tmpdir(), 'run-outcome-readbuffer-'))
    const rollout = readFileSync(join(FIXTURES, 'codex-rollout/small.jsonl'))
    const files: Array<[string, Buffer]> = [
      ['r.jsonl.gz', gzipSync(rollout)],
      ['blank.jsonl', Buffer.concat([Buffer.from('\n\n  \r\n'.repeat(50)), rollout])],
      ['cut.jsonl', rollout.subarray(0, rollout.length - 1)],
    ]
    const shared = new ReadBuffer()
    for (const [name, bytes] of files) {
      const path = join(d, name)
      writeFileSync(path, bytes)
      const fresh = await replayJson(fileChunks(path, { chunkBytes: 1000 }), path)
      expect(await replayJson(fileChunks(path, { chunkBytes: 1000, reuse: shared }), path), name).toBe(fresh)
    }
  })

  it('only chunks the next read overwrites are registered: not the last chunk of a file', async () => {
    const d = mkdtempSync(join(tmpdir(), 'run-outcome-readbuffer-'))
    const path = join(d, 'a.jsonl')
    writeFileSync(path, Buffer.alloc(2500, 0x61))
    const shared = new ReadBuffer()
    const marks: Array<boolean> = []
    const buffers = new Set<ArrayBufferLike>()
    for await (const c of fileChunks(path, { chunkBytes: 1000, reuse: shared })) {
      marks.push(mayBeOverwritten(c))
      buffers.add(c.buffer)
    }
    expect(marks).toStrictEqual([true, true, false])
    expect(buffers.size).toBe(1)
    // a second reading at once (the buffer is held) reads into fresh buffers
    const a = fileChunks(path, { chunkBytes: 1000, reuse: shared })
    const first = await a.next()
    const b = fileChunks(path, { chunkBytes: 1000, reuse: shared })
    const other = await b.next()
    expect(first.value?.buffer).toBe(shared.bytes?.buffer)
    expect(other.value?.buffer).not.toBe(shared.bytes?.buffer)
    expect(mayBeOverwritten(other.value as Buffer)).toBe(false)
    await a.return(undefined)
    await b.return(undefined)
  })
})
