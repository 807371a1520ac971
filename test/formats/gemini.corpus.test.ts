/**
 * The real Gemini CLI logs of the shared corpus (copies under test/fixtures/, see their PROVENANCE.md) replay to
 * the results of shared/corpus/EXPECTED.md and expected.json (the last run of each file), with format auto and
 * with `format: 'gemini'`.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { RunResult } from '../../src/core/RunResult.js'
import { replayFile } from '../../src/node/replay.js'

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url))
const path = (rel: string): string => `${fixtures}${rel}`

const FORMATS = ['auto', 'gemini'] as const

/** expected.json, for these files: the last run's `ending.kind` (or the accepted kinds). */
const EXPECTED: Record<string, ReadonlyArray<string>> = {
  'gemini-stream-json/gemini.jsonl': ['answered'],
  'gemini-stream-json/gemini-error.jsonl': ['failed'],
  'gemini-session/session-2025-10-27T19-55-981c87cb.json': ['answered'],
  'gemini-session/session-2025-10-29T10-36-453aa339.json': ['answered'],
  'gemini-session/session-2025-10-29T10-36-9c9a14e1.json': ['answered'],
  'gemini-session/session-2025-10-29T10-36-f96c76b0.json': ['answered'],
  'gemini-session/session-2025-10-29T10-39-a63242d9.json': ['failed', 'unfinished'],
  'gemini-session/session-2025-10-29T10-40-359abdd0.json': ['answered'],
}

const last = (runs: ReadonlyArray<RunResult>): RunResult => {
  const r = runs[runs.length - 1]
  if (r === undefined) throw new Error('no run')
  return r
}

describe('gemini corpus: every file replays to its expected ending', () => {
  it('the fixture folders hold exactly the corpus files listed', () => {
    const listed = Object.keys(EXPECTED).sort()
    const found = ['gemini-stream-json', 'gemini-session']
      .flatMap((d) =>
        readdirSync(path(d))
          .filter((f) => f.endsWith('.json') || f.endsWith('.jsonl'))
          .map((f) => `${d}/${f}`),
      )
      .sort()
    expect(found).toEqual(listed)
  })
  for (const [file, kinds] of Object.entries(EXPECTED)) {
    for (const format of FORMATS) {
      it(`${file} (format ${format}) → ${kinds.join(' or ')}`, async () => {
        const runs = await replayFile(path(file), { format })
        const r = last(runs)
        expect(r.format).toBe('gemini')
        expect(kinds).toContain(r.ending.kind)
        if (file.startsWith('gemini-session/')) expect(r.inferred).toBe(true)
        else expect(r.inferred).toBe(false)
      })
    }
  }
})

describe('gemini-stream-json/gemini.jsonl', () => {
  for (const format of FORMATS) {
    it(`answered, with exact per-model token buckets from stats.models (format ${format})`, async () => {
      const runs = await replayFile(path('gemini-stream-json/gemini.jsonl'), { format })
      expect(runs).toHaveLength(1)
      const r = last(runs)
      expect(r.ending).toEqual({ kind: 'answered' })
      expect(r.finishReason).toBe('success')
      expect(r.sessionId).toBe('9ea39555-d63b-4283-b9da-0ec0cda51203')
      // The last assistant message: the two delta chunks of lines 13 and 14 (lines 5–6 were an earlier message).
      expect(r.response).toBe("I have calculated the sum, listed the directory, created 'hello.txt', and read its content as requested.")
      // By hand from line 15's stats.models:
      //   gemini-2.5-flash-lite: total 3442, input_tokens 2992, output 77, cached 0, input 2992
      //     inputTokens = input = 2992; cacheReadTokens = cached = 0
      //     thinking = 3442 − 2992 − 77 = 373 → outputTokens = 77 + 373 = 450, reasoningTokens = 373
      //   gemini-3-flash-preview: total 23438, input_tokens 22447, output 140, cached 8111, input 14336
      //     inputTokens = 14336 (= 22447 − 8111); cacheReadTokens = 8111
      //     thinking = 23438 − 22447 − 140 = 851 → outputTokens = 140 + 851 = 991, reasoningTokens = 851
      //   totals: input 2992 + 14336 = 17328 (= stats.input), cached 8111, output 450 + 991 = 1441,
      //     reasoning 373 + 851 = 1224 (= 26880 − 25439 − 217 from the top-level stats)
      expect(r.usage.byModel).toEqual({
        'gemini-2.5-flash-lite': { inputTokens: 2992, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 450, reasoningTokens: 373, costUsd: null },
        'gemini-3-flash-preview': { inputTokens: 14336, cacheReadTokens: 8111, cacheWriteTokens: 0, outputTokens: 991, reasoningTokens: 851, costUsd: null },
      })
      expect(r.usage).toMatchObject({ inputTokens: 17328, cacheReadTokens: 8111, cacheWriteTokens: 0, outputTokens: 1441, reasoningTokens: 1224 })
      // Gemini reports no cost: both model entries are unpriced items.
      expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 2 })
      expect(r.durationMs).toBe(10404)
      expect(r.toolCalls).toBe(3)
      expect(r.turns).toBe(2)
      expect(r.startedAt).toBe('2026-04-03T14:30:24.616Z')
      expect(r.endedAt).toBe('2026-04-03T14:30:35.020Z')
      // The banners (lines 1–2) are diagnostics of this run, and the fold counts every event's line in its run's range.
      expect(r.source).toEqual({ file: path('gemini-stream-json/gemini.jsonl'), firstLine: 1, lastLine: 15 })
      // The two "YOLO mode is enabled" banners.
      expect(r.diagnostics).toEqual([
        { line: 1, message: 'skipped a non-JSON line' },
        { line: 2, message: 'skipped a non-JSON line' },
      ])
    })
  }
})

describe('gemini-stream-json/gemini-error.jsonl', () => {
  for (const format of FORMATS) {
    it(`failed; the 32 non-JSON stdout lines (banners, stack trace) are diagnostics (format ${format})`, async () => {
      const runs = await replayFile(path('gemini-stream-json/gemini-error.jsonl'), { format })
      expect(runs).toHaveLength(1)
      const r = last(runs)
      // result.error is {type: "unknown", message: "[API Error: …]"}; the class and HTTP code come from the
      // stack trace printed on stdout (line 6 "TerminalQuotaError: …", line 23 "code: 429,").
      expect(r.ending).toEqual({
        kind: 'failed',
        reason: 'error',
        error: { message: '[API Error: An unknown error occurred.]', name: 'TerminalQuotaError', code: 429 },
      })
      expect(r.finishReason).toBe('error')
      expect(r.response).toBeNull()
      expect(r.sessionId).toBe('9face645-ec72-4895-b349-f82f420ba5f4')
      // Lines 1–3 (a colour warning and two YOLO banners) and 6–34 (the stack trace): 3 + 29 = 32.
      const lines = [1, 2, 3, ...Array.from({ length: 29 }, (_, i) => 6 + i)]
      expect(r.diagnostics).toHaveLength(32)
      expect(r.diagnostics.map((d) => d.line)).toEqual(lines)
      expect(new Set(r.diagnostics.map((d) => d.message))).toEqual(new Set(['skipped a non-JSON line']))
      expect(r.diagnosticsDropped).toBe(0)
      expect(r.usage.byModel).toEqual({
        'gemini-2.5-pro': { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0, costUsd: null },
      })
      expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
      // stats.duration_ms is 0 on this error result (not measured): the span init 21:18:24.988 → result 21:18:25.144.
      expect(r.durationMs).toBe(156)
      // The banners (lines 1–3) are diagnostics of this run, and the fold counts every event's line in its run's range.
      expect(r.source).toEqual({ file: path('gemini-stream-json/gemini-error.jsonl'), firstLine: 1, lastLine: 35 })
    })
  }
})

describe('gemini-session corpus', () => {
  for (const format of FORMATS) {
    it(`session-2025-10-29T10-39-a63242d9 is failed: its only model turn ends in a tool error (format ${format})`, async () => {
      const runs = await replayFile(path('gemini-session/session-2025-10-29T10-39-a63242d9.json'), { format })
      expect(runs).toHaveLength(1)
      const r = last(runs)
      // The one gemini message calls write_file, which ends in status "error" (not registered), and nothing
      // follows: the tool's error ended the run. Failed, not unfinished, because the record says how it broke.
      expect(r.ending).toEqual({
        kind: 'failed',
        reason: 'error',
        phase: 'tool',
        error: {
          message:
            'Tool "write_file" not found in registry. Tools must use the exact names that are registered. Did you mean one of: "read_file", "web_fetch", "glob"?',
        },
      })
      expect(r.inferred).toBe(true)
      expect(r.finishReason).toBeNull()
      expect(r.response).toBeNull()
      // tokens {input 4657, output 20, cached 0, thoughts 131}: uncached 4657 − 0, output 20 + 131.
      expect(r.usage.byModel).toEqual({
        'gemini-2.5-pro': { inputTokens: 4657, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 151, reasoningTokens: 131, costUsd: null },
      })
      expect(r.toolCalls).toBe(1)
      expect(r.turns).toBe(1)
      expect(r.startedAt).toBe('2025-10-29T10:39:45.313Z')
      expect(r.endedAt).toBe('2025-10-29T10:39:47.894Z')
    })

    it(`session-2025-10-29T10-36-f96c76b0: answered, cached tokens taken out of tokens.input (format ${format})`, async () => {
      const r = last(await replayFile(path('gemini-session/session-2025-10-29T10-36-f96c76b0.json'), { format }))
      expect(r.ending).toEqual({ kind: 'answered' })
      expect(r.response).toBe('Done.')
      expect(r.sessionId).toBe('f96c76b0-f4ed-448c-833c-16856e3585c7')
      // Message 1: input 5366, output 21, cached 0, thoughts 128; message 2: input 5536, output 3, cached 1362, thoughts 0.
      // inputTokens = 5366 + (5536 − 1362) = 9540; cacheRead = 1362; output = 21 + 128 + 3 = 152; reasoning = 128.
      expect(r.usage).toMatchObject({ inputTokens: 9540, cacheReadTokens: 1362, outputTokens: 152, reasoningTokens: 128 })
      expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 2 })
    })

    it(`session-2025-10-27T19-55-981c87cb holds three runs: answered, stopped by caller, answered (format ${format})`, async () => {
      const runs = await replayFile(path('gemini-session/session-2025-10-27T19-55-981c87cb.json'), { format })
      expect(runs.map((r) => r.ending)).toEqual([
        { kind: 'answered' },
        // "python": the model starts run_shell_command, the call is cancelled, the next prompt follows.
        { kind: 'stopped', by: 'caller', reason: 'tool call cancelled' },
        // The list_directory error early in the third run does not decide it: later messages answer.
        { kind: 'answered' },
      ])
      expect(runs.map((r) => r.turns)).toEqual([3, 1, 11])
      expect(runs.map((r) => r.toolCalls)).toEqual([2, 1, 10])
      expect(runs[1]?.response).toBeNull()
      expect(runs[2]?.response?.startsWith("I've updated `main.py`.")).toBe(true)
      // Run 2: one message, input 5689 with cached 5519 → uncached 170; output 43 + thoughts 54 = 97.
      expect(runs[1]?.usage).toMatchObject({ inputTokens: 170, cacheReadTokens: 5519, outputTokens: 97, reasoningTokens: 54 })
      expect(runs[0]?.startedAt).toBe('2025-10-27T19:56:01.701Z')
      expect(runs[2]?.endedAt).toBe('2025-10-27T20:24:29.688Z')
    })
  }
})

describe('gemini-session corpus: the evidence for the token semantics in the module doc', () => {
  it('in all 26 gemini messages, total = input + output + thoughts + tool (cached not added) and cached ≤ input', () => {
    let n = 0
    for (const f of readdirSync(path('gemini-session')).filter((x) => x.endsWith('.json'))) {
      const doc = JSON.parse(readFileSync(path(`gemini-session/${f}`), 'utf8')) as { messages: Array<{ type: string; tokens?: Record<string, number> }> }
      for (const m of doc.messages) {
        const t = m.tokens
        if (m.type !== 'gemini' || t === undefined) continue
        n++
        // So `input` is the whole prompt and already holds the cache reads: uncached = input − cached.
        expect(t['total']).toBe((t['input'] ?? 0) + (t['output'] ?? 0) + (t['thoughts'] ?? 0) + (t['tool'] ?? 0))
        expect(t['cached'] ?? 0).toBeLessThanOrEqual(t['input'] ?? 0)
      }
    }
    expect(n).toBe(26)
  })
})
