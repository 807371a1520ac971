/** The JetStream consumer's pure parts (no server): keys, checkpoints, deliveries, partitions, the client loader, the CLI's usage errors. */
import { spawnSync } from 'node:child_process'
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { expectSame } from '../reliability/support/equal.js'
import { describe, expect, it } from 'vitest'
import { foldRuns } from '../../src/core/fold.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { mainHelp } from '../../src/cli/main.js'
import { makeConsumeCommand } from '../../src/cli/consumeCommand.js'
import { decodeCheckpoint, SessionFold } from '../../src/jetstream/checkpoint.js'
import { loadNatsClients, MissingNatsClientsError, NATS_PACKAGES } from '../../src/jetstream/clients.js'
import { ackInfo, resolveConfig } from '../../src/jetstream/consumer.js'
import { formatStats } from '../../src/cli/consumeCommand.js'
import {
  parsePartitionedSubject,
  partitionedPattern,
  partitionedSubjectFor,
  partitionFilter,
  resultKey,
  serverMapping,
  sessionFromSubject,
  sessionIdOfKey,
  sessionKey,
  sessionTokenIndex,
  subjectForSession,
  tenureConsumer,
} from '../../src/jetstream/keys.js'
import { sliceText } from '../../src/jetstream/snapshot.js'
import { formatByName } from '../../src/formats/index.js'
import type { Translator } from '../../src/core/translator.js'
import { partitionOf, rebalance, StalenessTracker } from '../../src/jetstream/partitions.js'
import { numRuns, validTraceArb } from '../support/arbitraries.js'
import { binPath, repoRoot, runCli } from '../support/cli.js'

const runs = numRuns()
console.log(`jetstream unit properties: ${runs} runs (FC_NUM_RUNS)`)

const native = formatByName('native')?.translator as Translator<unknown>

/** Applies payloads one by one (stream sequences 1, 2, …) and collects the closed runs, as a worker would. */
const applyAll = (fold: SessionFold, payloads: ReadonlyArray<string>, firstSeq = 1): Array<RunResult> => {
  const closed: Array<RunResult> = []
  const before = fold.runs
  payloads.forEach((p, i) => {
    fold.apply(firstSeq + i, p, (n, result) => {
      // runs are numbered 1, 2, … per session, across checkpoints
      expect(n).toBe(before + closed.length + 1)
      closed.push(result)
    })
  })
  return closed
}

describe('subjects and keys', () => {
  it('finds the session token of a pattern, or says what is wrong with it', () => {
    expect(sessionTokenIndex('agents.*.events')).toBe(1)
    expect(sessionTokenIndex('*.events')).toBe(0)
    expect(sessionTokenIndex('agents.>')).toMatch(/may not contain '>'/)
    expect(sessionTokenIndex('agents.*.*')).toMatch(/exactly one '\*'/)
    expect(sessionTokenIndex('agents.events')).toMatch(/exactly one '\*'/)
    expect(sessionTokenIndex('agents..events')).toMatch(/no empty tokens/)
    expect(sessionTokenIndex('agents.a*.events')).toMatch(/exactly one '\*'/)
  })

  it('reads the session id of a subject and builds the subject of a session', () => {
    expect(sessionFromSubject('agents.*.events', 1, 'agents.s-1.events')).toBe('s-1')
    expect(sessionFromSubject('agents.*.events', 1, 'agents.s-1.other')).toBe(null)
    expect(sessionFromSubject('agents.*.events', 1, 'agents.a.b.events')).toBe(null)
    expect(subjectForSession('agents.*.events', 'x:1')).toBe('agents.x:1.events')
    // an id that cannot be one token made subjects no stream of the pattern captures (found by the user trial)
    for (const bad of ['', 'a.b', 'a b', 'a*', '>', 'tab\there'])
      expect(() => partitionedSubjectFor('agents.*.events', bad, 4), JSON.stringify(bad)).toThrow(RangeError)
    expect(() => subjectForSession('agents.*.events', 'a.b')).toThrow(
      `the session id "a.b" cannot be a subject token (empty, or holding '.', '*', '>' or whitespace)`,
    )
    expect(subjectForSession('agents.*.events', 'sess:1@host=é')).toBe('agents.sess:1@host=é.events')
  })

  it('keys plain ids as themselves and others as =base64url, one-to-one', () => {
    expect(sessionKey('sess-1_A')).toBe('sess-1_A')
    expect(sessionKey('sess:1@host')).toBe('=c2VzczoxQGhvc3Q')
    expect(resultKey('sess:1@host', 2)).toBe('=c2VzczoxQGhvc3Q.2')
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 20, unit: 'grapheme' }), fc.string({ minLength: 1, maxLength: 20, unit: 'grapheme' }), (a, b) => {
        const ka = sessionKey(a)
        expect(/^[-_=a-zA-Z0-9]+$/.test(ka)).toBe(true)
        expect(sessionIdOfKey(ka)).toBe(a)
        if (a !== b) expect(ka).not.toBe(sessionKey(b))
      }),
      { numRuns: runs },
    )
  })
})

describe('partitioned subjects', () => {
  it('insert the partition token before the session token, as the server mapping does', () => {
    expect(partitionedPattern('agents.*.events')).toBe('agents.*.*.events')
    expect(partitionFilter('agents.*.events', 3)).toBe('agents.3.*.events')
    expect(partitionFilter('*.ev', 0)).toBe('0.*.ev')
    expect(serverMapping('agents.*.events', 4)).toStrictEqual({ from: 'agents.*.events', to: 'agents.{{partition(4,1)}}.{{wildcard(1)}}.events' })
    expect(partitionedSubjectFor('agents.*.events', 'sess-1', 4)).toBe(`agents.${partitionOf('sess-1', 4)}.sess-1.events`)
    expect(parsePartitionedSubject('agents.*.events', 1, 'agents.2.s:1.events')).toStrictEqual({ partition: 2, session: 's:1' })
    expect(parsePartitionedSubject('agents.*.events', 1, 'agents.s-1.events')).toBe(null)
    expect(parsePartitionedSubject('agents.*.events', 1, 'agents.x.s-1.events')).toBe(null)
    expect(parsePartitionedSubject('agents.*.events', 1, 'other.2.s-1.events')).toBe(null)
    expect(tenureConsumer('run-outcome', 2, 17)).toBe('run-outcome-2-17')
  })

  it('hash the UTF-8 bytes with FNV-1a, as nats-server does (values checked against 2.9.10 in the consume tests)', () => {
    const fnvBytes = (s: string, n: number): number => {
      let h = 0x811c9dc5
      for (const b of Buffer.from(s, 'utf8')) h = Math.imul(h ^ b, 0x01000193) >>> 0
      return h % n
    }
    for (const id of ['a', 'sess-1', 'sess:1@host', 'élan', '日本', '😀x', 'x\ud800y']) expect(partitionOf(id, 7), id).toBe(fnvBytes(id, 7))
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 1, max: 64 }), (s, n) => {
        expect(partitionOf(s, n)).toBe(fnvBytes(s, n))
      }),
      { numRuns: runs },
    )
  })

  it('read the delivery facts of a JetStream reply subject, old and new forms', () => {
    expect({ ...ackInfo('$JS.ACK.AGENT_EVENTS.run-outcome-0-5.1.42.7.1700000000000000000.12') }).toStrictEqual({
      deliveryCount: 1,
      streamSequence: 42,
      deliverySequence: 7,
      pending: 12,
    })
    expect({ ...ackInfo('$JS.ACK.dom.ACCHASH.S.c.2.9.3.1700000000000000000.0.rnd') }).toStrictEqual({
      deliveryCount: 2,
      streamSequence: 9,
      deliverySequence: 3,
      pending: 0,
    })
    expect(ackInfo('_INBOX.x')).toBe(null)
    expect(ackInfo('$JS.ACK.a.b')).toBe(null)
  })

  it('slice a snapshot text at most max bytes each, joined back byte for byte', () => {
    const text = 'é'.repeat(10) + '\n' + 'x'.repeat(7)
    const slices = sliceText(text, 4)
    expect(slices.every((s) => s.length <= 4)).toBe(true)
    expect(Buffer.concat(slices).toString('utf8')).toBe(text)
  })
})

describe('checkpoints', () => {
  it('applying the messages one by one closes the same runs as foldRuns, and the open run is its last', () => {
    fc.assert(
      fc.property(validTraceArb, (trace) => {
        const fold = new SessionFold(native, 'root')
        const closed = applyAll(
          fold,
          trace.map((e) => JSON.stringify(e)),
        )
        const whole = foldRuns(trace)
        if (E.isLeft(whole)) throw whole.left
        const expectedClosed = fold.open || closed.length === 0 ? whole.right.slice(0, -1) : whole.right
        expect(closed).toStrictEqual(expectedClosed)
        expect([fold.applied, fold.protocolErrors, fold.runs]).toStrictEqual([trace.length, 0, closed.length])
      }),
      { numRuns: runs },
    )
  })

  it('survives a checkpoint round trip at any point (what a restarted worker resumes from)', () => {
    fc.assert(
      fc.property(validTraceArb, fc.nat(), (trace, cut) => {
        const k = cut % (trace.length + 1)
        const payloads = trace.map((e) => JSON.stringify(e))
        const first = new SessionFold(native, 'root')
        const closedA = applyAll(first, payloads.slice(0, k))
        const restored = decodeCheckpoint(native, first.encode())
        if (E.isLeft(restored)) throw restored.left
        const resumed = new SessionFold(native, 'root', restored.right)
        const closedB = applyAll(resumed, payloads.slice(k), k + 1)
        const straight = new SessionFold(native, 'root')
        const closedAll = applyAll(straight, payloads)
        expect([...closedA, ...closedB]).toStrictEqual(closedAll)
        // equal as JSON values (the fold keeps its id indexes prototype-less; JSON.parse gives ordinary objects)
        expectSame(JSON.parse(resumed.encode()), JSON.parse(straight.encode()), 'restored checkpoint')
      }),
      { numRuns: runs },
    )
  })

  it('records a malformed event as a diagnostic naming its stream sequence, skips it, and goes on', () => {
    const fold = new SessionFold(native, 's')
    const good = [
      { type: 'turn/start', sessionId: 's', data: { turn: 1 } },
      {
        type: 'assistant/message',
        sessionId: 's',
        data: { turn: 1, step: 1, message: { content: [{ type: 'text', text: 'hi' }] }, usage: { inputTokens: 3, outputTokens: 1 } },
      },
    ]
    const closed: Array<[number, RunResult]> = []
    const on = (n: number, r: RunResult) => closed.push([n, r])
    expect(fold.apply(10, JSON.stringify(good[0]), on)).toBe(undefined)
    const bad = fold.apply(11, '{"type": "turn/end", "sessionId": "s", "data": {"turn": 1, "reason": {"kind": 7}}}', on)
    expect(bad?.toJSON()).toMatchObject({ kind: 'turn-end', path: 'reason.kind', expected: 'string', index: 1 })
    expect(fold.apply(12, 'nope', on)?.kind).toBe('json')
    expect(fold.apply(13, new TextEncoder().encode(JSON.stringify(good[1])), on)).toBe(undefined)
    fold.apply(14, JSON.stringify({ type: 'session/status', sessionId: 's', data: { status: 'idle' } }), on)
    expect(closed.map(([n]) => n)).toStrictEqual([1])
    const r = (closed[0] as [number, RunResult])[1]
    // the idle closes the run; an unfinished run names its last event before it
    expect(r.ending).toStrictEqual({ kind: 'unfinished', lastEventType: 'assistant/message' })
    expect(r.usage).toMatchObject({ inputTokens: 3, outputTokens: 1 })
    expect(r.diagnostics.map((d) => d.message)).toStrictEqual([
      'protocol error in the event at stream sequence 11, skipped: event #1 (turn/end) at reason.kind: expected string; a turn/end must carry data.reason with a string kind (SPEC §4)',
      'protocol error in the event at stream sequence 12, skipped: event #1: not valid JSON; every line of a native log must be one JSON object',
    ])
    expect([fold.applied, fold.protocolErrors, fold.runs, fold.open]).toStrictEqual([5, 2, 1, false])
  })

  it('every format: a vendor log folded record by record through checkpoints gives the one-shot pipeline results', async () => {
    const { readFileSync } = await import('node:fs')
    const { Pipeline } = await import('../../src/core/pipeline.js')
    for (const [format, file] of [
      ['claude-code', 'test/fixtures/claude-code-stream-json/task_tool_output.jsonl'],
      ['codex', 'test/fixtures/codex-exec-json/codex.jsonl'],
      ['gemini', 'test/fixtures/gemini-stream-json/gemini.jsonl'],
      ['ai-sdk', 'test/fixtures/ai-sdk-fullstream/synthetic-tool-loop-answered.jsonl'],
      ['acp', 'test/fixtures/acp/synthetic-two-prompts.jsonl'],
      ['openai-agents', 'test/fixtures/openai-agents-stream/synthetic-handoff.jsonl'],
    ] as const) {
      const translator = formatByName(format)?.translator as Translator<unknown>
      const lines = readFileSync(`${repoRoot}/${file}`, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
      const oneShot = new Pipeline(translator, { live: true })
      for (const l of lines) oneShot.textLine(l, undefined)
      const want = oneShot.takeResults()
      expect(want.length, file).toBeGreaterThan(0)
      for (let cut = 0; cut <= lines.length; cut++) {
        const a = new SessionFold(translator, 'x')
        const got = applyAll(a, lines.slice(0, cut))
        const cp = decodeCheckpoint(translator, a.encode())
        if (E.isLeft(cp)) throw cp.left
        got.push(...applyAll(new SessionFold(translator, 'x', cp.right), lines.slice(cut), cut + 1))
        expect(got, `${format} cut at ${cut}`).toStrictEqual(want)
      }
      // a checkpoint of one format is not one of another
      expect(E.isLeft(decodeCheckpoint(native, new SessionFold(translator, 'x').encode()))).toBe(true)
    }
  })

  it('a session past the checkpoint bound gets its run closed with a diagnostic and starts again, run numbers going on', () => {
    const fold = new SessionFold(native, 's')
    const on = () => undefined
    fold.apply(1, JSON.stringify({ type: 'user/message', sessionId: 's', data: { message: 'x' } }), on)
    fold.apply(2, JSON.stringify({ type: 'turn/start', sessionId: 's', data: { turn: 1 } }), on)
    fold.apply(3, JSON.stringify({ type: 'session/status', sessionId: 's', data: { status: 'idle' } }), on)
    fold.apply(4, JSON.stringify({ type: 'turn/start', sessionId: 's', data: { turn: 1 } }), on)
    const closed = fold.restart(5000, 4096)
    if (closed === null) throw new Error('the open run was not closed')
    const { n, result } = closed
    expect(n).toBe(2)
    expect(result.turns).toBe(1)
    expect(result.diagnostics.map((d) => d.message)).toStrictEqual([
      "the session's checkpoint grew to 5000 bytes, past the 4096-byte bound: its run was closed here and its fold restarted (docs/scale-out.md §4)",
    ])
    expect([fold.runs, fold.open]).toStrictEqual([2, false])
    const next: Array<number> = []
    fold.apply(5, JSON.stringify({ type: 'turn/start', sessionId: 's', data: { turn: 1 } }), on)
    fold.apply(6, JSON.stringify({ type: 'session/status', sessionId: 's', data: { status: 'idle' } }), (k) => next.push(k))
    expect(next).toStrictEqual([3])
    // with no run open, only the state is dropped: no empty run is made, run numbers stay
    expect([fold.open, fold.restart(5000, 4096), fold.runs]).toStrictEqual([false, null, 3])
    fold.apply(7, JSON.stringify({ type: 'turn/start', sessionId: 's', data: { turn: 1 } }), on)
    fold.apply(8, JSON.stringify({ type: 'session/status', sessionId: 's', data: { status: 'idle' } }), (k) => next.push(k))
    expect(next).toStrictEqual([3, 4])
  })

  it('checks the session bound at points fixed by its records: every 256th message, or after a message of limit / 64 bytes', () => {
    const fold = new SessionFold(native, 's')
    const on = () => undefined
    const text = (k: number) =>
      // a model of its own per message: the run's usage by model grows
      JSON.stringify({
        type: 'assistant/message',
        sessionId: 's',
        data: { turn: 1, step: k, message: { content: [] }, usage: { inputTokens: 1, outputTokens: 1 }, model: `model-${k}-${'x'.repeat(40)}` },
      })
    fold.apply(1, JSON.stringify({ type: 'user/message', sessionId: 's', data: { message: 'x' } }), on)
    fold.apply(2, JSON.stringify({ type: 'turn/start', sessionId: 's', data: { turn: 1 } }), on)
    const cuts: Array<number> = []
    for (let k = 3; k <= 600; k++) {
      const t = text(k)
      fold.apply(k, t, on)
      expect(t.length).toBeLessThan(16384 / 64)
      const cut = fold.checkBound(16384, t.length)
      if (cut !== undefined) {
        cuts.push(fold.applied)
        expect(cut.closed?.n).toBe(cuts.length)
        expect(cut.bytes).toBeGreaterThan(16384)
      }
    }
    // past 16 KiB long before message 256, but checked only there and at 512
    expect(cuts).toStrictEqual([256, 512])
    expect(fold.runs).toBe(2)
    // a message of at least limit / 64 bytes is checked at once
    const big = JSON.stringify({ type: 'user/message', sessionId: 's', data: { message: 'y'.repeat(5000) } })
    fold.apply(601, big, on)
    expect(fold.checkBound(16384, big.length)?.closed?.n).toBe(3)
    expect(fold.applied % 256).not.toBe(0)
  })

  it('rejects a stored checkpoint that is not one, naming the path and never the value', () => {
    const good = JSON.parse(new SessionFold(native, 's').encode()) as Record<string, unknown>
    const bad = decodeCheckpoint(native, JSON.stringify({ ...good, applied: 'secret-value' }))
    expect(E.isLeft(bad) && [bad.left.path, bad.left.expected, bad.left.message.includes('secret-value')]).toStrictEqual(['applied', 'number', false])
    expect(E.isLeft(decodeCheckpoint(native, '{'))).toBe(true)
  })
})

describe('partitions and leases', () => {
  it('hash a session to the same partition every time, spreading sessions over all of them', () => {
    expect(partitionOf('sess-1', 4)).toBe(partitionOf('sess-1', 4))
    const counts = [0, 0, 0, 0]
    for (let i = 0; i < 4000; i++) {
      const p = partitionOf(`sess-${i}`, 4)
      counts[p] = (counts[p] ?? 0) + 1
    }
    for (const c of counts) expect(c).toBeGreaterThan(800)
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 64 }), (s, n) => {
        const p = partitionOf(s, n)
        expect(Number.isInteger(p) && p >= 0 && p < n).toBe(true)
      }),
      { numRuns: runs },
    )
  })

  it('rebalance: each live worker aims at ceil(P / workers), releasing the highest, taking the lowest free', () => {
    const v = (states: string) =>
      [...states].map((c, partition) => ({ partition, state: c === 'm' ? ('mine' as const) : c === 'f' ? ('free' as const) : ('taken' as const) }))
    expect(rebalance(v('ffff'), 1)).toStrictEqual({ acquire: [0, 1, 2, 3], release: [] })
    expect(rebalance(v('mmmm'), 2)).toStrictEqual({ acquire: [], release: [3, 2] })
    expect(rebalance(v('ttmm'), 2)).toStrictEqual({ acquire: [], release: [] })
    expect(rebalance(v('tfft'), 2)).toStrictEqual({ acquire: [1, 2], release: [] })
    expect(rebalance(v('tmtf'), 2)).toStrictEqual({ acquire: [3], release: [] })
    expect(rebalance(v('ttt'), 4)).toStrictEqual({ acquire: [], release: [] })
  })

  it("rebalance with the peers' counts: no live worker stays idle (4 partitions, 3 workers end 2, 1, 1)", () => {
    const v = (states: string) =>
      [...states].map((c, partition) => ({ partition, state: c === 'm' ? ('mine' as const) : c === 'f' ? ('free' as const) : ('taken' as const) }))
    // a and b hold two each, c none: the smaller id of those above floor (1) releases one
    expect(
      rebalance(v('mmtt'), 3, 'a', [
        { id: 'b', held: 2 },
        { id: 'c', held: 0 },
      ]),
    ).toStrictEqual({ acquire: [], release: [1] })
    expect(
      rebalance(v('ttmm'), 3, 'b', [
        { id: 'a', held: 2 },
        { id: 'c', held: 0 },
      ]),
    ).toStrictEqual({ acquire: [], release: [] })
    // c takes the freed one; a worker at floor leaves free partitions to a starving peer
    expect(
      rebalance(v('tftt'), 3, 'c', [
        { id: 'a', held: 1 },
        { id: 'b', held: 2 },
      ]),
    ).toStrictEqual({ acquire: [1], release: [] })
    expect(
      rebalance(v('mftt'), 3, 'a', [
        { id: 'b', held: 2 },
        { id: 'c', held: 0 },
      ]),
    ).toStrictEqual({ acquire: [], release: [] })
    // once balanced (2, 1, 1) nothing moves
    expect(
      rebalance(v('mmtt'), 3, 'a', [
        { id: 'b', held: 1 },
        { id: 'c', held: 1 },
      ]),
    ).toStrictEqual({ acquire: [], release: [] })
    expect(
      rebalance(v('ttmt'), 3, 'c', [
        { id: 'a', held: 2 },
        { id: 'b', held: 1 },
      ]),
    ).toStrictEqual({ acquire: [], release: [] })
    // a simulation from any start converges with every worker holding floor or ceil
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 5 }), fc.array(fc.nat(), { minLength: 12, maxLength: 12 }), (P, W, start) => {
        const ids = Array.from({ length: W }, (_, i) => `w${i}`)
        const owner: Array<string | null> = Array.from({ length: P }, (_, p) =>
          (start[p] ?? 0) % (W + 1) === W ? null : (ids[(start[p] ?? 0) % (W + 1)] as string),
        )
        for (let round = 0; round < 4 * P + 8; round++) {
          for (const me of ids) {
            const views = owner.map((o, partition) => ({
              partition,
              state: o === me ? ('mine' as const) : o === null ? ('free' as const) : ('taken' as const),
            }))
            const peers = ids.filter((x) => x !== me).map((x) => ({ id: x, held: owner.filter((o) => o === x).length }))
            const plan = rebalance(views, W, me, peers)
            for (const p of plan.release) owner[p] = null
            for (const p of plan.acquire) if (owner[p] === null) owner[p] = me
          }
        }
        const counts = ids.map((x) => owner.filter((o) => o === x).length)
        expect(
          owner.every((o) => o !== null),
          `${P}/${W} all held`,
        ).toBe(true)
        for (const c of counts) expect(c === Math.floor(P / W) || c === Math.ceil(P / W), `${P}/${W}: ${counts.join(',')}`).toBe(true)
      }),
      { numRuns: Math.min(runs, 300) },
    )
  })

  it('calls a key stale only when its revision has not moved for a lease time, by the local clock', () => {
    const t = new StalenessTracker(1000)
    expect(t.observe('k', 5, 0)).toBe(false)
    expect(t.observe('k', 5, 999)).toBe(false)
    expect(t.observe('k', 5, 1000)).toBe(true)
    expect(t.observe('k', 6, 1500)).toBe(false)
    expect(t.observe('k', 6, 2400)).toBe(false)
    t.forget('k')
    expect(t.observe('k', 6, 5000)).toBe(false)
  })
})

describe('the NATS clients are optional', () => {
  const notFound = (name: string) => Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' })

  it('names every missing package and how to add them', async () => {
    const err = await loadNatsClients(async (name) => {
      if (name === '@nats-io/kv') return {}
      throw notFound(name)
    }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(MissingNatsClientsError)
    expect((err as MissingNatsClientsError).missing).toStrictEqual(['@nats-io/transport-node', '@nats-io/jetstream'])
    expect((err as Error).message).toContain('npm install @nats-io/transport-node@^3.4.0 @nats-io/jetstream@^3.4.0 @nats-io/kv@^3.4.0')
  })

  it('passes other import failures on, and loads the installed packages', async () => {
    await expect(loadNatsClients(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    const clients = await loadNatsClients()
    expect([typeof clients.transport.connect, typeof clients.jetstream.jetstream, typeof clients.kv.Kvm]).toStrictEqual(['function', 'function', 'function'])
    expect(NATS_PACKAGES).toHaveLength(3)
  })

  it('consume without them exits 2 saying which packages to add', async () => {
    let stderr = ''
    const io = { stdin: (async function* () {})(), stdout: { write: () => true }, stderr: { write: (s: string) => (stderr += s) }, env: {} }
    const code = await makeConsumeCommand(() => loadNatsClients(async (name) => Promise.reject(notFound(name))))(['--server', 'nats://127.0.0.1:4222'], io)
    expect(code).toBe(2)
    expect(stderr).toMatch(
      /^run-outcome consume: the JetStream consumer needs the NATS clients, .*not installed: @nats-io\/transport-node, @nats-io\/jetstream, @nats-io\/kv\. Add them with: npm install /,
    )
  })
})

describe('consume usage', () => {
  it('is listed in the top-level help and has its own', async () => {
    expect(mainHelp()).toMatch(/\n {2}consume +fold agent sessions from NATS JetStream/)
    const r = await runCli(['consume', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^Usage: run-outcome consume --server nats:\/\/HOST:PORT \[options\]/)
    expect(r.stdout).toContain('--partitions N')
  })

  it('progress lines give each count its noun in the right number (the user trial read "1 sessions")', () => {
    const stats = (n: number) => ({
      elapsedMs: 1000,
      events: n,
      eventsPerSecond: n,
      openSessions: n,
      sessions: n,
      resultsWritten: n,
      protocolErrors: n,
      commits: n,
      snapshotBytes: 0,
      resyncs: n,
      restartedSessions: n,
      skipped: 0,
      partitions: [0],
      partitionCount: 2,
    })
    expect(formatStats(stats(1), false)).toBe(
      'run-outcome consume: 1 event (1/s), partitions [0] of 2, 1 session, 1 open, 1 result written, 1 protocol error, 1 snapshot, 1 resync, 1 session restarted (too large)\n',
    )
    expect(formatStats(stats(2), true)).toBe(
      'run-outcome consume: stopped after 2 events (2/s average), 2 sessions, 2 open, 2 results written, 2 protocol errors, 2 snapshots, 2 resyncs, 2 sessions restarted (too large)\n',
    )
  })

  it('rejects other formats, a missing server and bad numbers or names with exit 2', async () => {
    const unknown = await runCli(['consume', '--server', 'nats://127.0.0.1:1', '--format', 'nope'])
    expect([unknown.code, unknown.stderr]).toStrictEqual([
      2,
      expect.stringMatching(/^run-outcome consume: --format nope is not a format consume reads \(one of: native, claude-code, codex, /),
    ])
    expect(() => resolveConfig({ format: 'auto' })).toThrow('unknown format "auto"')
    expect(resolveConfig({ format: 'gemini' }).translator.format).toBe('gemini')
    // a time past a Node timer's 2^31 − 1 ms fired at once (--lease 1e9 took no partition, with warnings)
    expect(() => resolveConfig({ leaseMs: 1e12 })).toThrow('the lease time must be at most 2147483 s (about 24 days)')
    expect(() => resolveConfig({ snapshotMs: 2 ** 31 })).toThrow('the snapshot interval must be at most 2147483 s (about 24 days)')
    expect(() => resolveConfig({ progressIntervalMs: 1e10 })).toThrow('the progress interval must be at most 2147483 s (about 24 days)')
    expect(resolveConfig({ leaseMs: 2 ** 31 - 1 }).leaseMs).toBe(2 ** 31 - 1)
    const huge = await runCli(['consume', '--server', 'nats://127.0.0.1:1', '--lease', '1e9'])
    expect([huge.code, huge.stderr]).toStrictEqual([2, 'run-outcome consume: the lease time must be at most 2147483 s (about 24 days)\n'])
    const none = await runCli(['consume'])
    expect([none.code, none.stderr]).toStrictEqual([2, expect.stringMatching(/give the NATS server with --server/)])
    const zero = await runCli(['consume', '--server', 'nats://127.0.0.1:1', '--partitions', '0'])
    expect([zero.code, zero.stderr]).toStrictEqual([2, expect.stringMatching(/--partitions takes a number above 0/)])
    const subjects = await runCli(['consume', '--server', 'nats://127.0.0.1:1', '--subjects', 'agents.>'])
    expect([subjects.code, subjects.stderr]).toStrictEqual([
      2,
      "run-outcome consume: the subject pattern may not contain '>' (use one '*' for the session id)\n",
    ])
    const name = await runCli(['consume', '--server', 'nats://127.0.0.1:1', '--stream', 'a.b'])
    expect([name.code, name.stderr]).toStrictEqual([2, "run-outcome consume: the stream name may contain only letters, digits, '-' and '_'\n"])
    const extra = await runCli(['consume', 'file.jsonl'])
    expect(extra.code).toBe(2)
  })
})

describe('the built package without the NATS clients', () => {
  // a resolve hook that makes every @nats-io package missing, as in an install without the optional peers
  const hook = `export async function resolve(specifier, context, next) {
    if (specifier.startsWith('@nats-io/')) throw Object.assign(new Error("Cannot find package '" + specifier + "'"), { code: 'ERR_MODULE_NOT_FOUND' })
    return next(specifier, context)
  }`
  const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)})`)}`
  const node = (args: ReadonlyArray<string>) =>
    spawnSync(process.execPath, ['--import', register, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 })

  it('loads the core, the CLI and run-outcome/jetstream, and consume says which packages to add', () => {
    const script = `
      const core = await import('run-outcome')
      const js = await import('run-outcome/jetstream')
      console.log(JSON.stringify([typeof core.foldEvents, typeof js.startConsumer, js.sessionKey('a:b')]))
    `
    const loaded = node(['--input-type=module', '-e', script])
    expect([loaded.stderr, JSON.parse(loaded.stdout)]).toStrictEqual(['', ['function', 'function', '=YTpi']])
    const consume = node([binPath, 'consume', '--server', 'nats://127.0.0.1:1'])
    expect([consume.status, consume.stderr]).toStrictEqual([
      2,
      'run-outcome consume: the JetStream consumer needs the NATS clients, optional peer dependencies of run-outcome that are not installed: @nats-io/transport-node, @nats-io/jetstream, @nats-io/kv. Add them with: npm install @nats-io/transport-node@^3.4.0 @nats-io/jetstream@^3.4.0 @nats-io/kv@^3.4.0\n',
    ])
    expect(node([binPath, 'replay', '--help']).status).toBe(0)
  })
})
