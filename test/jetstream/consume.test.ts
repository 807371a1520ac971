/**
 * `run-outcome consume` against a real `nats-server -js` (Debian 2.9) on a loopback port with a temporary
 * store and the partition mapping of docs/scale-out.md §1: no mocks of the engine. Killed workers are the
 * built CLI (dist/, built by `npm test`'s pretest); the other workers run in-process, each on its own connection.
 */
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { foldEvents, foldRuns } from '../../src/core/fold.js'
import { Pipeline } from '../../src/core/pipeline.js'
import type { RunResult } from '../../src/core/RunResult.js'
import type { Translator } from '../../src/core/translator.js'
import { formatByName } from '../../src/formats/index.js'
import { decodeCheckpoint, fitResult, SessionFold, type SessionCheckpoint } from '../../src/jetstream/checkpoint.js'
import { startConsumer, type RunningConsumer } from '../../src/jetstream/consumer.js'
import { partitionedSubjectFor, resultKey, snapshotSubject, tenureConsumer } from '../../src/jetstream/keys.js'
import { partitionOf } from '../../src/jetstream/partitions.js'
import { readSnapshotChunks, readSnapshotHead, readSnapshotLines, SnapshotFencedError, SnapshotWriter } from '../../src/jetstream/snapshot.js'
import { repoRoot } from '../support/cli.js'
import {
  hasNatsServer,
  interleave,
  prng,
  publishAll,
  publishLive,
  readBucket,
  sessionEvents,
  sleep,
  spawnWorker,
  startNatsServer,
  waitFor,
  type NatsServer,
  type Worker,
} from './support.js'

const available = hasNatsServer()
if (!available) console.log('jetstream tests SKIPPED: the nats-server binary is not on PATH (apt-get install nats-server; .ci/run installs it)')

const expectedRuns = (events: ReadonlyArray<unknown>): Array<RunResult> => {
  const r = foldRuns(events)
  if (E.isLeft(r)) throw r.left
  return r.right
}

/** The runs the live pipeline of `format` hands out for a session's records (what consume must store). */
const pipelineRuns = (format: string, records: ReadonlyArray<string>): Array<RunResult> => {
  const p = new Pipeline(formatByName(format)?.translator as Translator<unknown>, { live: true })
  const out: Array<RunResult> = []
  for (const r of records) {
    p.textLine(r, undefined)
    out.push(...p.takeResults())
  }
  return out
}

/** Every session checkpoint of every partition's last snapshot, by session id. */
export const readSnapshots = async (
  server: { nc: NatsServer['nc'] },
  format: string,
  snapshots: string,
  durable: string,
  partitions: number,
): Promise<Map<string, SessionCheckpoint>> => {
  const { jetstreamManager } = await import('@nats-io/jetstream')
  const jsm = await jetstreamManager(server.nc)
  const out = new Map<string, SessionCheckpoint>()
  for (let p = 0; p < partitions; p++) {
    const head = await readSnapshotHead(jsm, snapshots, snapshotSubject(snapshots, durable, p))
    if (head.commit === null) continue
    for (const line of await readSnapshotLines(jsm, snapshots, head.commit)) {
      const cp = decodeCheckpoint(formatByName(format)?.translator as Translator<unknown>, line)
      if (E.isLeft(cp)) throw cp.left
      out.set(cp.right.session, cp.right)
    }
  }
  return out
}

/**
 * A deployment's names from one word: stream `WORD`, subjects `word.*.events`, durable `word`, and the
 * `WORD_RESULTS`, `WORD_STATE` and `WORD_SNAPSHOTS` buckets and stream.
 */
const deployment = (word: string, partitions: number) => {
  const upper = word.toUpperCase()
  return {
    stream: upper,
    subjects: `${word}.*.events`,
    durable: word,
    results: `${upper}_RESULTS`,
    state: `${upper}_STATE`,
    snapshots: `${upper}_SNAPSHOTS`,
    partitions,
  }
}

/** The fixture folder of JSONL logs each vendor format's sessions are built from. */
const FIXTURES = {
  'claude-code': 'claude-code-stream-json',
  codex: 'codex-exec-json',
  gemini: 'gemini-stream-json',
  'ai-sdk': 'ai-sdk-fullstream',
  acp: 'acp',
  'openai-agents': 'openai-agents-stream',
} as const

/** Sessions of a vendor format: each is 1–3 fixture logs of that format one after the other. */
const vendorSessions = (format: keyof typeof FIXTURES, count: number, rand: () => number): Array<{ sid: string; records: Array<string> }> => {
  const dir = FIXTURES[format]
  const logs = readdirSync(`${repoRoot}/test/fixtures/${dir}`)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) =>
      readFileSync(`${repoRoot}/test/fixtures/${dir}/${f}`, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== ''),
    )
  return Array.from({ length: count }, (_, i) => {
    const records: Array<string> = []
    const n = 1 + Math.floor(rand() * 3)
    for (let k = 0; k < n; k++) records.push(...(logs[Math.floor(rand() * logs.length)] as Array<string>))
    return { sid: `${format}-${i}`, records }
  })
}

describe.skipIf(!available)('consume on a real nats-server (skipped when the nats-server binary is missing)', () => {
  let server: NatsServer
  const workers: Array<Worker> = []
  const consumers: Array<RunningConsumer> = []

  beforeAll(async () => {
    server = await startNatsServer([
      { pattern: 'agents.*.events', partitions: 2 },
      { pattern: 'cc.*.events', partitions: 2 },
      { pattern: 'cx.*.events', partitions: 2 },
      { pattern: 'mal.*.events', partitions: 2 },
    ])
  })

  afterAll(async () => {
    for (const c of consumers) await c.stop().catch(() => undefined)
    for (const w of workers) if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill('SIGKILL')
    await Promise.all(workers.map((w) => Promise.race([w.exited, sleep(5000)])))
    await server?.stop()
  })

  const jsmOf = async () => {
    const { jetstreamManager } = await import('@nats-io/jetstream')
    return jetstreamManager(server.nc)
  }
  const streamMessages = async (stream: string): Promise<number> => (await (await jsmOf()).streams.info(stream).catch(() => null))?.state.messages ?? 0
  /** Messages a stream ever stored (its last sequence): a result created twice would count twice, even if overwritten. */
  const streamLastSeq = async (stream: string): Promise<number> => (await (await jsmOf()).streams.info(stream)).state.last_seq

  /**
   * Two CLI workers on 2 partitions; worker A is killed with SIGKILL after a quarter of the results, the survivor
   * takes its partition over, A comes back; every result must equal the one-shot fold and be stored once.
   * `defaults`: the documented lease and snapshot interval (the takeover time is printed).
   */
  const killTest = async (o: {
    readonly format: string
    readonly prefix: string
    readonly sessions: ReadonlyArray<{ sid: string; records: ReadonlyArray<string> }>
    readonly order: ReadonlyArray<{ sid: string; record: string }>
    readonly names: ReadonlyArray<string>
    readonly defaults: boolean
  }) => {
    const names = { results: o.names[0] as string, snapshots: o.names[1] as string, state: o.names[2] as string, stream: o.names[3] as string }
    await (await jsmOf()).streams.add({ name: names.stream, subjects: [`${o.prefix}.*.*.events`] })
    const expected = new Map<string, RunResult>()
    for (const s of o.sessions) pipelineRuns(o.format, s.records).forEach((r, i) => expected.set(resultKey(s.sid, i + 1), r))
    console.log(`jetstream kill test (${o.format}): ${o.sessions.length} sessions, ${o.order.length} records, ${expected.size} runs`)
    const jsm = await jsmOf()

    const args = [
      '--server',
      server.url,
      '--format',
      o.format,
      '--subjects',
      `${o.prefix}.*.events`,
      '--stream',
      names.stream,
      '--results',
      names.results,
      '--snapshots',
      names.snapshots,
      '--state',
      names.state,
      '--partitions',
      '2',
      '--progress',
      '0.1',
      ...(o.defaults ? [] : ['--lease', '1', '--snapshot', '0.2']),
    ]
    const a = spawnWorker(args)
    const b = spawnWorker(args)
    workers.push(a, b)
    // live traffic while the workers run (and one dies): the publishers use the unpartitioned subject, the
    // server's mapping partitions it
    const publishing = publishLive(
      server.nc,
      o.order.map((x) => ({ subject: `${o.prefix}.${x.sid}.events`, payload: x.record })),
      // about 3 s of traffic whatever the size
      Math.max(50, Math.ceil(o.order.length / 60)),
      50,
      o.prefix,
    )
    const resultsStored = () => streamMessages(`KV_${names.results}`)
    const holds = (w: Worker) => /partitions \[[01]\] of 2/.test(w.stderr())
    await waitFor(async () => (await resultsStored()) >= expected.size * 0.25 && holds(a) && holds(b), 60_000, 'a quarter of the results').catch(
      (e: unknown) => {
        throw new Error(`${(e as Error).message}; worker A said:\n${a.stderr().slice(-2000)}\nworker B said:\n${b.stderr().slice(-2000)}`)
      },
    )
    const killedAt = await resultsStored()
    const t0 = Date.now()
    a.proc.kill('SIGKILL')
    expect(await a.exited).toBe(null)
    // the survivor takes the silent worker's partition over once its lease runs out …
    const bSeen = b.stderr().length
    await waitFor(() => /partitions \[0,1\] of 2/.test(b.stderr().slice(bSeen)), 30_000, 'the takeover')
    console.log(
      `jetstream kill test (${o.format}): killed worker A with ${killedAt}/${expected.size} results stored; the survivor held both partitions ${((Date.now() - t0) / 1000).toFixed(1)} s later (lease ${o.defaults ? '2 s, the default' : '1 s'})`,
    )
    // … and hands one back when the worker comes back
    const a2 = spawnWorker(args)
    workers.push(a2)
    await waitFor(() => /partitions \[[01]\] of 2/.test(a2.stderr()), 30_000, 'the restarted worker to take a partition')
    await publishing
    // the server put each session where partitionOf says (its FNV-1a over UTF-8 is ours)
    for (const s of o.sessions.slice(0, 50)) {
      const m = await jsm.streams.getMessage(names.stream, { last_by_subj: partitionedSubjectFor(`${o.prefix}.*.events`, s.sid, 2) })
      expect(m?.subject, s.sid).toBe(partitionedSubjectFor(`${o.prefix}.*.events`, s.sid, 2))
    }
    await waitFor(async () => (await resultsStored()) >= expected.size, 120_000, 'every result')

    // clean stop on SIGTERM: exit 0, a final progress line, the partitions committed and released
    b.proc.kill('SIGTERM')
    a2.proc.kill('SIGTERM')
    expect(await b.exited).toBe(0)
    expect(await a2.exited).toBe(0)
    expect(b.stderr()).toMatch(
      /run-outcome consume: stopped after \d+ events? \(\d+\/s average\), \d+ sessions?, \d+ open, \d+ results? written, 0 protocol errors, \d+ snapshots?, \d+ resyncs?/,
    )

    const stored = await readBucket(server.nc, names.results)
    // no duplicate and no missing run: exactly the expected keys, each written once
    expect([...stored.keys()].sort()).toStrictEqual([...expected.keys()].sort())
    expect(await streamLastSeq(`KV_${names.results}`)).toBe(expected.size)
    for (const [key, want] of expected) expect(stored.get(key), key).toStrictEqual(want)
    // every record applied exactly once: each session's checkpoint in the last snapshots counts its records
    const cps = await readSnapshots(server, o.format, names.snapshots, 'run-outcome', 2)
    expect(cps.size).toBe(o.sessions.length)
    for (const s of o.sessions) {
      const cp = cps.get(s.sid) as SessionCheckpoint
      expect([cp.applied, cp.state.fold.runs], s.sid).toStrictEqual([s.records.length, pipelineRuns(o.format, s.records).length])
    }
    // the leases are released, and every message acknowledged by the last consumers
    const state = await readBucket(server.nc, names.state)
    expect([state.has('_lease.run-outcome.0'), state.has('_lease.run-outcome.1'), state.get('_config.run-outcome')]).toStrictEqual([
      false,
      false,
      { partitions: 2, format: o.format },
    ])
    let unacked = 0
    for await (const ci of jsm.consumers.list(names.stream)) unacked += ci.num_pending + ci.num_ack_pending
    expect(unacked).toBe(0)
    return { stored, expected }
  }

  it('native: 1,000 interleaved sessions, two workers with the documented defaults, one killed with SIGKILL and restarted: every result equals the one-shot fold, once', async () => {
    const rand = prng(8)
    const sessions = Array.from({ length: 1000 }, (_, i) => {
      const sid = i % 97 === 0 ? `sess:${i}@host` : `sess-${i}` // a few ids that are not plain KV keys
      const events = sessionEvents(sid, rand)
      return { sid, events, records: events.map((e) => JSON.stringify(e)) }
    })
    const order = interleave(
      sessions.map((s) => ({ sid: s.sid, events: s.records as unknown as ReadonlyArray<never> })),
      rand,
    ).map((x) => ({ sid: x.sid, record: x.event as unknown as string }))
    const { stored, expected } = await killTest({
      format: 'native',
      prefix: 'agents',
      sessions,
      order,
      names: ['RUN_RESULTS', 'RUN_SNAPSHOTS', 'RUN_STATE', 'AGENT_EVENTS'],
      defaults: true,
    })
    // the native results are the one-shot foldRuns; the last of each session is foldEvents
    for (const s of sessions) {
      const runs = expectedRuns(s.events)
      runs.forEach((r, i) => expect(expected.get(resultKey(s.sid, i + 1))).toStrictEqual(r))
      const last = foldEvents(s.events)
      if (E.isLeft(last)) throw last.left
      expect(stored.get(resultKey(s.sid, runs.length))).toStrictEqual(last.right)
    }
    // subagents travelled on the root's subject and reached its fold (bug kind K9: children apart)
    const withChild = [...stored.values()].filter((r) => (r as RunResult).children.length > 0) as Array<RunResult>
    expect(withChild.length).toBeGreaterThan(50)
    expect(withChild.every((r) => r.sessionId !== null && r.children.every((c) => c.sessionId.startsWith(`${r.sessionId}-sub`)))).toBe(true)
  }, 180_000)

  for (const format of ['claude-code', 'codex'] as const) {
    it(`${format}: 300 interleaved sessions of real logs, one worker killed with SIGKILL: every result equals the one-shot pipeline, once`, async () => {
      const rand = prng(format === 'codex' ? 31 : 30)
      const sessions = vendorSessions(format, 300, rand)
      const order = interleave(
        sessions.map((s) => ({ sid: s.sid, events: s.records as unknown as ReadonlyArray<never> })),
        rand,
      ).map((x) => ({ sid: x.sid, record: x.event as unknown as string }))
      const tag = format === 'codex' ? 'CX' : 'CC'
      const { expected } = await killTest({
        format,
        prefix: tag.toLowerCase(),
        sessions,
        order,
        names: [`${tag}_RESULTS`, `${tag}_SNAPSHOTS`, `${tag}_STATE`, `${tag}_EVENTS`],
        defaults: false,
      })
      const endings = new Set([...expected.values()].map((r) => r.ending.kind))
      expect(endings.has('answered')).toBe(true)
    }, 180_000)
  }

  it('every other format (gemini, ai-sdk, acp, openai-agents): sessions of real logs folded, stopped, resumed from the snapshot by a new worker: every result equals the one-shot pipeline, once', async () => {
    for (const format of ['gemini', 'ai-sdk', 'acp', 'openai-agents'] as const) {
      const tag = format.replace('-', '_').toUpperCase()
      const names = {
        format,
        stream: `F_${tag}`,
        subjects: `f-${format}.*.events`,
        durable: `f-${format}`,
        results: `F_${tag}_RESULTS`,
        state: `F_${tag}_STATE`,
        snapshots: `F_${tag}_SNAPSHOTS`,
        partitions: 1,
        progressIntervalMs: 0,
      }
      const rand = prng(format.length)
      const sessions = vendorSessions(format, 40, rand)
      const order = interleave(
        sessions.map((x) => ({ sid: x.sid, events: x.records as unknown as ReadonlyArray<never> })),
        rand,
      ).map((x) => ({ subject: partitionedSubjectFor(names.subjects, x.sid, 1), payload: x.event as unknown as string }))
      const expected = new Map<string, RunResult>()
      for (const x of sessions) pipelineRuns(format, x.records).forEach((r, i) => expected.set(resultKey(x.sid, i + 1), r))
      expect(expected.size, format).toBeGreaterThan(20)
      // the first worker folds half of the records and stops (its last snapshot committed) …
      const half = Math.floor(order.length / 2)
      const one = await startConsumer({ servers: server.url, ...names })
      consumers.push(one)
      await publishAll(server.nc, order.slice(0, half))
      await waitFor(() => one.stats().events === half, 30_000, `${format}: the first half`)
      await one.stop()
      // … and the next resumes every session's translator and fold state from that snapshot
      const two = await startConsumer({ servers: server.url, ...names })
      consumers.push(two)
      await publishAll(server.nc, order.slice(half))
      await waitFor(() => two.stats().events === order.length - half, 30_000, `${format}: the second half`)
      await waitFor(async () => (await streamMessages(`KV_${names.results}`)) >= expected.size, 30_000, `${format}: every result`)
      await two.stop()
      const stored = await readBucket(server.nc, names.results)
      expect([...stored.keys()].sort(), format).toStrictEqual([...expected.keys()].sort())
      expect(await streamLastSeq(`KV_${names.results}`)).toBe(expected.size)
      for (const [key, want] of expected) expect(stored.get(key), `${format} ${key}`).toStrictEqual(want)
      const cps = await readSnapshots(server, format, names.snapshots, names.durable, 1)
      for (const x of sessions) expect(cps.get(x.sid)?.applied, `${format} ${x.sid}`).toBe(x.records.length)
      console.log(
        `jetstream --format ${format}: ${sessions.length} sessions, ${order.length} records, ${expected.size} runs, resumed from a snapshot at record ${half}`,
      )
    }
  }, 120_000)

  it('malformed events do not stop the worker: the run records the ProtocolError as a diagnostic, other sessions go on', async () => {
    const names = deployment('mal', 2)
    const good = sessionEvents('good-1', prng(3))
    const bad: Array<unknown> = [
      { type: 'user/message', sessionId: 'bad-1', data: { message: 'x' } },
      { type: 'turn/start', sessionId: 'bad-1', data: { turn: 1 } },
      {
        type: 'assistant/message',
        sessionId: 'bad-1',
        data: { turn: 1, step: 1, message: { content: [{ type: 'text', text: 'half' }] }, usage: { inputTokens: 5, outputTokens: 2 } },
      },
      'NOT JSON {',
      { sessionId: 'bad-1', data: {} },
      { type: 'turn/end', sessionId: 'bad-1', data: { turn: 1 } },
      { type: 'session/status', sessionId: 'bad-1', data: { status: 'idle' } },
      { type: 'turn/start', sessionId: 'bad-1', data: { turn: 2 } },
      { type: 'turn/end', sessionId: 'bad-1', data: { turn: 2, reason: { kind: 'completed' } } },
      { type: 'session/status', sessionId: 'bad-1', data: { status: 'idle' } },
    ]
    const items = [
      ...bad.map((e) => ({ subject: 'mal.bad-1.events', payload: typeof e === 'string' ? e : JSON.stringify(e) })),
      ...good.map((e) => ({ subject: 'mal.good-1.events', payload: JSON.stringify(e) })),
    ]
    const warnings: Array<string> = []
    const c = await startConsumer({ servers: server.url, ...names, progressIntervalMs: 0, onWarning: (w) => warnings.push(w) })
    consumers.push(c)
    expect(c.created).toStrictEqual(['stream MAL', 'stream MAL_SNAPSHOTS', 'bucket MAL_RESULTS', 'bucket MAL_STATE'])
    expect(c.stats().partitions).toStrictEqual([0, 1])
    await publishAll(server.nc, items)
    const goodRuns = expectedRuns(good)
    await waitFor(async () => (await readBucket(server.nc, 'MAL_RESULTS')).size === goodRuns.length + 2, 30_000, 'the results')
    const stored = await readBucket(server.nc, 'MAL_RESULTS')
    goodRuns.forEach((r, i) => expect(stored.get(resultKey('good-1', i + 1))).toStrictEqual(r))
    const first = stored.get('bad-1.1') as RunResult
    // the malformed turn/end is skipped: no terminal event, so the run is unfinished, never answered; the rest
    // of the run is the fold of its well-formed events
    const wellFormed = expectedRuns(bad.filter((e, i) => typeof e !== 'string' && i !== 4 && i !== 5))
    expect(first.ending.kind).toBe('unfinished')
    expect(first.usage).toMatchObject({ inputTokens: 5, outputTokens: 2 })
    expect({ ...first, diagnostics: [] }).toStrictEqual(wellFormed[0])
    // stream sequences 4, 5, 6 (the stream holds only these messages, in publishing order)
    expect(first.diagnostics.map((d) => d.message)).toStrictEqual([
      'protocol error in the event at stream sequence 4, skipped: event #3: not valid JSON; every line of a native log must be one JSON object',
      'protocol error in the event at stream sequence 5, skipped: event #3 at type: expected string; every event needs a string "type"',
      'protocol error in the event at stream sequence 6, skipped: event #3 (turn/end) at reason: expected an object with a string kind; a turn/end must carry data.reason with a string kind (SPEC §4)',
    ])
    // the session goes on: its next run is read normally
    const second = stored.get('bad-1.2') as RunResult
    expect(second.ending).toStrictEqual({ kind: 'answered' })
    expect(second.diagnostics).toStrictEqual([])
    expect(c.stats().protocolErrors).toBe(3)
    expect(warnings).toStrictEqual([])
    await c.stop()
    const jsm = await jsmOf()
    let unacked = 0
    for await (const ci of jsm.consumers.list('MAL')) unacked += ci.num_pending + ci.num_ack_pending
    expect(unacked).toBe(0)
  }, 60_000)

  it('leaves an existing stream and bucket as they are, and a new worker resumes from the snapshot, replaying nothing', async () => {
    const { jetstream } = await import('@nats-io/jetstream')
    const { Kvm } = await import('@nats-io/kv')
    const jsm = await jsmOf()
    await jsm.streams.add({ name: 'PRE', subjects: ['pre.*.*.events'], max_msgs: 12345, description: 'mine' })
    await new Kvm(jetstream(server.nc)).create('PRE_STATE', { history: 4 })
    const names = deployment('pre', 1)
    const events = sessionEvents('p-1', prng(11))
    const cut = Math.floor(events.length / 2)
    const subject = partitionedSubjectFor('pre.*.events', 'p-1', 1) // a publisher that partitions itself
    const one = await startConsumer({ servers: server.url, ...names, progressIntervalMs: 0 })
    consumers.push(one)
    expect(one.created).toStrictEqual(['stream PRE_SNAPSHOTS', 'bucket PRE_RESULTS'])
    await publishAll(
      server.nc,
      events.slice(0, cut).map((e) => ({ subject, payload: JSON.stringify(e) })),
    )
    await waitFor(async () => one.stats().events === cut, 30_000, 'the first half')
    await one.stop()
    // a new worker resumes from the snapshot its predecessor committed at its stop
    await publishAll(
      server.nc,
      events.slice(cut).map((e) => ({ subject, payload: JSON.stringify(e) })),
    )
    const two = await startConsumer({ servers: server.url, ...names, progressIntervalMs: 0 })
    consumers.push(two)
    expect(two.created).toStrictEqual([])
    await waitFor(async () => two.stats().events === events.length - cut, 30_000, 'the second half')
    await two.stop()
    expect(two.stats().events).toBe(events.length - cut)
    const stored = await readBucket(server.nc, 'PRE_RESULTS')
    const want = expectedRuns(events)
    expect(stored.size).toBe(want.length)
    want.forEach((r, i) => expect(stored.get(resultKey('p-1', i + 1))).toStrictEqual(r))
    const cp = (await readSnapshots(server, 'native', 'PRE_SNAPSHOTS', 'pre', 1)).get('p-1') as SessionCheckpoint
    expect([cp.applied, cp.state.fold.runs]).toStrictEqual([events.length, want.length])
    // configurations unchanged; the previous tenure's consumer was removed by the next one
    const s = await jsm.streams.info('PRE')
    expect([s.config.max_msgs, s.config.description]).toStrictEqual([12345, 'mine'])
    expect((await jsm.streams.info('KV_PRE_STATE')).config.max_msgs_per_subject).toBe(4)
    const names2: Array<string> = []
    for await (const ci of jsm.consumers.list('PRE')) names2.push(ci.name)
    expect(names2).toHaveLength(1)
    // a worker with another partition count refuses the pinned deployment; so does one of another format, at
    // start-up, before it takes a partition
    await expect(startConsumer({ servers: server.url, ...names, partitions: 3, progressIntervalMs: 0 })).rejects.toThrow(
      'the workers of pre are pinned to 1 partition(s), not 3; start every worker with --partitions 1',
    )
    expect((await readBucket(server.nc, 'PRE_STATE')).get('_config.pre')).toStrictEqual({ partitions: 1, format: 'native' })
    const lastSeqs = async () => [await streamLastSeq('KV_PRE_STATE'), await streamLastSeq('PRE_SNAPSHOTS')]
    const before = await lastSeqs()
    const refused = await startConsumer({ servers: server.url, ...names, format: 'codex', progressIntervalMs: 0 }).then(
      () => 'started',
      (e: unknown) => [(e as Error).name, (e as Error).message],
    )
    expect(refused).toStrictEqual([
      'ConsumeSetupError',
      'the workers of pre are pinned to --format native, not codex; start every worker with --format native (another format needs its own --durable and stream: docs/scale-out.md §2)',
    ])
    // refused before touching anything: no lease or heartbeat written, no claim of the partition's snapshot log
    expect(await lastSeqs()).toStrictEqual(before)
    // a deployment pinned before the format was (no format in its config) is left as it is; the snapshot's
    // format still stops a worker of another format when it takes the partition
    const stateKv = await new Kvm(jetstream(server.nc)).open('PRE_STATE')
    await stateKv.put('_config.pre', JSON.stringify({ partitions: 1 }))
    const other = await startConsumer({ servers: server.url, ...names, format: 'codex', progressIntervalMs: 0 })
    consumers.push(other)
    await expect(other.done).rejects.toThrow('partition 0 was folded as --format native; start every worker of pre with that format')
    await other.stop()
    expect((await readBucket(server.nc, 'PRE_STATE')).get('_config.pre')).toStrictEqual({ partitions: 1 })
  }, 60_000)

  it('a snapshot log fences a stale holder: after another worker claims the partition, its next write fails', async () => {
    const { jetstream } = await import('@nats-io/jetstream')
    const clients = { transport: await import('@nats-io/transport-node'), jetstream: await import('@nats-io/jetstream'), kv: await import('@nats-io/kv') }
    const jsm = await jsmOf()
    await jsm.streams.add({ name: 'FENCE', subjects: ['FENCE.>'] })
    const js = jetstream(server.nc)
    const subject = snapshotSubject('FENCE', 'd', 0)
    const a = new SnapshotWriter(clients, js, subject, await readSnapshotHead(jsm, 'FENCE', subject))
    const claimA = await a.claim('a')
    const chunk = await a.chunk(new TextEncoder().encode('line\n'))
    const commitA = await a.commit({ version: 1, lastSeq: 10, chunks: [chunk], bytes: 5, sessions: 1, format: 'native' })
    // B reads the head (A's commit, A's tenure) and claims
    const head = await readSnapshotHead(jsm, 'FENCE', subject)
    expect([head.commitSeq, head.claimSeq, head.commit?.lastSeq]).toStrictEqual([commitA, claimA, 10])
    expect(tenureConsumer('d', 0, head.claimSeq)).toBe(`d-0-${claimA}`)
    const b = new SnapshotWriter(clients, js, subject, head)
    await b.claim('b')
    // A still thinks it holds the partition: every write fails, nothing of it is read
    await expect(a.chunk(new TextEncoder().encode('stale\n'))).rejects.toBeInstanceOf(SnapshotFencedError)
    await expect(a.commit({ version: 1, lastSeq: 99, chunks: [], bytes: 0, sessions: 0, format: 'native' })).rejects.toBeInstanceOf(SnapshotFencedError)
    const after = await readSnapshotHead(jsm, 'FENCE', subject)
    expect([after.commitSeq, after.commit?.lastSeq]).toStrictEqual([commitA, 10])
    expect(await readSnapshotLines(jsm, 'FENCE', after.commit as never)).toStrictEqual(['line'])
  }, 30_000)

  it('a commit whose chunk list does not fit in one message lists its chunks in index messages, read back in order', async () => {
    const { jetstream } = await import('@nats-io/jetstream')
    const clients = { transport: await import('@nats-io/transport-node'), jetstream: await import('@nats-io/jetstream'), kv: await import('@nats-io/kv') }
    const jsm = await jsmOf()
    await jsm.streams.add({ name: 'INDEXED', subjects: ['INDEXED.>'] })
    const js = jetstream(server.nc)
    const subject = snapshotSubject('INDEXED', 'd', 0)
    const w = new SnapshotWriter(clients, js, subject, await readSnapshotHead(jsm, 'INDEXED', subject))
    await w.claim('w')
    const lines = Array.from({ length: 300 }, (_, i) => `{"session":"s-${i}"}`)
    const chunks: Array<number> = []
    for (const line of lines) chunks.push(await w.chunk(new TextEncoder().encode(`${line}\n`)))
    // room for 1,000 bytes a message: 300 sequences need several index messages
    const commitSeq = await w.commit({ version: 1, lastSeq: 77, chunks, bytes: 0, sessions: 300, format: 'native' }, 1000)
    const head = await readSnapshotHead(jsm, 'INDEXED', subject)
    expect([head.commitSeq, head.commit?.lastSeq, head.commit?.chunks]).toStrictEqual([commitSeq, 77, []])
    const index = head.commit?.index ?? []
    expect(index.length).toBe(Math.ceil(300 / Math.floor(998 / 17)))
    for (const seq of index) expect((await jsm.streams.getMessage('INDEXED', { seq }))?.data.length).toBeLessThanOrEqual(1000)
    expect((await jsm.streams.getMessage('INDEXED', { seq: commitSeq }))?.data.length).toBeLessThanOrEqual(1000)
    expect(await readSnapshotChunks(jsm, 'INDEXED', head.commit as never)).toStrictEqual(chunks)
    expect(await readSnapshotLines(jsm, 'INDEXED', head.commit as never)).toStrictEqual(lines)
  }, 30_000)

  it('a server too busy to answer the set-up in time (stopped with SIGSTOP for 6.5 s): asked again, and the worker folds', async () => {
    const names = deployment('busy', 1)
    const warnings: Array<string> = []
    const paused = server.proc()
    paused.kill('SIGSTOP')
    // the clients give up on a request after 5 s: the first set-up request times out, a later one is answered
    const resumed = sleep(6500).then(() => paused.kill('SIGCONT'))
    let c: RunningConsumer
    try {
      c = await startConsumer({ connection: server.nc, ...names, progressIntervalMs: 0, onWarning: (w) => warnings.push(w) })
    } finally {
      await resumed
    }
    consumers.push(c)
    expect(warnings[0]).toBe('JetStream did not answer the set-up in time (timeout); asking again')
    expect(c.created).toStrictEqual(['stream BUSY', 'stream BUSY_SNAPSHOTS', 'bucket BUSY_RESULTS', 'bucket BUSY_STATE'])
    const events = sessionEvents('b-1', prng(12))
    const subject = partitionedSubjectFor('busy.*.events', 'b-1', 1)
    await publishAll(
      server.nc,
      events.map((e) => ({ subject, payload: JSON.stringify(e) })),
    )
    await waitFor(async () => c.stats().events === events.length, 30_000, 'every event')
    await c.stop()
    const stored = await readBucket(server.nc, 'BUSY_RESULTS')
    const want = expectedRuns(events)
    expect(stored.size).toBe(want.length)
    want.forEach((r, i) => expect(stored.get(resultKey('b-1', i + 1))).toStrictEqual(r))
  }, 60_000)

  it('examples/jetstream/publish-and-read.mjs (docs/scale-out.md §1) publishes a log and prints the runs a worker stored', async () => {
    // the default names, on the server's `agents.*.events` mapping of 2 partitions
    const worker = await startConsumer({ servers: server.url, partitions: 2, progressIntervalMs: 0 })
    consumers.push(worker)
    const log = 'examples/native/session.jsonl'
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['examples/jetstream/publish-and-read.mjs', server.url, 'example-1', log], {
      cwd: repoRoot,
      timeout: 60_000,
    })
    await worker.stop()
    const events = readFileSync(`${repoRoot}/${log}`, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as unknown)
    const want = expectedRuns(events).map((r, i) => `example-1.${i + 1}  ${r.ending.kind}  $${(r.cost.totalUsd as number).toFixed(4)}\n`)
    expect(want).toStrictEqual(['example-1.1  answered  $0.0019\n', 'example-1.2  cut_off  $0.0051\n'])
    expect(stdout).toBe(want.join(''))
    expect(stderr).toBe(`published ${events.length} records on agents.example-1.events\n2 run(s) stored for example-1 (keys example-1.<n>)\n`)
  }, 90_000)

  it('consume exits 2 with one line when the server cannot be reached', async () => {
    const w = spawnWorker(['--server', 'nats://127.0.0.1:1'])
    workers.push(w)
    const code = await w.exited
    expect({ code, stderr: w.stderr() }).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^run-outcome consume: cannot connect to nats:\/\/127\.0\.0\.1:1: /),
    })
    expect(w.stderr().trim().split('\n')).toHaveLength(1)
  }, 30_000)
})

describe.skipIf(!available)('a session checkpoint larger than the server max_payload (issue 14)', () => {
  it('is written across chunks and read back; past the session bound its run closes with a diagnostic; the partition never stalls', async () => {
    // a server whose max_payload (32 KiB) is far below one session's checkpoint
    const server = await startNatsServer([{ pattern: 'big.*.events', partitions: 1 }], 'max_payload: 32768')
    try {
      const { jetstreamManager } = await import('@nats-io/jetstream')
      const jsm = await jetstreamManager(server.nc)
      expect(server.nc.info?.max_payload).toBe(32768)
      const names = { ...deployment('big', 1), progressIntervalMs: 0, snapshotMs: 50 }
      // a session with 400 subagents: a checkpoint of hundreds of KB (children, their results)
      const bigSession = (sid: string) => {
        const evs: Array<Record<string, unknown>> = [
          { type: 'user/message', sessionId: sid, data: { message: 'go' } },
          { type: 'turn/start', sessionId: sid, data: { turn: 1 } },
        ]
        for (let k = 0; k < 400; k++) {
          const kid = `${sid}-sub-${k}-${'x'.repeat(200)}`
          evs.push({ type: 'subagent/started', sessionId: sid, data: { parentSessionId: sid, childSessionId: kid } })
          evs.push({
            type: 'assistant/message',
            sessionId: kid,
            data: {
              turn: 1,
              step: 1,
              message: { content: [{ type: 'text', text: 'y'.repeat(300) }] },
              usage: { inputTokens: 1, outputTokens: 1 },
              model: `model-${k}`,
            },
          })
        }
        return evs
      }
      const tailOf = (sid: string) => [
        {
          type: 'assistant/message',
          sessionId: sid,
          data: { turn: 1, step: 1, message: { content: [{ type: 'text', text: 'done' }] }, usage: { inputTokens: 2, outputTokens: 3 } },
        },
        { type: 'turn/end', sessionId: sid, data: { turn: 1, reason: { kind: 'completed' } } },
        { type: 'session/status', sessionId: sid, data: { status: 'idle' } },
      ]
      const big = bigSession('huge')
      const tail = tailOf('huge')
      const small = sessionEvents('small-1', prng(4))
      const pub = (evs: ReadonlyArray<unknown>, sid: string) =>
        publishAll(
          server.nc,
          evs.map((e) => ({ subject: `big.${sid}.events`, payload: JSON.stringify(e) })),
        )
      const one = await startConsumer({ servers: server.url, ...names })
      await pub(big, 'huge')
      await pub(small.slice(0, 5), 'small-1')
      await waitFor(() => one.stats().events === big.length + 5 && one.stats().commits > 0, 30_000, 'the big session applied and snapshotted')
      await one.stop()
      const head = await readSnapshotHead(jsm, 'BIG_SNAPSHOTS', snapshotSubject('BIG_SNAPSHOTS', 'big', 0))
      const chunkBytes = (head.commit?.bytes ?? 0) / (head.commit?.chunks.length ?? 1)
      console.log(
        `jetstream big session: snapshot of ${head.commit?.bytes} bytes in ${head.commit?.chunks.length} chunks (max_payload ${server.nc.info?.max_payload})`,
      )
      expect(head.commit?.bytes).toBeGreaterThan(200_000)
      expect(chunkBytes).toBeLessThanOrEqual(server.nc.info?.max_payload ?? 0)
      // a new worker resumes the big session from the chunks; its run ends as the one-shot fold says
      const two = await startConsumer({ servers: server.url, ...names })
      await pub(tail, 'huge')
      await pub(small.slice(5), 'small-1')
      await waitFor(async () => (await readBucket(server.nc, 'BIG_RESULTS')).size === 1 + expectedRuns(small).length, 30_000, 'the results')
      const stored = await readBucket(server.nc, 'BIG_RESULTS')
      // its result (400 children) is larger than max_payload: stored without its children, saying so
      const whole = expectedRuns([...big, ...tail])[0] as RunResult
      const fitted = stored.get('huge.1') as RunResult
      expect(whole.children).toHaveLength(400)
      expect({ ...fitted, diagnostics: [] }).toStrictEqual({ ...whole, children: [], usage: { ...whole.usage, byModel: {} }, diagnostics: [] })
      expect(fitted.diagnostics.map((d) => d.message)).toStrictEqual([
        expect.stringMatching(
          /^its 400 children were left out: the result's JSON of \d+ bytes is larger than the 24576 bytes a value may have on this server \(max_payload\)$/,
        ),
        expect.stringMatching(/^its usage by model \(401 models\) was left out: /),
      ])
      expectedRuns(small).forEach((r, i) => expect(stored.get(resultKey('small-1', i + 1))).toStrictEqual(r))
      await two.stop()
      // with a session bound below its size: the open run is closed with a diagnostic, the session restarts, the rest goes on
      await pub(bigSession('huge2'), 'huge2')
      const bounded = { ...names, durable: 'bounded', results: 'BOUNDED_RESULTS', snapshots: 'BOUNDED_SNAPSHOTS', maxSessionBytes: 64 * 1024 }
      const warnings: Array<string> = []
      const three = await startConsumer({ servers: server.url, ...bounded, onWarning: (w) => warnings.push(w) })
      const runsOf = async (sid: string) =>
        [...(await readBucket(server.nc, 'BOUNDED_RESULTS')).entries()]
          .filter(([k]) => k.startsWith(`${sid}.`))
          .sort(([a], [b]) => Number(a.split('.')[1]) - Number(b.split('.')[1]))
          .map(([, v]) => v as RunResult)
      await waitFor(async () => (await runsOf('huge2')).length > 0, 30_000, 'the closed run of the bounded session')
      await pub(tailOf('huge2'), 'huge2')
      await waitFor(async () => (await runsOf('huge2')).at(-1)?.ending.kind === 'answered', 30_000, 'the next run of the bounded session')
      await three.stop()
      const cut = await readBucket(server.nc, 'BOUNDED_RESULTS')
      expectedRuns(small).forEach((r, i) => expect(cut.get(resultKey('small-1', i + 1))).toStrictEqual(r))
      // the cuts fall at points fixed by the session's records (every 256th message): the same fold in memory,
      // bound checked where the worker checks it, gives exactly the stored runs
      const want: Array<RunResult> = []
      let restarts = 0
      const sim = new SessionFold(formatByName('native')?.translator as Translator<unknown>, 'huge2')
      for (const [i, e] of [...bigSession('huge2'), ...tailOf('huge2')].entries()) {
        const text = JSON.stringify(e)
        sim.apply(i + 1, text, (_, r) => want.push(r))
        const cut = sim.checkBound(64 * 1024, Buffer.byteLength(text))
        if (cut !== undefined) restarts++
        // after the first cut no run is open (the subagents' records make none), but the state outgrows the bound
        // again: it is dropped with no result
        if (cut?.closed) want.push(cut.closed.result)
      }
      const huge2 = await runsOf('huge2')
      expect(huge2.length).toBeGreaterThan(1)
      expect(huge2.length).toBe(want.length)
      // each stored as the worker fits a value under this server's max_payload (32 KiB less room for headers)
      huge2.forEach((r, i) => expect(r, `huge2.${i + 1}`).toStrictEqual(JSON.parse(fitResult(want[i] as RunResult, 32768 - 8192))))
      for (const r of huge2.slice(0, -1)) {
        expect(r.ending.kind).toBe('unfinished')
        expect(
          r.diagnostics.some((d) =>
            /^the session's checkpoint grew to \d+ bytes, past the 65536-byte bound: its run was closed here and its fold restarted/.test(d.message),
          ),
        ).toBe(true)
      }
      // the restarted fold reads on: the tail is a run of its own, answered, numbered after the cut ones
      expect(huge2.at(-1)?.ending).toStrictEqual({ kind: 'answered' })
      // this worker read the stream from its start: `huge`, of the same shape, was cut at the same records
      expect(restarts).toBeGreaterThan(huge2.length - 1)
      expect(three.stats().restartedSessions).toBe(2 * restarts)
      expect(warnings.some((w) => /a session's checkpoint grew to \d+ bytes \(bound 65536\)/.test(w))).toBe(true)
      expect(partitionOf('huge', 1)).toBe(0)
    } finally {
      await server.stop()
    }
  }, 90_000)
})

describe.skipIf(!available)('a stop while the server is down (a user trial: the worker never ended)', () => {
  /**
   * A CLI worker folds sessions on both partitions without snapshotting them (`--snapshot` an hour), the server
   * is frozen (SIGSTOP) or killed, then the worker gets SIGTERM: it gives the server up after its patience and
   * exits 0, saying on stderr which partitions it stopped without their last snapshot.
   */
  const stopWithServer = async (signal: 'SIGSTOP' | 'SIGKILL') => {
    const server = await startNatsServer([{ pattern: 'agents.*.events', partitions: 2 }])
    let worker: Worker | undefined
    try {
      worker = spawnWorker(['--server', server.url, '--partitions', '2', '--snapshot', '3600', '--progress', '0.1'])
      const w = worker
      await waitFor(() => /partitions \[0,1\] of 2/.test(w.stderr()), 30_000, 'the worker to hold both partitions')
      const sids = ['stop-0', 'stop-1', 'stop-2', 'stop-3']
      expect(sids.map((s) => partitionOf(s, 2)).sort()).toStrictEqual([0, 0, 1, 1])
      const items = sids.flatMap((sid) => sessionEvents(sid, prng(sid.length)).map((e) => ({ subject: `agents.${sid}.events`, payload: JSON.stringify(e) })))
      await publishAll(server.nc, items)
      await waitFor(() => w.events() === items.length, 30_000, 'every event applied')
      server.proc().kill(signal)
      w.proc.kill('SIGTERM')
      // generous: the worker waits 10 s for the server, then 2 s for the drain (before the fix: for ever)
      const code = await Promise.race([w.exited, sleep(60_000).then(() => 'still running')])
      expect(code).toBe(0)
      const lines = w.stderr().trimEnd().split('\n')
      expect(lines.filter((l) => l.includes('stopped without'))).toStrictEqual(
        [0, 1].map(
          (p) =>
            `run-outcome consume: warning: the server did not answer: stopped without the last snapshot of partition ${p}; the next worker to hold it resumes from the one before`,
        ),
      )
      // the last line: the final counts, no snapshot committed
      expect(lines.at(-1)).toMatch(
        new RegExp(
          `^run-outcome consume: stopped after ${items.length} events \\(\\d+/s average\\), 0 sessions, 0 open, \\d+ results? written, 0 protocol errors, 0 snapshots, 0 resyncs$`,
        ),
      )
    } finally {
      if (worker !== undefined && worker.proc.exitCode === null && worker.proc.signalCode === null) worker.proc.kill('SIGKILL')
      server.proc().kill('SIGCONT')
      await server.stop()
    }
  }

  it('SIGTERM while the server is frozen (SIGSTOP): the worker exits 0, naming the partitions it could not snapshot', () => stopWithServer('SIGSTOP'), 90_000)
  it('SIGTERM after the server was killed: the worker exits 0, naming the partitions it could not snapshot', () => stopWithServer('SIGKILL'), 90_000)
})
