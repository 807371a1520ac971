/**
 * Bounded memory and linear time on any input, per reader (issue 14): for each input class that used to grow
 * without bound, 10× the input costs at most 12× the work (counted: V8 block coverage of `src/`, plus the
 * elements built-in scans touch — `support/work.ts`; never a clock), and what the reader keeps (its checkpoint,
 * the whole state as JSON) stops growing past its documented cap.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_CHILD_IDS, MAX_SEQ_SESSIONS, NativeFolder, SEQ_WINDOW } from '../../src/core/fold.js'
import { encodeFoldState } from '../../src/core/FoldStateCodec.js'
import { Pipeline } from '../../src/core/pipeline.js'
import type { RunResult } from '../../src/core/RunResult.js'
import type { Translator } from '../../src/core/translator.js'
import { acpTranslator } from '../../src/formats/acp.js'
import { claudeCodeTranslator } from '../../src/formats/claudeCode.js'
import { codexTranslator } from '../../src/formats/codex.js'
import { geminiTranslator } from '../../src/formats/gemini.js'
import { MAX_SESSION_ENTRIES } from '../../src/formats/gemini/session.js'
import { attachSubagents } from '../../src/node/claudeSubagents.js'
import { figure } from './support/runs.js'
import { countWork, growth } from './support/work.js'

const BOUND = 12

/** Feeds `lines` to a pipeline of `translator`; returns the runs and the size of its checkpoint (JSON characters). */
const feed = <S>(translator: Translator<S>, lines: Iterable<string>): { runs: Array<RunResult>; stateChars: number } => {
  const p = new Pipeline(translator, { file: null })
  let n = 0
  for (const l of lines) p.textLine(l, ++n, false)
  const stateChars = JSON.stringify(p.checkpoint()).length
  p.end()
  return { runs: p.takeResults(), stateChars }
}

function* times<T>(n: number, f: (i: number) => T): Generator<T> {
  for (let i = 0; i < n; i++) yield f(i)
}

const report = (name: string, g: { small: number; big: number; ratio: number }, extra = ''): void =>
  figure(`bounds: ${name}: work ${g.small.toLocaleString('en-US')} → ${g.big.toLocaleString('en-US')} for 10× the input (× ${g.ratio.toFixed(2)})${extra}`)

describe('the native fold', () => {
  it(`seq memory is an LRU of ${MAX_SEQ_SESSIONS} sessions: 10× the sessions is ≤ 12× the work, the state stops growing`, async () => {
    const run = (n: number): number => {
      const f = new NativeFolder()
      f.push({ type: 'turn/start', sessionId: 'root', seq: 0, data: { turn: 1 } })
      for (let i = 0; i < n; i++) f.push({ type: 'assistant/chunk', sessionId: `s${i}`, seq: 1, data: { turn: 1, step: 1, chunk: 'x' } })
      return JSON.stringify(f.state.sessions).length
    }
    const g = await growth(5_000, run)
    const small = run(5_000)
    const big = run(50_000)
    report('native, one event in each of N sessions with a seq', g, `; seq memory ${small.toLocaleString('en-US')} → ${big.toLocaleString('en-US')} characters`)
    expect(g.ratio).toBeLessThanOrEqual(BOUND)
    expect(big).toBeLessThanOrEqual(small * 1.1)
  })

  it('the LRU keeps the active sessions: a re-delivery in a busy session is still dropped; a long-idle session forgets', () => {
    const f = new NativeFolder()
    const ev = (sessionId: string, seq: number) => ({ type: 'assistant/chunk', sessionId, seq, data: { turn: 1, step: 1, chunk: 'x' } })
    f.push({ type: 'turn/start', sessionId: 'root', seq: 0, data: { turn: 1 } })
    f.push(ev('idle', 5))
    for (let i = 0; i < 3 * MAX_SEQ_SESSIONS; i++) {
      f.push(ev(`s${i}`, 1))
      // the root stays active all along
      f.push(ev('root', i + 1))
    }
    expect(Object.keys(f.state.sessions).length).toBeLessThanOrEqual(MAX_SEQ_SESSIONS)
    expect(f.state.sessions['#root']?.max).toBe(3 * MAX_SEQ_SESSIONS)
    f.push(ev('root', 3 * MAX_SEQ_SESSIONS)) // a re-delivery of the root's last event: dropped
    f.push(ev('idle', 5)) // the idle session was forgotten: its re-delivery counts as new
    const d = f.state.run.draft.diagnostics.map((x) => x.message)
    expect(d.filter((m) => m.startsWith('dropped a repeated delivery'))).toEqual([
      `dropped a repeated delivery (seq ${3 * MAX_SEQ_SESSIONS} was already applied in this session)`,
    ])
    expect(f.state.sessions['#idle']).toEqual({ max: 5, recent: [5], pos: 0, used: f.state.events })
    expect(SEQ_WINDOW).toBe(1024)
  })

  it(`child session ids are kept for at most ${MAX_CHILD_IDS} children`, () => {
    const f = new NativeFolder()
    f.push({ type: 'turn/start', sessionId: 'root', data: { turn: 1 } })
    for (let i = 0; i < 3 * MAX_CHILD_IDS; i++)
      f.push({ type: 'subagent/started', sessionId: 'root', data: { parentSessionId: 'root', childSessionId: `c${i}` } })
    expect(Object.keys(f.state.children).length).toBeLessThanOrEqual(MAX_CHILD_IDS)
    expect(f.state.root).toBe('root')
  })

  it('permission denials: one lookup each, not a scan of the run’s list', async () => {
    const g = await growth(2_000, (n) => {
      const f = new NativeFolder()
      f.push({ type: 'turn/start', sessionId: 'root', data: { turn: 1 } })
      for (let i = 0; i < n; i++) f.push({ type: 'permission/denied', sessionId: 'root', data: { toolName: 'Bash', callId: `c${i}` } })
      f.push({ type: 'permission/denied', sessionId: 'root', data: { toolName: 'Bash', callId: 'c0' } })
      expect(f.state.run.draft.permissionDenials).toHaveLength(n)
    })
    report('native, N permission denials in one run', g)
    expect(g.ratio).toBeLessThanOrEqual(BOUND)
  })
})

describe('vendor readers', () => {
  // Past MAX_PENDING_REQUESTS, `track` (src/formats/acp/envelope.ts) drops the requests no response can still use
  // and, when the ones still needed keep it above half the cap, waits for the count to double before scanning
  // again (it used to rescan every pending request per new one when all belonged to runs: × 175).
  it('ACP: unanswered session/prompt requests past the 10,000 pending cap cost the same per request', async () => {
    // 1,100 → 11,000 requests: the larger input has 1,000 requests past MAX_PENDING_REQUESTS (10,000)
    const prompt = (i: number): string =>
      JSON.stringify({ jsonrpc: '2.0', id: i, method: 'session/prompt', params: { sessionId: 's', prompt: [{ type: 'text', text: 'hi' }] } })
    let last: { runs: Array<RunResult>; stateChars: number } | undefined
    const g = await growth(1_100, (n) => {
      last = feed(acpTranslator, times(n, prompt))
    })
    report('ACP, N unanswered session/prompt requests', g, `; state ${last?.stateChars.toLocaleString('en-US')} characters`)
    expect(g.ratio).toBeLessThanOrEqual(BOUND)
    // each prompt abandons the one before: 11,000 runs, all unfinished; the pending requests were cut to the cap
    expect(last?.runs).toHaveLength(11_000)
    expect(last?.runs.every((r) => r.ending.kind === 'unfinished')).toBe(true)
    expect(last?.stateChars).toBeLessThan(1_000_000)
    expect(last?.runs[10_000]?.diagnostics.map((d) => d.message)).toContain('over 10000 requests without a response; dropped the oldest ones')
  })

  it('ACP: 10× as many sessions each with an open prompt (every pending request still needed) is ≤ 12× the work', async () => {
    const prompt = (i: number): string =>
      JSON.stringify({ jsonrpc: '2.0', id: i, method: 'session/prompt', params: { sessionId: `s${i}`, prompt: [{ type: 'text', text: 'hi' }] } })
    const answer = (i: number): string => JSON.stringify({ jsonrpc: '2.0', id: i, result: { stopReason: 'end_turn' } })
    let runs: Array<RunResult> = []
    const g = await growth(1_500, (n) => {
      runs = feed(acpTranslator, [...times(n, prompt), ...times(n, answer)]).runs
    })
    report('ACP, N sessions with an open prompt each, answered at the end', g)
    expect(g.ratio).toBeLessThanOrEqual(BOUND)
    // every request was still needed: none was dropped, each answer closed its run
    expect(runs).toHaveLength(15_000)
    expect(runs.filter((r) => r.ending.kind === 'answered')).toHaveLength(15_000)
  })

  it('Claude Code transcript: unanswered AskUserQuestion / ExitPlanMode calls are not scanned per block and per tool_result', async () => {
    let u = 0
    const env = (type: string, extra: object): string =>
      JSON.stringify({
        parentUuid: null,
        isSidechain: false,
        userType: 'external',
        cwd: '/tmp',
        sessionId: 'tx',
        version: '2.0.30',
        type,
        uuid: `u${++u}`,
        timestamp: '2025-10-30T12:00:00.000Z',
        ...extra,
      })
    const lines = function* (n: number): Generator<string> {
      yield env('user', { message: { role: 'user', content: 'go' } })
      for (let i = 0; i < n; i++) {
        const name = i % 2 === 0 ? 'AskUserQuestion' : 'ExitPlanMode'
        yield env('assistant', {
          message: {
            id: `m${i}`,
            model: 'claude-sonnet',
            role: 'assistant',
            content: [
              { type: 'tool_use', id: `q${i}`, name, input: { q: 'which?' } },
              { type: 'tool_use', id: `t${i}`, name: 'Bash', input: {} },
            ],
            stop_reason: null,
            usage: { input_tokens: 1, output_tokens: 1 },
          },
        })
        yield env('user', { message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'ok' }] } })
      }
    }
    const sizes: Array<number> = []
    const g = await growth(1_000, (n) => sizes.push(feed(claudeCodeTranslator, lines(n)).stateChars))
    report(
      'Claude Code transcript, N unanswered interactive calls',
      g,
      `; state ${sizes.at(-2)?.toLocaleString('en-US')} → ${sizes.at(-1)?.toLocaleString('en-US')} characters`,
    )
    expect(g.ratio).toBeLessThanOrEqual(BOUND)
    expect(sizes.at(-1) as number).toBeLessThanOrEqual((sizes.at(-2) as number) * 1.2)
  })

  it('Codex exec --json: the item ids of one turn are a bounded ring', async () => {
    const lines = function* (n: number): Generator<string> {
      yield JSON.stringify({ type: 'thread.started', thread_id: 't' })
      yield JSON.stringify({ type: 'turn.started' })
      for (let i = 0; i < n; i++)
        yield JSON.stringify({
          type: 'item.completed',
          item: { id: `item_${i}`, type: 'command_execution', command: 'ls', aggregated_output: '', exit_code: 0, status: 'completed' },
        })
    }
    const sizes: Array<number> = []
    const g = await growth(5_000, (n) => sizes.push(feed(codexTranslator, lines(n)).stateChars))
    report('Codex exec, N tool items in one turn', g, `; state ${sizes.at(-2)?.toLocaleString('en-US')} → ${sizes.at(-1)?.toLocaleString('en-US')} characters`)
    expect(g.ratio).toBeLessThanOrEqual(BOUND)
    expect(sizes.at(-1) as number).toBeLessThanOrEqual((sizes.at(-2) as number) * 1.2)
  })

  const geminiHead = JSON.stringify({ sessionId: 's', projectHash: 'h', startTime: '2026-01-01T00:00:00.000Z', lastUpdated: '2026-01-01T00:00:00.000Z' })
  const gUser = (i: number): string => JSON.stringify({ id: `u${i}`, timestamp: '2026-01-01T00:00:01.000Z', type: 'user', content: 'hi' })
  const gModel = (i: number): string =>
    JSON.stringify({
      id: `g${i}`,
      timestamp: '2026-01-01T00:00:02.000Z',
      type: 'gemini',
      content: 'ok',
      model: 'gemini-2.5-pro',
      tokens: { input: 10, output: 5, cached: 0, thoughts: 0, tool: 0, total: 15 },
    })

  it('Gemini .jsonl: $rewindTo costs what it removes (rewinding each answer, then each prompt from the end)', async () => {
    const lines = function* (n: number): Generator<string> {
      yield geminiHead
      for (let i = 0; i < n; i++) {
        yield gUser(i)
        yield gModel(i)
        yield JSON.stringify({ $rewindTo: `g${i}` })
        yield gModel(i)
      }
      for (let i = n - 1; i >= n / 2; i--) yield JSON.stringify({ $rewindTo: `u${i}` })
    }
    // 400 → 4,000 prompts (8,000 entries): under MAX_SESSION_ENTRIES, so every rewind reaches a run still held
    // and both sizes mean the same (past the cap, rewinds reaching half the session back drop the held runs instead)
    const g = await growth(400, (n) => feed(geminiTranslator, lines(n)))
    report('Gemini .jsonl, N prompts with rewinds', g)
    expect(g.ratio).toBeLessThanOrEqual(BOUND)
  })

  it('Gemini .jsonl: $rewindTo deep into earlier runs, again and again, costs what it removes', async () => {
    const lines = function* (n: number): Generator<string> {
      yield geminiHead
      let id = 0
      for (let round = 0; round < n / 10; round++) {
        const first = id
        for (let i = 0; i < 10; i++) {
          yield gUser(id)
          yield gModel(id)
          id++
        }
        // back into the round's third prompt: 8 runs dropped, 2 kept
        yield JSON.stringify({ $rewindTo: `u${first + 2}` })
      }
    }
    const g = await growth(1_000, (n) => feed(geminiTranslator, lines(n)))
    report('Gemini .jsonl, N prompts rewound in rounds', g)
    expect(g.ratio).toBeLessThanOrEqual(BOUND)
  })

  // The Gemini session translator holds runs until the input ends (a $rewindTo may reach back anywhere) only up to
  // MAX_SESSION_ENTRIES messages: past it the oldest runs are emitted early (src/formats/gemini/session.ts).
  it('Gemini .jsonl: what the reader keeps per message is bounded (a long session does not grow the state without limit)', async () => {
    const lines = function* (n: number): Generator<string> {
      yield geminiHead
      for (let i = 0; i < n; i++) {
        yield gUser(i)
        yield gModel(i)
      }
    }
    const sizes: Array<number> = []
    const g = await growth(2_000, (n) => sizes.push(feed(geminiTranslator, lines(n)).stateChars))
    report('Gemini .jsonl, N prompts', g, `; state ${sizes.at(-2)?.toLocaleString('en-US')} → ${sizes.at(-1)?.toLocaleString('en-US')} characters`)
    expect(g.ratio).toBeLessThanOrEqual(BOUND)
    // 2,000 prompts are 4,000 entries (under the cap); 20,000 prompts hold at most MAX_SESSION_ENTRIES of their 40,000
    const perEntry = (sizes.at(-2) as number) / 4_000
    expect(sizes.at(-1) as number).toBeLessThanOrEqual(perEntry * MAX_SESSION_ENTRIES * 1.1)
    expect(sizes.at(-1) as number).toBeLessThan((sizes.at(-2) as number) * 3)
  })

  it('Gemini .jsonl: runs emitted early stand; a $rewindTo reaching into them drops the runs still held, with a note', () => {
    const n = MAX_SESSION_ENTRIES // 2 entries per prompt: the first half of the runs is emitted early
    const lines = [geminiHead, ...Array.from(times(n, (i) => [gUser(i), gModel(i)])).flat()]
    const whole = feed(geminiTranslator, lines).runs
    expect(whole).toHaveLength(n)
    expect(whole.every((r) => r.ending.kind === 'answered' && r.usage.inputTokens === 10 && r.sessionId === 's')).toBe(true)
    // rewinding to the last prompt drops only the last run, as before the bound
    const last = feed(geminiTranslator, [...lines, JSON.stringify({ $rewindTo: `u${n - 1}` })]).runs
    expect(last).toHaveLength(n - 1)
    expect(last.at(-1)?.diagnostics).toEqual([])
    // rewinding to the first prompt (emitted long ago): the emitted runs stand, the held ones are dropped
    const first = feed(geminiTranslator, [...lines, JSON.stringify({ $rewindTo: 'u0' })]).runs
    const emitted = first.length
    expect(emitted).toBeGreaterThanOrEqual(n / 4)
    expect(emitted).toBeLessThan(n)
    expect(first.at(-1)?.diagnostics.map((d) => d.message)).toEqual([
      `a $rewindTo names a message that is not among the runs still held (the ${emitted} earliest runs were already emitted, past ${MAX_SESSION_ENTRIES} messages held); every run still held was dropped`,
    ])
  })
})

describe('Claude Code subagent files', () => {
  it('attaching N subagent files (each with its own model) is linear in N, not N × models', async () => {
    const root = mkdtempSync(join(tmpdir(), 'run-outcome-subagents-'))
    const sessions = new Map<number, string>()
    const session = (n: number): string => {
      const known = sessions.get(n)
      if (known !== undefined) return known
      const dir = join(root, `n${n}`)
      const sub = join(dir, 'sess', 'subagents')
      mkdirSync(sub, { recursive: true })
      writeFileSync(join(dir, 'sess.jsonl'), '')
      for (let i = 0; i < n; i++) {
        const rec = {
          parentUuid: null,
          isSidechain: true,
          userType: 'external',
          sessionId: 'sess',
          agentId: `a${i}`,
          type: 'assistant',
          uuid: `x${i}`,
          timestamp: '2025-10-30T12:00:01.000Z',
          message: {
            id: `m${i}`,
            model: `model-${i}`,
            role: 'assistant',
            content: [{ type: 'text', text: 'done' }],
            stop_reason: 'end_turn',
            usage: { input_tokens: 1, output_tokens: 1 },
          },
        }
        writeFileSync(join(sub, `agent-a${i}.jsonl`), `${JSON.stringify(rec)}\n`)
      }
      const file = join(dir, 'sess.jsonl')
      sessions.set(n, file)
      return file
    }
    const parent: RunResult = {
      format: 'claude-code',
      sessionId: 'sess',
      ending: { kind: 'answered' },
      finishReason: null,
      response: 'ok',
      structuredOutput: null,
      schemaVersion: 1,
      source: null,
      startedAt: '2025-10-30T12:00:00.000Z',
      endedAt: '2025-10-30T12:00:10.000Z',
      inferred: true,
      turns: 1,
      toolCalls: 0,
      permissionDenials: [],
      usage: { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0, byModel: {} },
      cost: { totalUsd: null, complete: false, missing: 0 },
      durationMs: 10_000,
      children: [],
      diagnostics: [],
      diagnosticsDropped: 0,
    }
    for (const n of [20, 200, 2_000]) session(n)
    let last: Array<RunResult> = []
    const g = await growth(200, async (n) => {
      last = await attachSubagents([parent], session(n))
    })
    report('Claude Code subagents, N files with N models', g)
    expect(last[0]?.children).toHaveLength(2_000)
    expect(Object.keys(last[0]?.usage.byModel ?? {})).toHaveLength(2_000)
    expect(last[0]?.usage.outputTokens).toBe(2_000)
    expect(g.ratio).toBeLessThanOrEqual(BOUND)
  })
})

describe('encodeFoldState on a state built by hand', () => {
  it('a cycle reached twice over at every level (a.x = a; a.y = a) fails at once, not after 2^512 steps of the 512-level cut', async () => {
    const f = new NativeFolder()
    f.push({ type: 'turn/start', sessionId: 's', data: { turn: 1 } })
    const a: Record<string, unknown> = {}
    a['x'] = a
    a['y'] = a
    const state = { ...f.state, extra: a }
    let thrown: unknown
    const work = await countWork(() => {
      try {
        encodeFoldState(state as never)
      } catch (e) {
        thrown = e
      }
    })
    figure(`bounds: encodeFoldState on a doubly cyclic state: work ${work.toLocaleString('en-US')}`)
    expect(thrown).toStrictEqual(new TypeError('the value refers to itself (a cycle): it has no JSON text'))
    expect(work).toBeLessThan(10_000)
  })
})

describe('ACP: many sessions', () => {
  // implicitTurn (src/formats/acp/translate.ts) asked "was any session prompted?" by scanning every session, on
  // each response whose request is not in the log: × 59 for 10× the input. The answer is now kept in the state.
  it('N sessions, each with a response whose request is not in the log: ≤ 12× the work for 10× the sessions', async () => {
    const lines = function* (n: number): Generator<string> {
      for (let i = 0; i < n; i++) {
        yield JSON.stringify({
          jsonrpc: '2.0',
          method: 'session/update',
          params: { sessionId: `s${i}`, update: { sessionUpdate: 'current_mode_update', currentModeId: 'x' } },
        })
        yield JSON.stringify({ jsonrpc: '2.0', id: i, result: { stopReason: 'end_turn' } })
      }
    }
    let runs: Array<RunResult> = []
    const sizes: Array<number> = []
    const g = await growth(500, (n) => {
      const r = feed(acpTranslator, lines(n))
      runs = r.runs
      sizes.push(r.stateChars)
    })
    report('ACP, N sessions each with an unpaired prompt response', g, `; state ${sizes.at(-2)} → ${sizes.at(-1)} characters`)
    // a session left with nothing to remember is forgotten: the state does not grow with the sessions
    expect(sizes.at(-1) as number).toBeLessThanOrEqual((sizes.at(-2) as number) * 1.2)
    expect(g.ratio).toBeLessThanOrEqual(BOUND)
    // each response ends the implicit turn of the last session named: one run per session
    expect(runs).toHaveLength(5_000)
    expect(runs.map((r) => r.sessionId).slice(0, 3)).toStrictEqual(['s0', 's1', 's2'])
    expect(new Set(runs.map((r) => r.ending.kind))).toStrictEqual(new Set([runs[0]?.ending.kind]))
  })
})
