/**
 * A source that fails while being read (a socket reset, a child process that dies) after some records: every run
 * whose ending record had arrived comes out as it ended, before the failure — from `replayRuns` (also when the
 * replay was holding that run for late records) and from the operators with `sourceError: 'fail'` — and the open
 * run, whose end the failure hides, is never reported as something it was not.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Readable } from 'node:stream'
import { concat, from, lastValueFrom, throwError, toArray } from 'rxjs'
import { describe, expect, it } from 'vitest'
import type { RunResult } from '../../src/core/RunResult.js'
import { replayRuns } from '../../src/node/replay.js'
import { reduceRun, runResults } from '../../src/operators/index.js'

const bytesOf = (path: string): Buffer => readFileSync(new URL(`../fixtures/${path}`, import.meta.url))
const NATIVE_RUN = Buffer.from(
  `${readFileSync(new URL('../../examples/native/session.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .slice(0, 13)
    .join('\n')}\n`,
)

/** The bytes in `pieces` chunks, then (after `delayMs`) a read that fails with `error`. */
const failingSource = (bytes: Buffer, pieces: number, delayMs: number, error: Error): AsyncIterable<Buffer> => ({
  async *[Symbol.asyncIterator]() {
    const size = Math.ceil(bytes.length / pieces)
    for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size)
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs))
    throw error
  },
})

const replayed = async (source: AsyncIterable<Buffer>): Promise<{ runs: Array<RunResult>; error: unknown }> => {
  const runs: Array<RunResult> = []
  try {
    for await (const r of replayRuns(source)) runs.push(r)
  } catch (error) {
    return { runs, error }
  }
  return { runs, error: undefined }
}

/** The runs of the same bytes read to their end. */
const clean = async (bytes: Buffer): Promise<Array<RunResult>> => {
  const runs: Array<RunResult> = []
  for await (const r of replayRuns(Readable.from([bytes]))) runs.push(r)
  return runs
}

describe('replayRuns over a source that fails after its records', () => {
  // delay 0: the failure arrives while the format is still being sniffed; 300 ms: after the sniff's pause
  for (const delayMs of [0, 300]) {
    it(`a run whose ending record arrived is yielded as it ended, then the error (delay ${delayMs} ms)`, async () => {
      const reset = new Error('ECONNRESET')
      const claude = await replayed(failingSource(bytesOf('claude-code-stream-json/claude.jsonl'), 3, delayMs, reset))
      expect(claude.error).toBe(reset)
      expect(claude.runs.map((r) => [r.ending.kind, r.finishReason, r.usage.outputTokens])).toStrictEqual([['answered', 'success', 330]])
      const codex = await replayed(failingSource(bytesOf('codex-exec-json/stream-output-2.jsonl'), 2, delayMs, reset))
      expect(codex.error).toBe(reset)
      expect(codex.runs.map((r) => [r.ending.kind, r.usage.inputTokens, r.usage.cacheReadTokens, r.usage.outputTokens])).toStrictEqual([
        ['answered', 1048, 4992, 129],
      ])
      const native = await replayed(failingSource(NATIVE_RUN, 1, delayMs, reset))
      expect(native.error).toBe(reset)
      expect(native.runs.map((r) => r.ending.kind)).toStrictEqual(['answered'])
    })
  }

  it('the runs yielded are those a clean replay gives, but an open last run', async () => {
    for (const path of [
      'claude-code-stream-json/claude.jsonl',
      'claude-code-stream-json/claude-error.jsonl',
      'codex-exec-json/stream-output-2.jsonl',
      'codex-exec-json/codex-error.jsonl',
      'openai-agents-stream/synthetic-tool-call-answered.jsonl',
    ]) {
      const failed = await replayed(failingSource(bytesOf(path), 4, 0, new Error('reset')))
      expect([path, failed.runs]).toStrictEqual([path, await clean(bytesOf(path))])
    }
    // a transcript has no terminal record: its last run ends only with the input (inferred), so a failure leaves
    // it open and unreported, whether it would have been answered or unfinished; the runs before it ended at the
    // next prompt
    for (const [path, kinds] of [
      ['claude-code-transcript/full-session-two.jsonl', ['stopped', 'stopped', 'answered', 'answered']],
      ['claude-code-transcript/task_non_sdk.jsonl', ['answered']],
      ['claude-code-transcript/full-session-three.jsonl', ['answered', 'unfinished']],
    ] as const) {
      const all = await clean(bytesOf(path))
      expect([path, all.map((r) => r.ending.kind)]).toStrictEqual([path, kinds])
      const failed = await replayed(failingSource(bytesOf(path), 4, 0, new Error('reset')))
      expect([path, failed.runs]).toStrictEqual([path, all.slice(0, -1)])
    }
  })

  it('every line-based fixture, failing after its last byte: a prefix of the clean replay, holding every run a terminal record ended', async () => {
    const root = fileURLToPath(new URL('../fixtures/', import.meta.url))
    const files: Array<string> = []
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory() && e.name !== 'homes' && e.name !== 'hostile') walk(join(d, e.name))
        else if (e.isFile() && e.name.endsWith('.jsonl')) files.push(join(d, e.name))
      }
    }
    walk(root)
    expect(files.length).toBeGreaterThan(60)
    let withTerminal = 0
    for (const file of files) {
      const bytes = readFileSync(file)
      const all = await clean(bytes)
      const failed = await replayed(failingSource(bytes, 1, 0, new Error('reset')))
      const name = file.slice(root.length)
      expect([name, failed.runs]).toStrictEqual([name, all.slice(0, failed.runs.length)])
      // the last run whose ending a record stated (not inferred at the input's end) is out before the failure
      const lastStated = all.reduce((at, r, i) => (!r.inferred && r.ending.kind !== 'unfinished' ? i : at), -1)
      if (lastStated >= 0) withTerminal++
      expect([name, failed.runs.length >= lastStated + 1]).toStrictEqual([name, true])
    }
    // ACP, AI SDK, Claude Code, Codex, Gemini, native and OpenAI Agents logs with stated endings among them
    expect(withTerminal).toBeGreaterThan(30)
  })

  it("failing before its format could be told: the stream's own error, not 'undetected'", async () => {
    const reset = new Error('ECONNRESET')
    for (const text of ['YOLO mode is enabled. All tool calls will be automatically approved.\n', '{"type":"start"}\n']) {
      const r = await replayed(failingSource(Buffer.from(text), 1, 0, reset))
      expect([text, r.runs.length, r.error]).toStrictEqual([text, 0, reset])
    }
  })

  it('cut inside its only run: no run, the error', async () => {
    const bytes = bytesOf('claude-code-stream-json/claude.jsonl')
    const reset = new Error('reset')
    const cut = await replayed(failingSource(bytes.subarray(0, bytes.indexOf('"type":"result"')), 2, 0, reset))
    expect([cut.runs.length, cut.error]).toStrictEqual([0, reset])
  })
})

describe("the operators with sourceError: 'fail' over a format's records", () => {
  it("format auto, failing before the format could be told: reduceRun's one result is that failure", async () => {
    const r = await lastValueFrom(
      concat(
        from(['YOLO mode is enabled.']),
        throwError(() => new Error('socket reset')),
      ).pipe(reduceRun({ format: 'auto', sourceError: 'fail' })),
    )
    expect(r.ending).toStrictEqual({ kind: 'failed', reason: 'error', phase: 'stream', error: { message: 'socket reset', name: 'Error' } })
  })

  const linesOf = (path: string): Array<string> =>
    bytesOf(path)
      .toString('utf8')
      .split('\n')
      .filter((l) => l.length > 0)
  const failingAfter = (lines: ReadonlyArray<string>) =>
    concat(
      from(lines),
      throwError(() => new Error('process exited with code 1')),
    )
  const streamFailed = { kind: 'failed', reason: 'error', phase: 'stream', error: { message: 'process exited with code 1', name: 'Error' } }

  for (const [format, path] of [
    ['claude-code', 'claude-code-stream-json/claude.jsonl'],
    ['codex', 'codex-exec-json/stream-output-2.jsonl'],
    ['auto', 'claude-code-stream-json/claude.jsonl'],
    ['gemini', 'gemini-stream-json/gemini.jsonl'],
    ['ai-sdk', 'ai-sdk-fullstream/synthetic-tool-loop-answered.jsonl'],
    ['acp', 'acp/synthetic-end-turn.jsonl'],
  ] as const) {
    it(`${format}: a run that ended before the error stands as it ended; one cut by it fails in phase stream`, async () => {
      const lines = linesOf(path)
      const whole = await lastValueFrom(from(lines).pipe(reduceRun({ format })))
      expect(whole.ending).toStrictEqual({ kind: 'answered' })
      expect(await lastValueFrom(failingAfter(lines).pipe(reduceRun({ format, sourceError: 'fail' })))).toStrictEqual(whole)
      const live = await lastValueFrom(failingAfter(lines).pipe(runResults({ format, sourceError: 'fail' }), toArray()))
      expect(live.map((r) => r.ending)).toStrictEqual([{ kind: 'answered' }])
      const half = lines.slice(0, Math.floor(lines.length / 2))
      expect((await lastValueFrom(failingAfter(half).pipe(reduceRun({ format, sourceError: 'fail' })))).ending).toStrictEqual(streamFailed)
      const halfLive = await lastValueFrom(failingAfter(half).pipe(runResults({ format, sourceError: 'fail' }), toArray()))
      // the ACP reader states a turn's events only once the turn is over, so no run is open in the fold: runResults
      // has no run to end (a known limit, in the closing note)
      expect(halfLive.map((r) => r.ending)).toStrictEqual(format === 'acp' ? [] : [streamFailed])
    })
  }
})
