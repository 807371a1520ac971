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
import {
  applyMessage,
  cloneCheckpoint,
  decodeCheckpoint,
  encodeCheckpoint,
  newCheckpoint,
  type SessionCheckpoint,
} from '../../src/jetstream/checkpoint.js'
import { loadNatsClients, MissingNatsClientsError, NATS_PACKAGES } from '../../src/jetstream/clients.js'
import { DeliverySet } from '../../src/jetstream/deliveries.js'
import { resultKey, sessionFromSubject, sessionIdOfKey, sessionKey, sessionTokenIndex, subjectForSession } from '../../src/jetstream/keys.js'
import { partitionOf, rebalance, StalenessTracker } from '../../src/jetstream/partitions.js'
import { numRuns, validTraceArb } from '../support/arbitraries.js'
import { binPath, repoRoot, runCli } from '../support/cli.js'

const runs = numRuns()
console.log(`jetstream unit properties: ${runs} runs (FC_NUM_RUNS)`)

/** Applies payloads one by one (stream sequences 1, 2, …) and collects the closed runs, as a worker would. */
const applyAll = (cp: SessionCheckpoint, payloads: ReadonlyArray<string>, firstSeq = 1): Array<RunResult> => {
  const closed: Array<RunResult> = []
  const before = cp.fold.runs
  payloads.forEach((p, i) => {
    const r = applyMessage(cp, firstSeq + i, p)
    if (r.closed !== null) {
      // runs are numbered 1, 2, … per session, across checkpoints
      expect(r.closed.n).toBe(before + closed.length + 1)
      closed.push(r.closed.result)
    }
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

describe('checkpoints', () => {
  it('applying the messages one by one closes the same runs as foldRuns, and the open run is its last', () => {
    fc.assert(
      fc.property(validTraceArb, (trace) => {
        const cp = newCheckpoint('root')
        const closed = applyAll(
          cp,
          trace.map((e) => JSON.stringify(e)),
        )
        const whole = foldRuns(trace)
        if (E.isLeft(whole)) throw whole.left
        const expectedClosed = cp.fold.run.draft.hasContent || closed.length === 0 ? whole.right.slice(0, -1) : whole.right
        expect(closed).toStrictEqual(expectedClosed)
        expect([cp.lastSeq, cp.applied, cp.protocolErrors]).toStrictEqual([trace.length, trace.length, 0])
      }),
      { numRuns: runs },
    )
  })

  it('survives a checkpoint round trip at any point (what a restarted worker resumes from)', () => {
    fc.assert(
      fc.property(validTraceArb, fc.nat(), (trace, cut) => {
        const k = cut % (trace.length + 1)
        const payloads = trace.map((e) => JSON.stringify(e))
        const first = newCheckpoint('root')
        const closedA = applyAll(first, payloads.slice(0, k))
        const restored = decodeCheckpoint(encodeCheckpoint(first))
        if (E.isLeft(restored)) throw restored.left
        const closedB = applyAll(restored.right, payloads.slice(k), k + 1)
        const straight = newCheckpoint('root')
        const closedAll = applyAll(straight, payloads)
        expect([...closedA, ...closedB]).toStrictEqual(closedAll)
        // equal as JSON values (the fold keeps its id indexes prototype-less; JSON.parse gives ordinary objects)
        expectSame(restored.right, straight, 'restored checkpoint')
      }),
      { numRuns: runs },
    )
  })

  it('records a malformed event as a diagnostic naming its stream sequence, skips it, and goes on', () => {
    const cp = newCheckpoint('s')
    const good = [
      { type: 'turn/start', sessionId: 's', data: { turn: 1 } },
      { type: 'assistant/message', sessionId: 's', data: { turn: 1, step: 1, message: { content: [{ type: 'text', text: 'hi' }] }, usage: { inputTokens: 3, outputTokens: 1 } } },
    ]
    expect(applyMessage(cp, 10, JSON.stringify(good[0])).error).toBe(null)
    const bad = applyMessage(cp, 11, '{"type": "turn/end", "sessionId": "s", "data": {"turn": 1, "reason": {"kind": 7}}}')
    expect(bad.error?.toJSON()).toMatchObject({ kind: 'turn-end', path: 'reason.kind', expected: 'string', index: 1 })
    expect(applyMessage(cp, 12, 'nope').error?.kind).toBe('json')
    expect(applyMessage(cp, 13, new TextEncoder().encode(JSON.stringify(good[1]))).error).toBe(null)
    const closed = applyMessage(cp, 14, JSON.stringify({ type: 'session/status', sessionId: 's', data: { status: 'idle' } }))
    expect(closed.closed?.n).toBe(1)
    const r = closed.closed?.result as RunResult
    // the idle closes the run; an unfinished run names its last event before it
    expect(r.ending).toStrictEqual({ kind: 'unfinished', lastEventType: 'assistant/message' })
    expect(r.usage).toMatchObject({ inputTokens: 3, outputTokens: 1 })
    expect(r.diagnostics.map((d) => d.message)).toStrictEqual([
      'protocol error in the event at stream sequence 11, skipped: event #1 (turn/end) at reason.kind: expected string; a turn/end must carry data.reason with a string kind (SPEC §4)',
      'protocol error in the event at stream sequence 12, skipped: event #1: not valid JSON; every line of a native log must be one JSON object',
    ])
    expect([cp.lastSeq, cp.applied, cp.protocolErrors]).toStrictEqual([14, 5, 2])
  })

  it('a copy is independent of its original', () => {
    const cp = newCheckpoint('s')
    const copy = cloneCheckpoint(cp)
    applyMessage(copy, 1, JSON.stringify({ type: 'turn/start', sessionId: 's', data: { turn: 1 } }))
    expect([cp.lastSeq, cp.fold.events, cp.fold.run.draft.turns]).toStrictEqual([0, 0, 0])
  })

  it('rejects a stored checkpoint that is not one, naming the path and never the value', () => {
    const bad = decodeCheckpoint(JSON.stringify({ ...newCheckpoint('s'), lastSeq: 'secret-value' }))
    expect(E.isLeft(bad) && [bad.left.path, bad.left.expected, bad.left.message.includes('secret-value')]).toStrictEqual(['lastSeq', 'number', false])
    expect(E.isLeft(decodeCheckpoint('{'))).toBe(true)
    expect(E.isLeft(decodeCheckpoint(JSON.stringify({ ...newCheckpoint('s'), delivery: { consumer: 1, seq: 2 } })))).toBe(true)
  })
})

describe('delivery sets', () => {
  it('behave like a set of integers for add, remove and covers', () => {
    const op = fc.oneof(
      fc.record({ op: fc.constant('add' as const), d: fc.integer({ min: 1, max: 60 }) }),
      fc.record({ op: fc.constant('remove' as const), d: fc.integer({ min: 1, max: 60 }) }),
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 61 }), (ops, lo, hi) => {
        const set = new DeliverySet()
        const model = new Set<number>()
        for (const o of ops) {
          if (o.op === 'add') {
            set.add(o.d)
            model.add(o.d)
          } else {
            set.remove(o.d)
            model.delete(o.d)
          }
        }
        let want = true
        for (let d = lo; d <= hi; d++) if (!model.has(d)) want = false
        expect(set.covers(lo, hi)).toBe(want)
      }),
      { numRuns: runs },
    )
  })

  it('keeps consecutive deliveries as one interval and forgets the oldest beyond its cap', () => {
    const set = new DeliverySet(2)
    for (let d = 1; d <= 1000; d++) set.add(d)
    expect([set.intervals, set.covers(1, 1000)]).toStrictEqual([1, true])
    set.add(1002)
    set.add(1004)
    expect([set.intervals, set.covers(1, 1), set.covers(1004, 1004)]).toStrictEqual([2, false, true])
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
    const v = (states: string) => [...states].map((c, partition) => ({ partition, state: c === 'm' ? ('mine' as const) : c === 'f' ? ('free' as const) : ('taken' as const) }))
    expect(rebalance(v('ffff'), 1)).toStrictEqual({ acquire: [0, 1, 2, 3], release: [] })
    expect(rebalance(v('mmmm'), 2)).toStrictEqual({ acquire: [], release: [3, 2] })
    expect(rebalance(v('ttmm'), 2)).toStrictEqual({ acquire: [], release: [] })
    expect(rebalance(v('tfft'), 2)).toStrictEqual({ acquire: [1, 2], release: [] })
    expect(rebalance(v('tmtf'), 2)).toStrictEqual({ acquire: [3], release: [] })
    expect(rebalance(v('ttt'), 4)).toStrictEqual({ acquire: [], release: [] })
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
    expect(stderr).toMatch(/^run-outcome consume: the JetStream consumer needs the NATS clients, .*not installed: @nats-io\/transport-node, @nats-io\/jetstream, @nats-io\/kv\. Add them with: npm install /)
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

  it('rejects other formats, a missing server and bad numbers or names with exit 2', async () => {
    const codex = await runCli(['consume', '--server', 'nats://127.0.0.1:1', '--format', 'codex'])
    expect([codex.code, codex.stderr]).toStrictEqual([2, expect.stringMatching(/^run-outcome consume: --format codex is not supported: consume checkpoints the native fold's state/)])
    const none = await runCli(['consume'])
    expect([none.code, none.stderr]).toStrictEqual([2, expect.stringMatching(/give the NATS server with --server/)])
    const zero = await runCli(['consume', '--server', 'nats://127.0.0.1:1', '--partitions', '0'])
    expect([zero.code, zero.stderr]).toStrictEqual([2, expect.stringMatching(/--partitions takes a number above 0/)])
    const subjects = await runCli(['consume', '--server', 'nats://127.0.0.1:1', '--subjects', 'agents.>'])
    expect([subjects.code, subjects.stderr]).toStrictEqual([2, "run-outcome consume: the subject pattern may not contain '>' (use one '*' for the session id)\n"])
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
  const node = (args: ReadonlyArray<string>) => spawnSync(process.execPath, ['--import', register, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 })

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
