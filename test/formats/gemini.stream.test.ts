/**
 * Synthetic Gemini CLI `stream-json` logs: every ending rule of the format module, usage arithmetic and the
 * fault kinds of reference/bug-kinds.md that this format can show (K1, K2, K3, K6, K7, K8, K10, K11, K12, K13, K14).
 */
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { RunResult } from '../../src/core/RunResult.js'
import { geminiFormat, geminiReader } from '../../src/formats/gemini.js'
import { replayStream } from '../../src/node/replay.js'

const T = (s: number): string => new Date(Date.UTC(2026, 0, 1, 10, 0, s)).toISOString()

const init = (sessionId = 'sess-1', model = 'gemini-2.5-pro') => ({ type: 'init', timestamp: T(0), session_id: sessionId, model })
const user = (content = 'do it', s = 1) => ({ type: 'message', timestamp: T(s), role: 'user', content })
const said = (content: string, s = 2, delta = true) => ({ type: 'message', timestamp: T(s), role: 'assistant', content, ...(delta ? { delta: true } : {}) })
const toolUse = (id: string, s = 3) => ({ type: 'tool_use', timestamp: T(s), tool_name: 'run_shell_command', tool_id: id, parameters: { command: 'ls' } })
const toolResult = (id: string, status = 'success', s = 4) => ({ type: 'tool_result', timestamp: T(s), tool_id: id, status, output: '' })
const error = (severity: string, message: string, s = 5) => ({ type: 'error', timestamp: T(s), severity, message })
const stats = (models: Record<string, Record<string, number>>, duration = 1000) => {
  const sum = (k: string) => Object.values(models).reduce((a, m) => a + (m[k] ?? 0), 0)
  return {
    total_tokens: sum('total_tokens'),
    input_tokens: sum('input_tokens'),
    output_tokens: sum('output_tokens'),
    cached: sum('cached'),
    input: sum('input'),
    duration_ms: duration,
    tool_calls: 0,
    models,
  }
}
const result = (status: string, extra: Record<string, unknown> = {}, s = 9) => ({ type: 'result', timestamp: T(s), status, ...extra })

/** Feeds lines (objects are JSON-encoded) to a fresh gemini reader; no line may return a ProtocolError. */
const read = (lines: ReadonlyArray<unknown>, unterminatedLast = false): Array<RunResult> => {
  const out: Array<RunResult> = []
  const reader = geminiReader((r) => out.push(r), { file: 'log.jsonl' })
  lines.forEach((l, i) => {
    const err = reader.line(typeof l === 'string' ? l : JSON.stringify(l), i + 1, unterminatedLast && i === lines.length - 1)
    expect(err).toBeUndefined()
  })
  reader.end()
  return out
}
const only = (runs: ReadonlyArray<RunResult>): RunResult => {
  expect(runs).toHaveLength(1)
  return runs[0] as RunResult
}

describe('gemini stream-json: result endings', () => {
  it('status success → answered; the response is the last assistant message, its delta chunks joined', () => {
    const r = only(read([init(), user(), said('Let me '), said('look.'), toolUse('t1'), toolResult('t1'), said('All '), said('done.'), result('success')]))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.finishReason).toBe('success')
    expect(r.response).toBe('All done.')
    expect(r.turns).toBe(2)
    expect(r.toolCalls).toBe(1)
    expect(r.sessionId).toBe('sess-1')
    expect(r.inferred).toBe(false)
  })

  it('a non-delta assistant message replaces the text instead of appending', () => {
    const r = only(read([init(), user(), said('draft '), said('final', 3, false), result('success')]))
    expect(r.response).toBe('final')
  })

  it("FatalTurnLimitedError → limit max_turns, not the last step's reason (K3)", () => {
    const r = only(
      read([
        init(),
        user(),
        said('working'),
        toolUse('t1'),
        toolResult('t1'),
        error('error', 'Maximum session turns exceeded'),
        result('error', { error: { type: 'FatalTurnLimitedError', message: 'Reached max session turns for this session.' } }),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'limit', reason: 'max_turns' })
    expect(r.finishReason).toBe('error')
    expect(r.response).toBeNull()
  })

  it('the "Maximum session turns exceeded" error record before an untyped error result → limit max_turns', () => {
    const r = only(read([init(), user(), error('error', 'Maximum session turns exceeded'), result('error')]))
    expect(r.ending).toEqual({ kind: 'limit', reason: 'max_turns' })
  })

  it('FatalCancellationError → stopped by caller, the partial text is not the answer (K2, K8)', () => {
    const r = only(read([init(), user(), said('half an ans'), result('error', { error: { type: 'FatalCancellationError', message: 'Operation cancelled.' } })]))
    expect(r.ending).toEqual({ kind: 'stopped', by: 'caller', reason: 'cancelled' })
    expect(r.response).toBeNull()
  })

  it('any other error type → failed with { message, name: type }', () => {
    const r = only(read([init(), user(), result('error', { error: { type: 'FatalToolExecutionError', message: 'Error executing tool write_file: denied' } })]))
    expect(r.ending).toEqual({
      kind: 'failed',
      reason: 'error',
      error: { message: 'Error executing tool write_file: denied', name: 'FatalToolExecutionError' },
    })
    expect(r.response).toBeNull()
  })

  it('an error object beats a success status (SPEC §2 rule 4, K6): failed, response null', () => {
    const r = only(
      read([init(), user(), said('Credit balance is too low'), result('success', { error: { type: 'ApiError', message: 'Credit balance is too low' } })]),
    )
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'Credit balance is too low', name: 'ApiError' } })
    expect(r.response).toBeNull()
  })

  it('invalid-stream MAX_TOKENS message, then status error → cut_off max_tokens with the partial text (K13)', () => {
    const r = only(
      read([
        init(),
        user(),
        said('The list goes: one, two, thr'),
        error('error', 'Model stream ended with empty response text. Last finish reason: MAX_TOKENS, all finish reasons: [MAX_TOKENS]'),
        result('error'),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'cut_off', finishReason: 'max_tokens' })
    expect(r.finishReason).toBe('error')
    expect(r.response).toBe('The list goes: one, two, thr')
  })

  it('MAX_TOKENS_EXCEEDED in an INVALID_STREAM error → cut_off max_tokens', () => {
    const r = only(read([init(), user(), result('error', { error: { type: 'INVALID_STREAM', message: 'MAX_TOKENS_EXCEEDED' } })]))
    expect(r.ending).toEqual({ kind: 'cut_off', finishReason: 'max_tokens' })
  })

  it('SAFETY / RECITATION invalid-stream messages → cut_off content_filter', () => {
    for (const m of ['SAFETY_BLOCKED', 'Model stream ended. Last finish reason: RECITATION', 'all finish reasons: [IMAGE_SAFETY]']) {
      const r = only(read([init(), user(), error('error', m), result('error')]))
      expect(r.ending).toEqual({ kind: 'cut_off', finishReason: 'content_filter' })
    }
  })

  it('words that only contain a finish-reason name do not count (safetyRatings, NOT_MAX_TOKENS_X)', () => {
    for (const m of ['bad safetyRatings in chunk', 'XMAX_TOKENS', 'Unsafety']) {
      expect(only(read([init(), user(), error('error', m), result('error')])).ending.kind).toBe('failed')
    }
  })

  it('an invalid-stream message without a cut-off reason → failed with that message', () => {
    const r = only(read([init(), user(), error('error', 'Model stream ended with a malformed function call.'), result('error')]))
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', error: { message: 'Model stream ended with a malformed function call.' } })
  })

  it('status error with no details at all → failed error without an error object', () => {
    const r = only(read([init(), user(), result('error')]))
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error' })
  })

  it('an unknown status is never answered: failed unrecognized, raw kept (K14)', () => {
    const r = only(read([init(), user(), said('text'), result('paused')]))
    expect(r.ending).toEqual({ kind: 'failed', reason: 'unrecognized', raw: 'paused' })
    expect(r.finishReason).toBe('paused')
    expect(r.response).toBeNull()
  })

  it('"Loop detected" warning then success → limit tool_loop', () => {
    const r = only(read([init(), user(), said('again'), error('warning', 'Loop detected, stopping execution'), result('success')]))
    expect(r.ending).toEqual({ kind: 'limit', reason: 'tool_loop' })
  })

  it('"Agent execution blocked" warning with no output after it → blocked by a hook', () => {
    const r = only(read([init(), user(), error('warning', 'Agent execution blocked: policy says no'), result('success')]))
    expect(r.ending).toEqual({ kind: 'blocked', guardrail: 'hook', reason: 'Agent execution blocked: policy says no' })
  })

  it('a warning that model output follows does not decide the ending', () => {
    const r = only(read([init(), user(), error('warning', 'Agent execution blocked: once'), said('answer'), result('success')]))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBe('answer')
  })
})

describe('gemini stream-json: no result record', () => {
  it('the last record an error with severity "error" → failed, phase stream (K1)', () => {
    const r = only(read([init(), user(), said('partial'), error('error', 'Request failed: 401 Unauthorized')]))
    expect(r.ending).toEqual({ kind: 'failed', reason: 'error', phase: 'stream', error: { message: 'Request failed: 401 Unauthorized' } })
    expect(r.finishReason).toBeNull()
    expect(r.response).toBeNull()
  })

  it('non-JSON lines after the fatal error do not hide it (they are only diagnostics)', () => {
    const r = only(read([init(), user(), error('error', 'boom'), '    at main (file.js:1:1)']))
    expect(r.ending).toMatchObject({ kind: 'failed', phase: 'stream' })
    expect(r.diagnostics).toEqual([{ line: 4, message: 'skipped a non-JSON line' }])
  })

  it('otherwise unfinished with the last record type, never answered with the partial text (K10)', () => {
    expect(only(read([init(), user(), said('half')])).ending).toEqual({ kind: 'unfinished', lastEventType: 'message' })
    expect(only(read([init(), user(), toolUse('t1')])).ending).toEqual({ kind: 'unfinished', lastEventType: 'tool_use' })
    expect(only(read([init(), user(), error('warning', 'Loop detected, stopping execution')])).ending).toEqual({ kind: 'unfinished', lastEventType: 'error' })
    expect(only(read([init(), user(), said('half')])).response).toBeNull()
  })

  it('an input with no run content gives one unfinished run carrying the noise as diagnostics', () => {
    const r = only(read(['YOLO mode is enabled.', init()]))
    expect(r.ending).toEqual({ kind: 'unfinished' })
    expect(r.sessionId).toBe('sess-1')
    expect(r.diagnostics).toEqual([{ line: 1, message: 'skipped a non-JSON line' }])
    expect(only(read([])).ending).toEqual({ kind: 'unfinished' })
  })

  it('a cut last line (no newline, not JSON) is a diagnostic, and the run stays unfinished', () => {
    const r = only(read([init(), user(), '{"type":"message","role":"assi'], true))
    expect(r.ending).toEqual({ kind: 'unfinished', lastEventType: 'message' })
    expect(r.diagnostics).toEqual([{ line: 3, message: 'skipped the last line: it was cut off (no newline) and is not valid JSON' }])
  })

  it('a new init closes a run that never got its result', () => {
    const runs = read([init('a'), user(), said('x'), init('b'), user(), said('y'), result('success')])
    expect(runs.map((r) => [r.sessionId, r.ending.kind])).toEqual([
      ['a', 'unfinished'],
      ['b', 'answered'],
    ])
  })
})

describe('gemini stream-json: usage from stats', () => {
  it('thinking tokens (total − input_tokens − output_tokens) are added to outputTokens and reasoningTokens', () => {
    // input_tokens 1000 = input 700 + cached 300; thinking = 1500 − 1000 − 200 = 300.
    const s = stats({ 'gemini-2.5-pro': { total_tokens: 1500, input_tokens: 1000, output_tokens: 200, cached: 300, input: 700 } }, 4321)
    const r = only(read([init(), user(), said('ok'), result('success', { stats: s })]))
    expect(r.usage.byModel['gemini-2.5-pro']).toEqual({
      inputTokens: 700,
      cacheReadTokens: 300,
      cacheWriteTokens: 0,
      outputTokens: 500,
      reasoningTokens: 300,
      costUsd: null,
    })
    expect(r.usage).toMatchObject({ inputTokens: 700, cacheReadTokens: 300, outputTokens: 500, reasoningTokens: 300 })
    expect(r.durationMs).toBe(4321)
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 1 })
  })

  it('without `input`, the uncached input is input_tokens − cached', () => {
    const s = {
      total_tokens: 130,
      input_tokens: 100,
      output_tokens: 30,
      models: { m: { total_tokens: 130, input_tokens: 100, output_tokens: 30, cached: 40 } },
    }
    const r = only(read([init(), user(), said('ok'), result('success', { stats: s })]))
    expect(r.usage.byModel['m']).toMatchObject({ inputTokens: 60, cacheReadTokens: 40, outputTokens: 30, reasoningTokens: 0 })
  })

  it('without stats.models, the top-level figures go to the init model', () => {
    const s = { total_tokens: 120, input_tokens: 100, output_tokens: 10, cached: 0, input: 100, duration_ms: 5 }
    const r = only(read([init('s', 'gemini-2.5-flash'), user(), said('ok'), result('success', { stats: s })]))
    expect(Object.keys(r.usage.byModel)).toEqual(['gemini-2.5-flash'])
    expect(r.usage).toMatchObject({ inputTokens: 100, outputTokens: 20, reasoningTokens: 10 })
  })

  it('no stats: no invented usage, and the unknown cost is not a complete-looking 0 (K12)', () => {
    const r = only(read([init(), user(), said('ok'), result('success')]))
    expect(r.usage).toMatchObject({ inputTokens: 0, outputTokens: 0, byModel: {} })
    // No priced item, and gemini never reports cost: unknown, not $0 (missing counts items, and there are none).
    expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 0 })
    // Without stats.duration_ms, the span of the record times (init at 0 s, result at 9 s).
    expect(r.durationMs).toBe(9000)
  })

  it('two processes in one log: each result after its own init is taken as stated', () => {
    const s1 = stats({ m: { total_tokens: 110, input_tokens: 100, output_tokens: 10, cached: 0, input: 100 } })
    const s2 = stats({ m: { total_tokens: 55, input_tokens: 50, output_tokens: 5, cached: 0, input: 50 } })
    const runs = read([init('a'), user(), said('1'), result('success', { stats: s1 }), init('b'), user(), said('2'), result('success', { stats: s2 })])
    expect(runs.map((r) => r.usage.inputTokens)).toEqual([100, 50])
    expect(runs.map((r) => r.sessionId)).toEqual(['a', 'b'])
  })

  it('two results of one process: the second is differenced, running totals are never summed (K11)', () => {
    const s1 = stats({ m: { total_tokens: 110, input_tokens: 100, output_tokens: 10, cached: 20, input: 80 } }, 1000)
    const s2 = stats(
      {
        m: { total_tokens: 330, input_tokens: 300, output_tokens: 25, cached: 120, input: 180 },
        n: { total_tokens: 7, input_tokens: 5, output_tokens: 2, cached: 0, input: 5 },
      },
      2500,
    )
    const runs = read([init(), user(), said('1'), result('success', { stats: s1 }), user('again'), said('2'), result('success', { stats: s2 })])
    expect(runs).toHaveLength(2)
    expect(runs[1]?.usage.byModel).toEqual({
      // m: uncached 180 − 80, cached 120 − 20, output 25 − 10, thinking (330−300−25) − (110−100−10) = 5 − 0
      m: { inputTokens: 100, cacheReadTokens: 100, cacheWriteTokens: 0, outputTokens: 20, reasoningTokens: 5, costUsd: null },
      n: { inputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 2, reasoningTokens: 0, costUsd: null },
    })
    expect(runs[1]?.durationMs).toBe(1500)
  })

  it("a result without stats leaves the process's last duration as it was: the next one is differenced against it", () => {
    const runs = read([
      init(),
      user(),
      said('1'),
      result('success', { stats: { duration_ms: 1000 } }),
      user('b'),
      said('2'),
      result('success'),
      user('c'),
      said('3'),
      result('success', { stats: { duration_ms: 2500 } }),
    ])
    // the second run has no duration of its own: the span of its record times (1 s → 9 s)
    expect(runs.map((r) => r.durationMs)).toEqual([1000, 8000, 1500])
  })

  it('figures whose output + thinking would pass 2^53−1 leave that model out, with a diagnostic', () => {
    const s = {
      models: { big: { total_tokens: Number.MAX_SAFE_INTEGER, input_tokens: 0, output_tokens: 0, cached: 0, input: 0 }, huge: { total_tokens: 2 ** 60 } },
    }
    const r = only(read([init(), user(), said('ok'), result('success', { stats: s })]))
    expect(Object.keys(r.usage.byModel)).toEqual(['big'])
    expect(r.usage).toMatchObject({ outputTokens: Number.MAX_SAFE_INTEGER, reasoningTokens: Number.MAX_SAFE_INTEGER })
    expect(r.diagnostics.map((d) => d.message)).toEqual(['ignored a token count in result stats that is not a whole, non-negative number'])
  })

  it('a token count of the wrong type is a diagnostic and that model is left out', () => {
    const s = { models: { good: { total_tokens: 10, input_tokens: 8, output_tokens: 2, cached: 0, input: 8 }, bad: { total_tokens: '10' } } }
    const r = only(read([init(), user(), said('ok'), result('success', { stats: s })]))
    expect(Object.keys(r.usage.byModel)).toEqual(['good'])
    expect(r.diagnostics).toEqual([{ line: 4, message: 'ignored a token count in result stats that is not a whole, non-negative number' }])
  })
})

describe('gemini stream-json: late records and bad records', () => {
  it('a second result with nothing new keeps the first ending; it is a diagnostic of that run (K7)', () => {
    const r = only(
      read([init(), user(), said('the answer'), result('success'), 'Error: exiting', result('error', { error: { type: 'Error', message: 'late' } })]),
    )
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBe('the answer')
    expect(r.diagnostics).toEqual([
      { line: 5, message: 'skipped a non-JSON line' },
      { line: 6, message: 'ignored a further result record for a run that already has one' },
    ])
  })

  it('an error record after the result is a diagnostic, not a new failed run (K7)', () => {
    const r = only(read([init(), user(), said('fine'), result('success'), error('error', 'shutdown failed')]))
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.diagnostics).toEqual([{ line: 5, message: "an error record after the run's result was kept as a diagnostic" }])
  })

  it('known records with unexpected field types are skipped with a diagnostic; unknown types are noted', () => {
    const r = only(
      read([
        init(),
        user(),
        { type: 'message', role: 'assistant', content: 42 },
        { type: 'error', severity: 1, message: 'x' },
        { type: 'result', status: null },
        { type: 'telemetry', x: 1 },
        { nope: true },
        [1, 2],
        said('ok'),
        result('success'),
      ]),
    )
    expect(r.ending).toEqual({ kind: 'answered' })
    expect(r.response).toBe('ok')
    expect(r.diagnostics.map((d) => [d.line, d.message])).toEqual([
      [3, 'skipped a message record whose role or content has an unexpected type'],
      [4, 'skipped an error record whose severity or message is not a string'],
      [5, 'skipped a result record whose status is not a string'],
      [6, 'ignored a record of an unknown type'],
      [7, 'skipped a record without a string "type"'],
      [8, 'skipped a JSON line that is not an object'],
    ])
  })

  it('a prompt without a result before the next prompt: the first run is unfinished', () => {
    const runs = read([init(), user('one'), said('a'), user('two', 5), said('b', 6), result('success')])
    expect(runs.map((r) => r.ending.kind)).toEqual(['unfinished', 'answered'])
    expect(runs[1]?.response).toBe('b')
  })
})

describe('gemini stream-json: live', () => {
  const live = (lines: ReadonlyArray<unknown>) => {
    const out: Array<RunResult> = []
    const notes: Array<string> = []
    const reader = geminiReader((r) => out.push(r), { file: 'log.jsonl', live: true, note: (line, message) => notes.push(`${line}: ${message}`) })
    const at: Array<number> = []
    lines.forEach((l, i) => {
      reader.line(typeof l === 'string' ? l : JSON.stringify(l), i + 1, false)
      at.push(out.length)
    })
    reader.end()
    return { out, notes, at }
  }

  it('a run is handed out at its result; a later result or error of it is a note, never a second run (K7)', () => {
    const { out, notes, at } = live([init(), user(), said('the answer'), result('success'), error('error', 'shutdown failed'), result('error')])
    expect(at).toEqual([0, 0, 0, 1, 1, 1])
    expect(out.map((r) => [r.ending.kind, r.response])).toEqual([['answered', 'the answer']])
    expect(notes).toEqual([
      "5: an error record after the run's result was kept as a diagnostic",
      '6: ignored a further result record for a run that already has one',
    ])
  })

  it('the next prompt after a handed-out run starts a new run', () => {
    const { out } = live([init(), user(), said('a'), result('success'), user('again'), said('b'), result('success')])
    expect(out.map((r) => [r.ending.kind, r.response, r.sessionId])).toEqual([
      ['answered', 'a', 'sess-1'],
      ['answered', 'b', 'sess-1'],
    ])
  })
})

describe('gemini stream-json: detection', () => {
  it('sniffLines recognises stream-json with stdout noise lines, and not other shapes', () => {
    expect(geminiFormat.sniffLines?.([undefined, init(), user(), said('x')])).toBe(1)
    expect(
      geminiFormat.sniffLines?.([
        { type: 'system', subtype: 'init', session_id: 'x' },
        { type: 'result', subtype: 'success', is_error: false },
      ]),
    ).toBe(0)
    expect(geminiFormat.sniffLines?.([{ type: 'message', role: 'assistant', content: [{ type: 'output_text' }] }])).toBe(0)
    expect(geminiFormat.sniffLines?.([undefined, undefined])).toBe(0)
  })

  it('replayStream with format auto picks gemini for a stream-json log', async () => {
    const text = ['YOLO mode is enabled.', ...[init(), user(), said('hi'), result('success')].map((x) => JSON.stringify(x))].join('\n') + '\n'
    const runs: Array<RunResult> = []
    const outcome = await replayStream(Readable.from([Buffer.from(text)]), (r) => runs.push(r), { file: 'x.jsonl' })
    expect(outcome.format).toBe('gemini')
    expect(runs.map((r) => r.ending.kind)).toEqual(['answered'])
  })
})
