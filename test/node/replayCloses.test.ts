/**
 * A replay that stops before its input's end closes the input (src/node/replay.ts `ReplayInput`). It used to leave
 * the source's iterator suspended when it rejected after reading the head (an undetected format, a document over
 * the cap, a file that is not JSON, an `onRun` that throws): a file read with `fileChunks` or `createReadStream`
 * then stayed open until the process ended — one descriptor per such file of a folder, and `stats` of a tree with
 * a few thousand of them ran out of descriptors (EMFILE) on a system with a limit of 1,024 or 256.
 */
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { fileChunks } from '../../src/node/fileChunks.js'
import { ReplayError, replayStream } from '../../src/node/replay.js'
import type { RunResult } from '../../src/core/RunResult.js'

const dir = mkdtempSync(join(tmpdir(), 'run-outcome-closes-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// 2,000 lines of ~1 KB: far past the head the replay reads before it decides (256 KiB, 20 lines)
const lines = (line: string, n = 2000): string => `${line}\n`.repeat(n)
const big = `"${'x'.repeat(1000)}"`
const write = (name: string, text: string | Buffer): string => {
  const p = join(dir, name)
  writeFileSync(p, text)
  return p
}

const undetected = write('undetected.jsonl', lines(`{"hello":${big}}`))
const undetectedGz = write('undetected.jsonl.gz', gzipSync(lines(`{"hello":${big}}`)))
// a document over the cap given below (maxDocumentBytes)
const document = write('document.json', `[\n${Array.from({ length: 2000 }, () => `{"a":${big}}`).join(',\n')}\n]\n`)
const notJson = write('not-json.json', `{\n"a": ${big},\n${lines(`"b": ${big},`)}`)
// a native log whose 3rd line is malformed: a protocol error, the rest unread
const nativeBad = write(
  'native-bad.jsonl',
  [
    '{"type":"turn/start","sessionId":"s","data":{"turn":1}}',
    '{"type":"assistant/chunk","sessionId":"s","data":{"turn":1,"step":1,"chunk":{"type":"text-delta","text":"hi"}}}',
    '{"type":"turn/end","sessionId":"s","data":{"reason":5}}',
    lines(`{"type":"assistant/chunk","sessionId":"s","data":{"turn":1,"step":1,"chunk":{"type":"text-delta","text":${big}}}}`),
  ].join('\n'),
)
// a Claude Code transcript of many runs, for an onRun that throws at the first
const claude = write(
  'claude.jsonl',
  lines(
    [
      '{"type":"user","uuid":"u1","sessionId":"c","timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}',
      '{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"c","timestamp":"2025-01-01T00:00:01Z","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-20250514","content":[{"type":"text","text":"hello"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}}',
    ].join('\n'),
    1000,
  ),
)

/** A file read by `fileChunks`, telling whether the reading was left (its `finally`, where the file is closed, ran). */
const watched = (path: string): { source: AsyncIterable<Buffer>; closed: () => boolean; chunks: () => number } => {
  let closed = false
  let chunks = 0
  const source = (async function* () {
    try {
      for await (const c of fileChunks(path, { chunkBytes: 64 * 1024 })) {
        chunks++
        yield c
      }
    } finally {
      closed = true
    }
  })()
  return { source, closed: () => closed, chunks: () => chunks }
}

/** A case: what stops the replay, the code it rejects with, and whether it stops before the file's end. */
type Case = readonly [name: string, path: string, options: Parameters<typeof replayStream>[2], expected: string, early: boolean]
const rejecting: ReadonlyArray<Case> = [
  ['an undetected format', undetected, {}, 'undetected', true],
  // the gzip file is small (one or two chunks): read to its end or not, it is closed
  ['an undetected gzip log', undetectedGz, {}, 'undetected', false],
  ['a document over the cap', document, { maxDocumentBytes: 100_000 }, 'too-large', true],
  // a document is read whole before it is parsed
  ['a document that is not JSON', notJson, {}, 'not-json', false],
]

describe('a replay that stops early closes its input', () => {
  for (const [name, path, options, code, early] of rejecting) {
    it(`${name}: rejects with ${code}, the fileChunks source left and closed`, async () => {
      const w = watched(path)
      const e = await replayStream(w.source, () => {}, options).catch((x: unknown) => x)
      expect(e).toBeInstanceOf(ReplayError)
      expect((e as ReplayError).code).toBe(code)
      expect(w.closed()).toBe(true)
      // it stopped early: not every chunk of the ~2 MB file was read
      if (early) expect(w.chunks()).toBeLessThan(20)
    })

    it(`${name}: the createReadStream source is destroyed`, async () => {
      const stream = createReadStream(path, { highWaterMark: 64 * 1024 })
      const e = await replayStream(stream, () => {}, options).catch((x: unknown) => x)
      expect((e as ReplayError).code).toBe(code)
      expect(stream.destroyed).toBe(true)
    })
  }

  it('a protocol error resolves with the error and closes the rest of the file unread', async () => {
    const w = watched(nativeBad)
    const outcome = await replayStream(w.source, () => {})
    expect(outcome.error?.line).toBe(3)
    expect(w.closed()).toBe(true)
    expect(w.chunks()).toBeLessThan(20)
  })

  it('an onRun that throws rejects with its error and closes the file', async () => {
    const w = watched(claude)
    const boom = new Error('boom')
    const seen: Array<RunResult> = []
    const e = await replayStream(w.source, (r) => {
      seen.push(r)
      throw boom
    }).catch((x: unknown) => x)
    expect(e).toBe(boom)
    expect(seen.map((r) => r.ending.kind)).toStrictEqual(['answered'])
    expect(w.closed()).toBe(true)
  })

  it('an option error closes the stream it was given (never read)', async () => {
    const stream = createReadStream(undetected)
    await expect(replayStream(stream, () => {}, { format: 'nope' as 'native' })).rejects.toMatchObject({ code: 'unknown-format' })
    expect(stream.destroyed).toBe(true)
    const other = createReadStream(undetected)
    await expect(replayStream(other, () => {}, { maxDocumentBytes: -1 })).rejects.toMatchObject({ code: 'bad-option' })
    expect(other.destroyed).toBe(true)
  })

  it('a live source that goes quiet mid-read still rejects at once (the read in flight is not waited for)', async () => {
    let returned = false
    let reads = 0
    const quiet: AsyncIterable<Buffer> = {
      [Symbol.asyncIterator]: () => ({
        next: () => (reads++ === 0 ? Promise.resolve({ done: false, value: Buffer.from('{"x":1}\n{"y":2}\n') }) : new Promise(() => {})),
        return: () => {
          returned = true
          return Promise.resolve({ done: true, value: undefined })
        },
      }),
    }
    const e = await replayStream(quiet, () => {}).catch((x: unknown) => x)
    expect((e as ReplayError).code).toBe('undetected')
    // the second read never settles: the source is asked to close only once it does
    expect(reads).toBe(2)
    expect(returned).toBe(false)
  })

  it('a replay read to its end leaves nothing to close and gives every run', async () => {
    const w = watched(claude)
    let runs = 0
    const outcome = await replayStream(w.source, () => runs++)
    expect(outcome.format).toBe('claude-code')
    expect(outcome.error).toBeUndefined()
    expect(runs).toBe(1000)
    expect(w.closed()).toBe(true)
  })
})
