/**
 * The per-session fold on NATS JetStream (issue 8; design, limits and figures in docs/scale-out.md).
 *
 * Topology: events arrive on `agents.<sessionId>.events` (one native event per message, SPEC §4) in the
 * stream `AGENT_EVENTS`. Each session's checkpoint ({@link SessionCheckpoint}: fold state + stream sequence
 * of the last event applied) lives in the KV bucket `RUN_STATE` under the session's key; each closed run's
 * `RunResult` (SPEC §3) is created in `RUN_RESULTS` under `<sessionKey>.<n>`.
 *
 * Sharing the work (nats-server 2.9 cannot partition a consumer): sessions are hashed into `P` partitions
 * ({@link partitionOf}); partition `p` has its own durable `<durable>-<p>` over the whole subject pattern, and
 * one worker at a time holds its lease (KV compare-and-set, see partitions.ts). The holder folds the
 * partition's sessions and acknowledges every other message at once, so each session is folded by one worker,
 * in stream order, without waiting on anyone.
 *
 * Nothing lost, nothing twice — whatever the leases say (they only keep workers out of each other's way):
 * 1. A worker applies a delivered message at stream sequence `S` to a checkpoint whose last sequence is `L`
 *    only when no event of the session lies between them. Either it holds every delivery its durable made
 *    since the one that applied `L` (first deliveries follow stream order, so such an event would be among
 *    them: the common path, {@link DeliverySet}), or it asks the stream for the first message on the
 *    session's subject at or after `L + 1` (`STREAM.MSG.GET` with `next_by_subj`, answered by the stream
 *    leader); if that is an earlier message (awaiting redelivery after a crash), it applies that one first.
 * 2. It creates the closed runs' results (create-only: a key written by an earlier attempt holds the same
 *    value, the fold being deterministic), writes the checkpoint with compare-and-set on the revision it read,
 *    and only then acknowledges. A lost compare-and-set discards the work, reloads and retries; a message at
 *    or below the checkpoint's sequence is acknowledged without being applied.
 *
 * @module
 */
import { boundedJson } from '../core/boundedJson.js'
import type { Consumer, JetStreamClient, JetStreamManager, JsMsg, StoredMsg } from '@nats-io/jetstream'
import type { KV } from '@nats-io/kv'
import type { NatsConnection } from '@nats-io/transport-node'
import * as E from 'fp-ts/lib/Either.js'
import { hostname } from 'node:os'
import { hasOpenRun } from '../core/fold.js'
import type { RunResult } from '../core/RunResult.js'
import { applyMessage, decodeCheckpoint, encodeCheckpoint, newCheckpoint, type SessionCheckpoint } from './checkpoint.js'
import { loadNatsClients, type NatsClients } from './clients.js'
import { DeliverySet } from './deliveries.js'
import { isValidName, JETSTREAM_DEFAULTS, resultKey, sessionFromSubject, sessionKey, sessionTokenIndex } from './keys.js'
import { configKey, leaseKey, partitionDurable, partitionOf, rebalance, StalenessTracker, workersKey, type PartitionView } from './partitions.js'

/** Options of {@link startConsumer}; every name defaults to {@link JETSTREAM_DEFAULTS}. @since 0.1.0 */
export interface ConsumeOptions {
  /** NATS server URL(s), e.g. `nats://127.0.0.1:4222`. Required unless `connection` is given. */
  readonly servers?: string | ReadonlyArray<string>
  /** An open connection to use instead of `servers`; it is left open by `stop()`. */
  readonly connection?: NatsConnection
  /** Stream of the events (created with `subjects` when missing; an existing one is used as it is). */
  readonly stream?: string
  /** Subject pattern with one `*` token for the session id (`agents.*.events`): the durables' filter. */
  readonly subjects?: string
  /** Prefix of the partitions' durable pull consumers (`<durable>-<p>`, created when missing). */
  readonly durable?: string
  /** KV bucket of the results (`<sessionKey>.<n>` → `RunResult` JSON). */
  readonly results?: string
  /** KV bucket of the checkpoints (`<sessionKey>` → {@link SessionCheckpoint} JSON), leases and heartbeats. */
  readonly state?: string
  /**
   * Partitions of the sessions: how many workers can share the work. Pinned in the state bucket by the first
   * worker; a worker started with another count refuses to start. Default 4.
   */
  readonly partitions?: number
  /** Lease time in milliseconds: a silent worker's partitions are taken over after it. Default 10 s. */
  readonly leaseMs?: number
  /** `ack_wait` of durables this call creates, in milliseconds (redelivery delay of unacknowledged messages). Default 30 s. */
  readonly ackWaitMs?: number
  /** `max_ack_pending` of durables this call creates. Default 10,000. */
  readonly maxAckPending?: number
  /** Replicas of the stream and buckets this call creates. Default 1. */
  readonly replicas?: number
  /** Most messages folded per batch, and asked for per pull. Default 256. */
  readonly batch?: number
  /** Session checkpoints kept in memory. Default 10,000. */
  readonly cacheSessions?: number
  /** How often `onProgress` is called, in milliseconds (0: never). Default 5,000. */
  readonly progressIntervalMs?: number
  /** Called with the counters every `progressIntervalMs` (`final` false), and once when the consumer stops (`final` true). */
  readonly onProgress?: (stats: ConsumeStats, final: boolean) => void
  /** Called with a one-line note about a recoverable problem (a retried session, an unexpected subject, a lost lease). */
  readonly onWarning?: (message: string) => void
  /** Client name shown by the server. */
  readonly name?: string
}

/** A worker's counters since it started. @since 0.1.0 */
export interface ConsumeStats {
  /** Milliseconds since the consumer started. */
  readonly elapsedMs: number
  /** Events applied to checkpoints that were then written (delivered, or read from the stream to fill a gap). */
  readonly events: number
  /** Events applied per second over the last progress interval (over the whole run in the final call). */
  readonly eventsPerSecond: number
  /** Sessions in this worker's memory whose current run has content and no root idle yet. */
  readonly openSessions: number
  /** Sessions whose checkpoint this worker keeps in memory. */
  readonly cachedSessions: number
  /** Results this worker created in the results bucket. */
  readonly resultsWritten: number
  /** Delivered messages acknowledged without applying them (already in the session's checkpoint). */
  readonly duplicates: number
  /** Malformed events recorded as diagnostics. */
  readonly protocolErrors: number
  /** Checkpoint writes lost to another worker (compare-and-set), after which the session was reloaded. */
  readonly conflicts: number
  /** Messages handed back (nak) for a later retry after an error. */
  readonly retried: number
  /** Events read from the stream to check or fill a session's order (the rest were known to be in order). */
  readonly streamReads: number
  /** Partitions this worker holds now (of `partitionCount`). */
  readonly partitions: ReadonlyArray<number>
  /** The deployment's partition count. */
  readonly partitionCount: number
}

/** A running consumer. @since 0.1.0 */
export interface RunningConsumer {
  /** This worker's id (its heartbeat key is `_worker.<id>`). */
  readonly id: string
  /** The counters now. */
  stats(): ConsumeStats
  /**
   * Stops cleanly: no new messages, the batch in hand is finished (written and acknowledged), messages
   * received and not started are handed back (nak) for immediate redelivery, the leases are released so other
   * workers take the partitions at once, and the connection is drained (when this consumer opened it).
   */
  stop(): Promise<void>
  /** Resolves after `stop()`; rejects if the connection closes for good. */
  readonly done: Promise<void>
  /** The resources this worker created because they did not exist (`stream AGENT_EVENTS`, `bucket RUN_STATE`, …). */
  readonly created: ReadonlyArray<string>
}

/** Bad options, or the server or topology cannot be reached or set up. The message is one line. @since 0.1.0 */
export class ConsumeSetupError extends Error {
  override readonly name = 'ConsumeSetupError' as const
}

interface Config {
  readonly stream: string
  readonly subjects: string
  readonly tokenIndex: number
  readonly durable: string
  readonly results: string
  readonly state: string
  readonly partitions: number
  readonly leaseMs: number
  readonly ackWaitMs: number
  readonly maxAckPending: number
  readonly replicas: number
  readonly batch: number
  readonly cacheSessions: number
  readonly progressIntervalMs: number
}

const positive = (n: number | undefined, fallback: number, what: string): number => {
  const v = n ?? fallback
  if (!Number.isFinite(v) || v <= 0) throw new ConsumeSetupError(`${what} must be a positive number`)
  return v
}

/**
 * Checks and completes the options. **Throws** {@link ConsumeSetupError} on a bad name, count or subject pattern.
 * @internal
 */
export const resolveConfig = (o: ConsumeOptions): Config => {
  const stream = o.stream ?? JETSTREAM_DEFAULTS.stream
  const durable = o.durable ?? JETSTREAM_DEFAULTS.durable
  const results = o.results ?? JETSTREAM_DEFAULTS.results
  const state = o.state ?? JETSTREAM_DEFAULTS.state
  for (const [what, name] of [
    ['stream', stream],
    ['durable', durable],
    ['results bucket', results],
    ['state bucket', state],
  ] as const) {
    if (!isValidName(name)) throw new ConsumeSetupError(`the ${what} name may contain only letters, digits, '-' and '_'`)
  }
  if (results === state) throw new ConsumeSetupError('the results and state buckets must differ')
  const subjects = o.subjects ?? JETSTREAM_DEFAULTS.subjects
  const tokenIndex = sessionTokenIndex(subjects)
  if (typeof tokenIndex === 'string') throw new ConsumeSetupError(tokenIndex)
  const progress = o.progressIntervalMs ?? 5000
  if (!Number.isFinite(progress) || progress < 0) throw new ConsumeSetupError('the progress interval must be 0 or more')
  const partitions = positive(o.partitions, JETSTREAM_DEFAULTS.partitions, 'the partition count')
  if (!Number.isInteger(partitions) || partitions > 1024) throw new ConsumeSetupError('the partition count must be a whole number from 1 to 1024')
  return {
    stream,
    subjects,
    tokenIndex,
    durable,
    results,
    state,
    partitions,
    leaseMs: Math.max(300, positive(o.leaseMs, JETSTREAM_DEFAULTS.leaseSeconds * 1000, 'the lease time')),
    ackWaitMs: positive(o.ackWaitMs, JETSTREAM_DEFAULTS.ackWaitSeconds * 1000, 'ack wait'),
    maxAckPending: Math.floor(positive(o.maxAckPending, JETSTREAM_DEFAULTS.maxAckPending, 'max ack pending')),
    replicas: Math.floor(positive(o.replicas, 1, 'replicas')),
    batch: Math.floor(positive(o.batch, JETSTREAM_DEFAULTS.batch, 'batch')),
    cacheSessions: Math.floor(positive(o.cacheSessions, JETSTREAM_DEFAULTS.cacheSessions, 'cache size')),
    progressIntervalMs: progress,
  }
}

const apiCode = (e: unknown): number | undefined => {
  const code = (e as { code?: unknown } | null)?.code
  return typeof code === 'number' ? code : undefined
}
const WRONG_LAST_SEQUENCE = [10071, 10164]
const STREAM_NOT_FOUND = 10059
const CONSUMER_NOT_FOUND = 10014
const isWrongLastSequence = (e: unknown): boolean => WRONG_LAST_SEQUENCE.includes(apiCode(e) ?? 0)
const shortMessage = (e: unknown): string => (e instanceof Error ? e.message : 'unknown error').split('\n')[0]?.slice(0, 200) ?? 'unknown error'

interface Topology {
  readonly resultsKv: KV
  readonly stateKv: KV
  readonly created: Array<string>
}

/**
 * Creates what is missing — the stream (capturing `subjects`), the two KV buckets (history 1), the pinned
 * partition count and one durable per partition (explicit acks, `ack_wait`, `max_ack_pending`, deliver all,
 * unlimited redeliveries) — and leaves existing ones as they are. Concurrent workers may race here: the server
 * accepts an identical create twice, and the partition count is created once.
 *
 * **Throws** `ConsumeSetupError` when the pinned partition count differs from `cfg.partitions`.
 * @internal
 */
export const ensureTopology = async (clients: NatsClients, js: JetStreamClient, jsm: JetStreamManager, cfg: Config, warn: (m: string) => void): Promise<Topology> => {
  const { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, DiscardPolicy } = clients.jetstream
  const { nanos } = clients.transport
  const created: Array<string> = []
  try {
    await jsm.streams.info(cfg.stream)
  } catch (e) {
    if (apiCode(e) !== STREAM_NOT_FOUND) throw e
    await jsm.streams.add({
      name: cfg.stream,
      subjects: [cfg.subjects],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      discard: DiscardPolicy.Old,
      num_replicas: cfg.replicas,
    })
    created.push(`stream ${cfg.stream}`)
  }
  const kvm = new clients.kv.Kvm(js)
  const bucket = async (name: string): Promise<KV> => {
    const existed = await jsm.streams.info(`KV_${name}`).then(
      () => true,
      (e: unknown) => {
        if (apiCode(e) !== STREAM_NOT_FOUND) throw e
        return false
      },
    )
    // Kvm.create opens an existing bucket without changing it
    const kv = await kvm.create(name, { history: 1, replicas: cfg.replicas, storage: StorageType.File })
    if (!existed) created.push(`bucket ${name}`)
    return kv
  }
  const resultsKv = await bucket(cfg.results)
  const stateKv = await bucket(cfg.state)
  // pin the partition count: every worker must hash sessions the same way
  const pinned = await stateKv.get(configKey(cfg.durable))
  if (pinned === null || pinned.operation !== 'PUT') {
    await stateKv.create(configKey(cfg.durable), JSON.stringify({ partitions: cfg.partitions })).catch((e: unknown) => {
      if (!isWrongLastSequence(e)) throw e
    })
  }
  const config = await stateKv.get(configKey(cfg.durable))
  const count = config === null ? undefined : (config.json() as { partitions?: unknown } | null)?.partitions
  if (count !== cfg.partitions) {
    throw new ConsumeSetupError(
      `the workers of ${cfg.durable} are pinned to ${typeof count === 'number' ? count : 'another'} partition(s), not ${cfg.partitions}; start every worker with --partitions ${typeof count === 'number' ? count : 'N'} (docs/scale-out.md says how to change it)`,
    )
  }
  for (let p = 0; p < cfg.partitions; p++) {
    const name = partitionDurable(cfg.durable, p)
    try {
      const info = await jsm.consumers.info(cfg.stream, name)
      const filter = info.config.filter_subject
      if (filter !== undefined && filter !== '' && filter !== cfg.subjects) {
        warn(`the existing durable ${name} filters another subject pattern than ${cfg.subjects}; messages of other shapes are acknowledged and skipped`)
      }
    } catch (e) {
      if (apiCode(e) !== CONSUMER_NOT_FOUND) throw e
      await jsm.consumers.add(cfg.stream, {
        durable_name: name,
        ack_policy: AckPolicy.Explicit,
        ack_wait: nanos(cfg.ackWaitMs),
        max_ack_pending: cfg.maxAckPending,
        deliver_policy: DeliverPolicy.All,
        filter_subject: cfg.subjects,
        max_deliver: -1,
      })
      created.push(`durable ${name}`)
    }
  }
  return { resultsKv, stateKv, created }
}

interface CacheEntry {
  readonly cp: SessionCheckpoint
  /** KV revision the checkpoint was read or written at; 0 when the key does not exist yet. */
  readonly revision: number
}

/** One partition as this worker sees it while (and after) holding it. */
interface Partition {
  readonly index: number
  readonly durable: string
  /** Set while this worker holds the lease. */
  held: boolean
  leaseRevision: number
  consumer: Consumer | undefined
  /** The durable's identity: name and creation time (a recreated durable numbers its deliveries anew). */
  incarnation: string
  /** First stream sequence the durable's incarnation delivers (1 for deliver-all), or Infinity when unknown. */
  start: number
  /** Deliveries of this durable this worker holds (see the module doc, point 1). */
  deliveries: DeliverySet
  lastDelivery: number
  /** `false` once deliveries arrived out of order in this process: every check then reads the stream. */
  trust: boolean
  fetching: { stop(): void } | undefined
  pump: Promise<void> | undefined
}

interface Item {
  readonly m: JsMsg
  readonly part: Partition
}

const NAK_DELAY_MS = 1000
const MAX_ATTEMPTS = 8
const SESSION_CONCURRENCY = 64
/** How long one pull request waits for messages when the stream is idle. */
const FETCH_EXPIRES_MS = 5000
/** Most messages asked for per pull request (larger pulls stalled now and then against nats-server 2.9). */
const MAX_PULL = 256

const pool = async <T>(items: ReadonlyArray<T>, limit: number, fn: (item: T) => Promise<void>): Promise<void> => {
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++] as T)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane))
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref())

/**
 * Starts one worker of the per-session fold (see the module doc): connects (unless given a connection),
 * creates the missing stream, buckets and durables, takes its share of the partitions, and folds messages
 * until `stop()`.
 *
 * Several workers (processes or machines) with the same names share the partitions; each session's events are
 * applied once, in stream order. A worker killed at any point loses nothing: its partitions are taken over
 * once its lease runs out, its unacknowledged messages are redelivered after the durable's `ack_wait` (or read
 * from the stream earlier, when a later event of the same session arrives), and what it already wrote is
 * recognised by the checkpoint's stream sequence.
 *
 * **Fails with** {@link ConsumeSetupError} for bad options, an unreachable server, a topology that cannot be
 * set up or a partition count that differs from the pinned one, and `MissingNatsClientsError` when the
 * optional NATS packages are not installed.
 * @since 0.1.0
 */
export const startConsumer = async (options: ConsumeOptions, clientsIn?: NatsClients): Promise<RunningConsumer> => {
  const cfg = resolveConfig(options)
  const clients = clientsIn ?? (await loadNatsClients())
  const warn = options.onWarning ?? (() => {})
  let nc: NatsConnection
  const owned = options.connection === undefined
  if (options.connection !== undefined) nc = options.connection
  else {
    const servers = options.servers === undefined ? [] : typeof options.servers === 'string' ? options.servers.split(',') : [...options.servers]
    if (servers.length === 0 || servers.some((s) => s.trim() === '')) throw new ConsumeSetupError('give the NATS server URL (e.g. nats://127.0.0.1:4222)')
    try {
      nc = await clients.transport.connect({
        servers: servers.map((s) => s.trim()),
        name: options.name ?? 'run-outcome consume',
        maxReconnectAttempts: -1,
        // the clients capture a stack trace per request otherwise: a large share of a worker's CPU
        noAsyncTraces: true,
      })
    } catch (e) {
      throw new ConsumeSetupError(`cannot connect to ${servers.join(',')}: ${shortMessage(e)}`)
    }
  }
  let js: JetStreamClient
  let jsm: JetStreamManager
  let topo: Topology
  try {
    js = clients.jetstream.jetstream(nc)
    jsm = await clients.jetstream.jetstreamManager(nc)
    topo = await ensureTopology(clients, js, jsm, cfg, warn)
  } catch (e) {
    if (owned) await nc.close().catch(() => undefined)
    throw e instanceof ConsumeSetupError ? e : new ConsumeSetupError(`cannot set up JetStream: ${shortMessage(e)}`)
  }
  const { resultsKv, stateKv } = topo
  const id = `${hostname().replace(/[^-_a-zA-Z0-9]/g, '_').slice(0, 40)}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`

  // ---- counters ----
  const started = Date.now()
  let events = 0
  let resultsWritten = 0
  let duplicates = 0
  let protocolErrors = 0
  let conflicts = 0
  let retried = 0
  let streamReads = 0
  let lastTick = { at: started, events: 0 }

  // ---- checkpoint cache (LRU by insertion order) ----
  const cache = new Map<string, CacheEntry>()
  const remember = (session: string, entry: CacheEntry): void => {
    cache.delete(session)
    cache.set(session, entry)
    if (cache.size > cfg.cacheSessions) {
      const oldest = cache.keys().next()
      if (oldest.done !== true) cache.delete(oldest.value)
    }
  }
  const load = async (session: string): Promise<CacheEntry> => {
    const cached = cache.get(session)
    if (cached !== undefined) return cached
    const entry = await stateKv.get(sessionKey(session))
    if (entry === null || entry.operation !== 'PUT') return { cp: newCheckpoint(session), revision: 0 }
    const decoded = decodeCheckpoint(entry.string())
    if (E.isLeft(decoded)) {
      throw new Error(`the stored checkpoint of a session is not valid (${decoded.left.path || 'JSON'}: expected ${decoded.left.expected}); fix or delete its key in ${cfg.state}`)
    }
    const loaded = { cp: decoded.right, revision: entry.revision }
    remember(session, loaded)
    return loaded
  }

  const nextOnSubject = (subject: string, seq: number): Promise<StoredMsg | null> =>
    // STREAM.MSG.GET with next_by_subj (nats-server ≥ 2.9), answered by the stream leader: never behind a consumer
    jsm.streams.getMessage(cfg.stream, { seq, next_by_subj: subject } as unknown as { seq: number })

  const writeResult = async (session: string, n: number, result: RunResult): Promise<void> => {
    try {
      await resultsKv.create(resultKey(session, n), boundedJson(result))
      resultsWritten++
    } catch (e) {
      // written by an earlier attempt (this worker before a crash, or another worker): the same deterministic value
      if (!isWrongLastSequence(e)) throw e
    }
  }

  const ackAll = (items: ReadonlyArray<Item>): void => {
    for (const it of items) it.m.ack()
  }
  /** Hands messages back for redelivery; their deliveries no longer count as held (they were not applied). */
  const handBack = (items: ReadonlyArray<Item>, delay?: number): void => {
    for (const it of items) {
      it.m.nak(delay)
      it.part.deliveries.remove(it.m.info.deliverySequence)
    }
  }
  const nakAll = (items: ReadonlyArray<Item>, delay: number): void => {
    retried += items.length
    handBack(items, delay)
  }

  const firstDelivery = (it: Item): SessionCheckpoint['delivery'] =>
    it.m.info.deliveryCount === 1 ? { consumer: it.part.incarnation, seq: it.m.info.deliverySequence } : null
  /** `true` when the delivered message is known to be the session's next event after the checkpoint. */
  const inOrder = (cp: SessionCheckpoint, it: Item): boolean => {
    const part = it.part
    if (!part.trust || it.m.info.deliveryCount !== 1) return false
    let from: number
    if (cp.delivery !== null && cp.delivery.consumer === part.incarnation) from = cp.delivery.seq
    else if (cp.lastSeq + 1 >= part.start) from = 0 // every event after lastSeq is a delivery of this durable
    else return false
    const d = it.m.info.deliverySequence
    return d > from && part.deliveries.covers(from + 1, d - 1)
  }

  /** Applies one session's delivered messages (same subject), durably, then acknowledges them. Never throws. */
  const processSession = async (subject: string, session: string, items: Array<Item>): Promise<void> => {
    items.sort((a, b) => a.m.seq - b.m.seq)
    try {
      for (let attempt = 1; ; attempt++) {
        const entry = await load(session)
        // applied in place: the cached copy is dropped on any failure below, and only this call touches the
        // session (a batch has one group per subject; batches run one after the other)
        const cp = entry.cp
        cache.delete(session)
        const closed: Array<{ n: number; result: RunResult }> = []
        let applied = 0
        let errors = 0
        let dups = 0
        let reads = 0
        const apply = (seq: number, payload: Uint8Array, delivery: SessionCheckpoint['delivery']): void => {
          const r = applyMessage(cp, seq, payload, delivery)
          applied++
          if (r.error !== null) errors++
          if (r.closed !== null) closed.push(r.closed)
        }
        for (const it of items) {
          const m = it.m
          if (m.seq <= cp.lastSeq) {
            dups++
            continue
          }
          if (inOrder(cp, it)) {
            apply(m.seq, m.data, firstDelivery(it))
            continue
          }
          while (cp.lastSeq < m.seq) {
            const next = await nextOnSubject(subject, cp.lastSeq + 1)
            reads++
            if (next === null || next.seq >= m.seq) {
              // the delivered message is the next one (or was removed from the stream after delivery)
              apply(m.seq, m.data, firstDelivery(it))
            } else apply(next.seq, next.data, null)
          }
        }
        streamReads += reads
        if (applied === 0) {
          remember(session, entry) // unchanged
          duplicates += dups
          ackAll(items)
          return
        }
        for (const c of closed) await writeResult(session, c.n, c.result)
        cp.fold.closed = null // transient (the run the last event closed): written above, no need to store it twice
        const text = encodeCheckpoint(cp)
        let revision: number
        try {
          revision = entry.revision === 0 ? await stateKv.create(sessionKey(session), text) : await stateKv.update(sessionKey(session), text, entry.revision)
        } catch (e) {
          if (!isWrongLastSequence(e)) throw e
          conflicts++
          if (attempt >= MAX_ATTEMPTS) {
            warn(`a session kept changing under this worker (${MAX_ATTEMPTS} attempts); its messages will be retried`)
            nakAll(items, NAK_DELAY_MS)
            return
          }
          continue
        }
        remember(session, { cp, revision })
        events += applied
        protocolErrors += errors
        duplicates += dups
        ackAll(items)
        return
      }
    } catch (e) {
      cache.delete(session)
      warn(`could not apply ${items.length} message(s) of a session, retrying in ${NAK_DELAY_MS} ms: ${shortMessage(e)}`)
      nakAll(items, NAK_DELAY_MS)
    }
  }

  const processBatch = async (items: ReadonlyArray<Item>): Promise<void> => {
    const groups = new Map<string, Array<Item>>()
    for (const it of items) {
      const g = groups.get(it.m.subject)
      if (g === undefined) groups.set(it.m.subject, [it])
      else g.push(it)
    }
    await pool([...groups], SESSION_CONCURRENCY, async ([subject, group]) => {
      const session = sessionFromSubject(cfg.subjects, cfg.tokenIndex, subject)
      if (session === null) ackAll(group)
      else await processSession(subject, session, group)
    })
  }

  // ---- partitions: pulling ----
  // One pull request at a time per partition (fetch, at most MAX_PULL messages), issued only while less than a
  // batch waits: this bounds what the worker holds (and what could wait out ack_wait), and keeps nats-server 2.9
  // fast (overlapping pull requests, as consume() issues them, slow it down badly; docs/scale-out.md §2).
  const queue: Array<Item> = []
  let wake: (() => void) | undefined
  const spaceWaiters: Array<() => void> = []
  let stopping = false
  const notifySpace = (): void => {
    for (const f of spaceWaiters.splice(0)) f()
  }

  const parts: Array<Partition> = Array.from({ length: cfg.partitions }, (_, index) => ({
    index,
    durable: partitionDurable(cfg.durable, index),
    held: false,
    leaseRevision: 0,
    consumer: undefined,
    incarnation: '',
    start: Number.POSITIVE_INFINITY,
    deliveries: new DeliverySet(),
    lastDelivery: 0,
    trust: true,
    fetching: undefined,
    pump: undefined,
  }))

  let skippedSubjects = 0
  const receive = (part: Partition, m: JsMsg): void => {
    const d = m.info.deliverySequence
    // deliveries out of order (a recreated durable, a client reset): stop relying on them in this process
    if (d <= part.lastDelivery) part.trust = false
    part.lastDelivery = Math.max(part.lastDelivery, d)
    part.deliveries.add(d)
    const session = sessionFromSubject(cfg.subjects, cfg.tokenIndex, m.subject)
    if (session === null) {
      if (part.index === 0 && skippedSubjects++ % 1000 === 0) warn(`skipped message(s) on a subject that does not match ${cfg.subjects}`)
      m.ack()
      return
    }
    if (partitionOf(session, cfg.partitions) !== part.index) {
      m.ack() // another partition's session: its own durable delivers it to its holder
      return
    }
    if (stopping || !part.held) {
      handBack([{ m, part }])
      return
    }
    queue.push({ m, part })
    const w = wake
    wake = undefined
    w?.()
  }

  const runPump = async (part: Partition): Promise<void> => {
    let lastError = ''
    while (!stopping && part.held) {
      while (queue.length >= cfg.batch && !stopping && part.held) {
        await new Promise<void>((resolve) => spaceWaiters.push(resolve))
      }
      if (stopping || !part.held) break
      try {
        if (part.consumer === undefined) throw new Error('no consumer')
        const messages = await part.consumer.fetch({ max_messages: Math.min(cfg.batch, MAX_PULL), expires: FETCH_EXPIRES_MS })
        part.fetching = messages
        for await (const m of messages) receive(part, m)
        lastError = ''
      } catch (e) {
        if (stopping || !part.held) break
        const message = shortMessage(e)
        if (message !== lastError) warn(`pulling partition ${part.index} failed, retrying: ${message}`)
        lastError = message
        await sleep(NAK_DELAY_MS)
      } finally {
        part.fetching = undefined
      }
    }
  }

  const startPartition = async (part: Partition): Promise<void> => {
    const info = await jsm.consumers.info(cfg.stream, part.durable)
    const incarnation = `${part.durable}@${info.created}`
    if (incarnation !== part.incarnation) {
      // a durable recreated since this worker last held it numbers its deliveries anew
      part.incarnation = incarnation
      part.deliveries = new DeliverySet()
      part.lastDelivery = 0
      part.trust = true
    }
    const policy = info.config.deliver_policy
    part.start = policy === 'all' ? 1 : policy === 'by_start_sequence' ? (info.config.opt_start_seq ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY
    part.consumer = await js.consumers.get(cfg.stream, part.durable)
    part.held = true
    part.pump = runPump(part)
  }
  const stopPartition = async (part: Partition): Promise<void> => {
    part.held = false
    part.fetching?.stop()
    notifySpace()
    await part.pump
    part.pump = undefined
  }

  // ---- partitions: leases ----
  // Heartbeats: one key (`_workers.<durable>`) maps each worker id to a counter its owner bumps every tick
  // (compare-and-set). Listing keys instead (kv.keys) creates a consumer per call, which stalls pulls on 2.9.
  const tracker = new StalenessTracker(cfg.leaseMs)
  let beats = 0
  const leaseValue = (): string => JSON.stringify({ owner: id })
  /** Bumps this worker's counter (or removes it when `leaving`), drops silent workers; returns the live count. */
  const heartbeat = async (now: number, leaving = false): Promise<number> => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const e = await stateKv.get(workersKey(cfg.durable))
      let current: Record<string, unknown> | null = null
      try {
        current = e !== null && e.operation === 'PUT' ? (e.json() as Record<string, unknown> | null) : null
      } catch {
        current = null // not JSON: rewritten below
      }
      if (typeof current !== 'object' || Array.isArray(current)) current = null
      const next: Record<string, number> = {}
      let live = leaving ? 0 : 1
      for (const [w, n] of Object.entries(current ?? {})) {
        if (w === id || typeof n !== 'number') continue
        // a worker whose counter has not moved for a lease time is gone
        if (tracker.observe(`#worker:${w}`, n, now)) tracker.forget(`#worker:${w}`)
        else {
          next[w] = n
          live++
        }
      }
      if (!leaving) next[id] = ++beats
      try {
        const text = JSON.stringify(next)
        if (e === null || e.operation !== 'PUT') await stateKv.create(workersKey(cfg.durable), text)
        else await stateKv.update(workersKey(cfg.durable), text, e.revision)
        return live
      } catch (err) {
        if (!isWrongLastSequence(err)) throw err
      }
    }
    throw new Error('the heartbeat key kept changing')
  }
  const lose = async (part: Partition, why: string): Promise<void> => {
    warn(`lost partition ${part.index} (${why}); another worker holds it now`)
    await stopPartition(part)
  }

  let ticking = false
  const tick = async (): Promise<void> => {
    if (ticking || stopping) return
    ticking = true
    try {
      const now = Date.now()
      const live = await heartbeat(now)
      // renew what this worker holds
      for (const part of parts) {
        if (!part.held) continue
        try {
          part.leaseRevision = await stateKv.update(leaseKey(cfg.durable, part.index), leaseValue(), part.leaseRevision)
        } catch (e) {
          if (stopping) return
          // taken by another worker: stop; any other failure (a timeout): keep going, the next tick retries
          if (isWrongLastSequence(e)) await lose(part, 'its lease was taken')
          else warn(`could not renew the lease of partition ${part.index}: ${shortMessage(e)}`)
        }
      }
      const views: Array<PartitionView> = []
      const revisions = new Map<number, number>()
      for (const part of parts) {
        if (part.held) {
          views.push({ partition: part.index, state: 'mine' })
          continue
        }
        const e = await stateKv.get(leaseKey(cfg.durable, part.index))
        if (e === null || e.operation !== 'PUT') {
          revisions.set(part.index, 0)
          views.push({ partition: part.index, state: 'free' })
        } else {
          const stale = tracker.observe(leaseKey(cfg.durable, part.index), e.revision, now)
          revisions.set(part.index, e.revision)
          views.push({ partition: part.index, state: stale ? 'free' : 'taken' })
        }
      }
      const plan = rebalance(views, live)
      for (const p of plan.release) {
        const part = parts[p] as Partition
        await stopPartition(part)
        await stateKv.delete(leaseKey(cfg.durable, p), { previousSeq: part.leaseRevision }).catch(() => undefined)
      }
      for (const p of plan.acquire) {
        if (stopping) return
        const part = parts[p] as Partition
        const seen = revisions.get(p) ?? 0
        try {
          part.leaseRevision = seen === 0 ? await stateKv.create(leaseKey(cfg.durable, p), leaseValue()) : await stateKv.update(leaseKey(cfg.durable, p), leaseValue(), seen)
        } catch (e) {
          if (!isWrongLastSequence(e)) warn(`could not take partition ${p}: ${shortMessage(e)}`)
          continue // another worker was quicker
        }
        tracker.forget(leaseKey(cfg.durable, p))
        try {
          await startPartition(part)
        } catch (e) {
          warn(`could not start partition ${p}: ${shortMessage(e)}`)
          part.held = false
          await stateKv.delete(leaseKey(cfg.durable, p), { previousSeq: part.leaseRevision }).catch(() => undefined)
        }
      }
    } catch (e) {
      if (!stopping) warn(`rebalancing failed, retrying: ${shortMessage(e)}`)
    } finally {
      ticking = false
    }
  }

  const stats = (final = false): ConsumeStats => {
    const now = Date.now()
    let open = 0
    for (const e of cache.values()) if (hasOpenRun(e.cp.fold)) open++
    const span = final ? now - started : now - lastTick.at
    const delta = final ? events : events - lastTick.events
    return {
      elapsedMs: now - started,
      events,
      eventsPerSecond: span > 0 ? Math.round((delta * 1000) / span) : 0,
      openSessions: open,
      cachedSessions: cache.size,
      resultsWritten,
      duplicates,
      protocolErrors,
      conflicts,
      retried,
      streamReads,
      partitions: parts.filter((p) => p.held).map((p) => p.index),
      partitionCount: cfg.partitions,
    }
  }

  let fail: (e: Error) => void = () => {}
  const failed = new Promise<never>((_, reject) => {
    fail = reject
  })
  failed.catch(() => undefined)

  await tick()
  const membership = setInterval(() => void tick(), Math.max(100, Math.floor(cfg.leaseMs / 3)))
  membership.unref()

  const loop = (async () => {
    while (!stopping) {
      if (queue.length === 0) {
        await new Promise<void>((resolve) => {
          wake = resolve
        })
        continue
      }
      const batch = queue.splice(0, cfg.batch)
      notifySpace()
      await processBatch(batch)
    }
  })()

  const ticker =
    cfg.progressIntervalMs > 0 && options.onProgress !== undefined
      ? setInterval(() => {
          const s = stats()
          lastTick = { at: Date.now(), events }
          options.onProgress?.(s, false)
        }, cfg.progressIntervalMs)
      : undefined
  ticker?.unref()

  void nc.closed().then((err) => {
    if (!stopping) fail(new Error(`the connection to NATS closed${err instanceof Error ? `: ${shortMessage(err)}` : ''}`))
  })

  let stopped: Promise<void> | undefined
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      stopping = true
      clearInterval(membership)
      while (ticking) await sleep(20)
      if (ticker !== undefined) clearInterval(ticker)
      for (const part of parts) part.fetching?.stop()
      notifySpace()
      const w = wake
      wake = undefined
      w?.()
      await loop
      await Promise.race([Promise.all(parts.map((p) => p.pump)), sleep(1000)])
      // received but not started: hand back for immediate redelivery
      handBack(queue.splice(0))
      // let other workers take the partitions now rather than after the lease time
      for (const part of parts) {
        if (!part.held) continue
        part.held = false
        await stateKv.delete(leaseKey(cfg.durable, part.index), { previousSeq: part.leaseRevision }).catch(() => undefined)
      }
      await heartbeat(Date.now(), true).catch(() => undefined)
      if (owned) await nc.drain().catch(() => undefined)
      else await nc.flush().catch(() => undefined)
      options.onProgress?.(stats(true), true)
    })()
    return stopped
  }

  const done = Promise.race([failed, loop.then(() => stopped)]).then(() => undefined)
  return { id, stats: () => stats(), stop, done, created: topo.created }
}
