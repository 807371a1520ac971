/**
 * The library boundary and the values it produces (issue 14): `foldEvents` / `foldRuns` / `resumeFold` on
 * anything a caller can hand them never throw and never read a field twice; `resumeFold` checks the state;
 * `maxDocumentBytes` is checked; a sparse array claiming 2³²−1 elements costs nothing; durations are never
 * negative and costs never infinite (each replaced by `null` with a diagnostic).
 */
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeEvent } from '../../src/core/decodeEvent.js'
import { foldEvents, foldRuns, initialState } from '../../src/core/fold.js'
import { resumeFold } from '../../src/core/resumeFold.js'
import { Pipeline } from '../../src/core/pipeline.js'
import { MAX_EVENT_VALUES } from '../../src/core/plainData.js'
import { estimateCost, priceTableEstimator } from '../../src/core/prices.js'
import { finishRun, newDraft, type RunResult } from '../../src/core/RunResult.js'
import { codexTranslator } from '../../src/formats/codex.js'
import { ReplayError, replayStream } from '../../src/node/replay.js'
import { runCli } from '../support/cli.js'

const ev = (type: string, data: unknown, extra: Record<string, unknown> = {}) => ({ type, sessionId: 's', data, ...extra })
const completed = ev('turn/end', { turn: 1, reason: { kind: 'completed' } })
const left = <A>(r: E.Either<{ kind: string; index: number; path: string; expected: string }, A>) =>
  E.isLeft(r) ? { kind: r.left.kind, index: r.left.index, path: r.left.path, expected: r.left.expected } : 'right'

describe('foldEvents / foldRuns on anything', () => {
  it('a non-iterable is a ProtocolError (kind event), not a TypeError', () => {
    for (const bad of [42, null, undefined, {}, { [Symbol.iterator]: 5 }, () => 1]) {
      const want = { kind: 'event', index: 0, path: '', expected: 'an iterable of events' }
      expect(left(foldEvents(bad as never))).toStrictEqual(want)
      expect(left(foldRuns(bad as never))).toStrictEqual(want)
    }
  })

  it('an iteration that throws ends with a ProtocolError at the index reached', () => {
    function* failing(): Generator<unknown> {
      yield ev('turn/start', { turn: 1 })
      throw new Error('source broke')
    }
    expect(left(foldEvents(failing()))).toStrictEqual({ kind: 'event', index: 1, path: '', expected: 'an iterable whose events can be read' })
    const badIterator = { [Symbol.iterator]: () => ({ next: () => 7 }) }
    expect(left(foldEvents(badIterator as never))).toStrictEqual({ kind: 'event', index: 0, path: '', expected: 'an iterable whose events can be read' })
  })

  it('throwing getters, throwing Proxy traps and revoked proxies are ProtocolErrors naming the field', () => {
    const getter = {
      type: 'turn/end',
      sessionId: 's',
      get data(): unknown {
        throw new Error('boom')
      },
    }
    expect(left(foldEvents([getter]))).toStrictEqual({ kind: 'event', index: 0, path: 'data', expected: 'a readable value' })
    const deep = ev('turn/end', {
      turn: 1,
      reason: {
        get kind(): string {
          throw new Error('boom')
        },
      },
    })
    expect(left(foldEvents([ev('turn/start', { turn: 1 }), deep]))).toStrictEqual({
      kind: 'event',
      index: 1,
      path: 'data.reason.kind',
      expected: 'a readable value',
    })
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('trap')
        },
      },
    )
    expect(left(foldEvents([trap]))).toStrictEqual({ kind: 'event', index: 0, path: '', expected: 'a readable value' })
    const { proxy, revoke } = Proxy.revocable({ type: 'turn/start' }, {})
    revoke()
    expect(left(foldEvents([proxy]))).toStrictEqual({ kind: 'event', index: 0, path: '', expected: 'a readable value' })
    expect(left(decodeEvent(getter, 3) as never)).toStrictEqual({ kind: 'event', index: 3, path: 'data', expected: 'a readable value' })
  })

  it('each field is read once: a getter cannot pass validation and then read differently', () => {
    let reads = 0
    const shifty = {
      type: 'turn/end',
      sessionId: 's',
      data: {
        turn: 1,
        get reason(): unknown {
          reads++
          return reads === 1 ? { kind: 'completed' } : { kind: 42 }
        },
      },
    }
    const r = foldEvents([ev('turn/start', { turn: 1 }), shifty])
    expect(E.isRight(r) && [r.right.ending, r.right.finishReason]).toStrictEqual([{ kind: 'answered' }, 'completed'])
    expect(reads).toBe(1)
    // and the other way round: what fails validation is what the error describes
    reads = 0
    let kindReads = 0
    const flips = ev('turn/end', {
      turn: 1,
      reason: {
        get kind(): unknown {
          kindReads++
          return kindReads === 1 ? 7 : 'completed'
        },
      },
    })
    expect(left(foldEvents([flips]))).toStrictEqual({ kind: 'turn-end', index: 0, path: 'reason.kind', expected: 'string' })
    expect(kindReads).toBe(1)
  })

  it('a sparse array claiming 2³²−1 elements is refused at once (bounded work), in foldEvents and decodeEvent', () => {
    const inserted: Array<unknown> = []
    inserted.length = 2 ** 32 - 1
    inserted[5] = { id: 'm1' }
    const spliced = ev('agent/inbox/spliced', { inserted })
    const want = { kind: 'event', index: 0, path: 'data.inserted', expected: `at most ${MAX_EVENT_VALUES.toLocaleString('en-US')} JSON values` }
    expect(left(foldEvents([spliced]))).toStrictEqual(want)
    expect(left(decodeEvent(spliced, 0) as never)).toStrictEqual(want)
    // a modest sparse array is read as JSON reads it: holes are null
    const small: Array<unknown> = []
    small[3] = { id: 'm1' }
    const r = decodeEvent(ev('agent/inbox/spliced', { inserted: small }), 0)
    expect(E.isRight(r) && r.right.type).toBe('run-outcome/ignored')
  })

  it('a cyclic or 100,000-level event value is cut at 512 levels, never a stack overflow', () => {
    const cyclic: Record<string, unknown> = { type: 'assistant/message', sessionId: 's' }
    cyclic['data'] = { message: { content: [{ type: 'text', text: 'ok' }] }, loop: cyclic }
    const r = foldEvents([ev('turn/start', { turn: 1 }), cyclic, completed])
    expect(E.isRight(r) && [r.right.ending, r.right.response]).toStrictEqual([{ kind: 'answered' }, 'ok'])
  })
})

describe('resumeFold', () => {
  it('a malformed state is a ProtocolError naming the first bad path, never an exception', () => {
    const good = initialState()
    for (const [bad, path] of [
      [null, ''],
      [{}, 'version'],
      [{ ...good, sessions: 5 }, 'sessions'],
      [{ ...good, run: { ...good.run, draft: { ...good.run.draft, diagnostics: 'x' } } }, 'run.draft.diagnostics'],
    ] as const) {
      const r = resumeFold(bad as never, [completed])
      expect(left(r)).toStrictEqual({ kind: 'event', index: 0, path, expected: 'a fold state (decode a checkpoint with decodeFoldState)' })
    }
    const ok = resumeFold(good, [ev('turn/start', { turn: 1 }), completed])
    expect(E.isRight(ok) && ok.right.state.run.ending).toStrictEqual({ kind: 'answered' })
  })
})

async function* chunks(...bufs: Array<Buffer>): AsyncGenerator<Buffer> {
  yield* bufs
}

describe('replayStream options', () => {
  it('maxDocumentBytes must be a non-negative number', async () => {
    for (const bad of [Number.NaN, -1, '5' as unknown as number]) {
      await expect(replayStream(chunks(Buffer.from('{}\n')), () => {}, { maxDocumentBytes: bad })).rejects.toStrictEqual(
        new ReplayError('bad-option', 'maxDocumentBytes must be a non-negative number of bytes'),
      )
    }
  })
})

describe('values', () => {
  it('a clock that goes backwards: durationMs null and a diagnostic, never a negative duration', () => {
    const r = foldEvents([
      ev('turn/start', { turn: 1 }, { time: 2_000 }),
      ev('assistant/message', { message: { content: [{ type: 'text', text: 'a' }] } }, { time: 1_500 }),
      ev('turn/end', { turn: 1, reason: { kind: 'completed' } }, { time: 1_000 }),
    ])
    expect(E.isRight(r) && [r.right.durationMs, r.right.startedAt, r.right.endedAt, r.right.diagnostics]).toStrictEqual([
      null,
      '1970-01-01T00:00:02.000Z',
      '1970-01-01T00:00:01.000Z',
      [{ message: 'the run ends before it starts (its clock went backwards, or the source gives a negative duration): duration unknown' }],
    ])
    const d = newDraft()
    const x = finishRun(d, { format: 'native', sessionId: null, ending: { kind: 'answered' }, finishReason: null, response: null, durationMs: -5 })
    expect([x.durationMs, x.diagnostics.length]).toStrictEqual([null, 1])
  })

  it('a 1e308 price gives an unknown cost, never $Infinity (per request and per run)', () => {
    const table = { 'gpt-huge': { input: 1e308, output: 1e308 } }
    const p = new Pipeline(codexTranslator, { file: null, estimate: priceTableEstimator(table) })
    const lines = [
      { type: 'thread.started', thread_id: 't' },
      { type: 'turn.started' },
      { type: 'item.completed', item: { id: 'i', type: 'agent_message', text: 'hi' } },
      { type: 'turn.completed', usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5 } },
    ]
    lines.forEach((l, i) => p.textLine(JSON.stringify(l), i + 1))
    p.end()
    const [run] = p.takeResults()
    expect(run?.cost.totalUsd ?? null).toBeNull()
    expect(JSON.stringify(run)).not.toMatch(/Infinity/)
    const noCost: RunResult = {
      ...(run as RunResult),
      usage: {
        ...(run as RunResult).usage,
        byModel: { 'gpt-huge': { inputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 5, reasoningTokens: 0, costUsd: null } },
      },
      cost: { totalUsd: null, complete: false, missing: 1 },
    }
    const est = estimateCost(noCost, table)
    expect([est.cost.totalUsd, est.usage.byModel['gpt-huge']?.costUsd]).toStrictEqual([null, null])
  })

  it('reported costs that sum past 2^53−1 USD are unknown with a diagnostic, not a rounded or infinite figure', () => {
    const msg = (costUsd: number, id: string) =>
      ev('assistant/message', {
        message: { content: [{ type: 'text', text: 'a' }] },
        usage: { inputTokens: 1, outputTokens: 1 },
        model: 'm',
        costUsd,
        messageId: id,
      })
    const r = foldEvents([ev('turn/start', { turn: 1 }), msg(9e15, 'a'), msg(9e15, 'b'), completed])
    expect(E.isRight(r) && [r.right.cost, r.right.usage.byModel['m']?.costUsd, r.right.diagnostics.map((d) => d.message)]).toStrictEqual([
      { totalUsd: null, complete: false, missing: 0 },
      null,
      ['a cost summed to a figure that is not a finite USD amount (a price or reported cost too large): cost unknown'],
    ])
  })
})

describe('the CLI entry', () => {
  it('`help __proto__`, `constructor`, `toString`: an unknown command (exit 2), never an internal error; the name is shown safely', async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      for (const argv of [['help', name], [name], [name, '--version']]) {
        const r = await runCli(argv)
        expect([argv, r.code, r.stdout]).toStrictEqual([argv, 2, ''])
        expect(r.stderr).toMatch(new RegExp(`^run-outcome: unknown command "${name}"\\. Commands: `))
      }
    }
    const evil = await runCli(['\u001b]52;c;aGk=\u0007x'])
    expect(evil.stderr).toContain('unknown command "\\x1b]52;c;aGk=\\x07x"')
  })
})
