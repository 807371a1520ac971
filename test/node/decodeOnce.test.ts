/**
 * Each line of a log is decoded from UTF-8 once. The format sniffer is fed up to 256 KiB at a time and wants only
 * the first 20 lines' values; the lines after those in the same piece used to be decoded by the sniffer and again
 * by the reader (a Claude Code transcript of ~100 KB was decoded almost twice over: ~190 MB of 400 in `stats` over a
 * tree). The test counts the bytes `Buffer#toString('utf8')` is asked to decode while real logs are replayed.
 */
import { createReadStream, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { nativeSkim } from '../../src/node/nativeSkim.js'
import { replayStream } from '../../src/node/replay.js'

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'homes', 'basic')
const logs = [
  // 41 lines, 113 KB: one piece, read whole by the sniffer
  join(fixtures, '.claude/projects/-Users-user-Dev-sourceborn-src-agent-workflows-monorepo-v2/full-session-two.jsonl'),
  // 209 lines of a Codex rollout
  join(fixtures, '.codex/sessions/2025/09/25/rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl'),
]

afterEach(() => {
  vi.restoreAllMocks()
})

/** Replays `file` (skimming as `skim` says) and returns the runs' count and the bytes decoded as UTF-8 meanwhile. */
const decodedWhileReplaying = async (file: string, skim: boolean): Promise<{ runs: number; decoded: number }> => {
  let decoded = 0
  const decode = Buffer.prototype.toString
  vi.spyOn(Buffer.prototype, 'toString').mockImplementation(function (this: Buffer, ...args: unknown[]) {
    const [encoding, start, end] = args as [BufferEncoding | undefined, number | undefined, number | undefined]
    if (encoding === undefined || encoding === 'utf8' || encoding === 'utf-8') decoded += Math.min(end ?? this.length, this.length) - (start ?? 0)
    return decode.call(this, encoding, start, end)
  })
  let runs = 0
  const outcome = await replayStream(createReadStream(file, { highWaterMark: 256 * 1024 }), () => runs++, { file, skim })
  vi.restoreAllMocks()
  expect(outcome.error).toBeUndefined()
  return { runs, decoded }
}

describe('replayStream decodes each line once', () => {
  for (const file of logs) {
    it(`${file.split('/').slice(-2).join('/')}, every line parsed whole`, async () => {
      const size = statSync(file).size
      const { runs, decoded } = await decodedWhileReplaying(file, false)
      expect(runs).toBeGreaterThan(0)
      // every line's bytes once (newlines are never decoded), nothing twice
      expect(decoded).toBeLessThanOrEqual(size)
      expect(decoded).toBeGreaterThan(size * 0.9)
    })
  }
})

describe('with the native skim kernel, long lines are not decoded whole', () => {
  for (const file of logs) {
    it.skipIf(nativeSkim() === null)(file.split('/').slice(-2).join('/'), async () => {
      const size = statSync(file).size
      const whole = await decodedWhileReplaying(file, false)
      const skimmed = await decodedWhileReplaying(file, true)
      expect(skimmed.runs).toBe(whole.runs)
      // the kernel's reduced records are read from its own buffer; only short lines and the head the format
      // sniffer reads (up to 20 lines) are decoded from the log's bytes
      expect(skimmed.decoded).toBeLessThan(whole.decoded * 0.75)
      expect(whole.decoded).toBeLessThanOrEqual(size)
    })
  }
})
