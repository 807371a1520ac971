/**
 * The per-session fold on NATS JetStream at platform speed (issues 8 and 17; design, limits and figures in
 * docs/scale-out.md).
 *
 * Topology: publishers put one record per message on `agents.<sessionId>.events`; the stream `AGENT_EVENTS`
 * stores them partitioned, `agents.<p>.<sessionId>.events` with `p = fnv1a32(utf8(sessionId)) mod P` (the
 * server's `{{partition(P,1)}}` mapping, or publishers that write that subject themselves). Each closed run's
 * `RunResult` (SPEC §3) is created in the KV bucket `RUN_RESULTS` under `<sessionKey>.<n>`.
 *
 * One worker at a time holds a partition (a lease in `RUN_STATE`). While it holds it (a *tenure*):
 * 1. **State in memory.** Every session of the partition is a live pipeline in memory (any format: the
 *    translator's and the fold's state are plain JSON). A message is applied the moment it arrives: no I/O per
 *    event.
 * 2. **Its own consumer.** The tenure starts by claiming the partition's snapshot log (a compare-and-set
 *    publish, snapshot.ts), loads the last committed snapshot (position `L`), deletes the previous tenure's
 *    consumer and creates its own (`<durable>-<p>-<claim>`, filter `agents.<p>.*.events`, ack-all, from stream
 *    sequence `L + 1`). So a takeover never waits for `ack_wait`: the new consumer delivers from the snapshot
 *    at once, and messages a dead worker held are simply delivered again.
 * 3. **In order, or resync.** Deliveries of one consumer are numbered 1, 2, 3, …; the worker applies a message
 *    only if it is the next delivery and a first delivery. Anything else (a gap left by a pull that failed, a
 *    redelivery, a pull that times out while the consumer reports pending messages, missed heartbeats, a
 *    server restart) makes the worker recreate its consumer at its in-memory position + 1 and go on: no
 *    partition is ever left waiting on a stuck pull.
 * 4. **Snapshots.** About every second (or at half of `max_ack_pending`) the worker writes the sessions changed
 *    since the last snapshot (or all of them, now and then) as chunks and a commit `{ lastSeq }` to the log,
 *    each publish a compare-and-set on the log's last sequence; then it acknowledges everything up to
 *    `lastSeq` with one ack (`AckPolicy.All`). Results of the runs closed before `lastSeq` are created
 *    (create-only, pipelined) before the commit is written, so a commit never covers a missing result.
 * Exactly once: a restarted tenure replays from `lastSeq + 1` the events of a state that holds every event up
 * to `lastSeq` and none after; results are keyed by run number and created once (a key written by an earlier
 * attempt holds the same value: the fold is deterministic). A worker that lost its lease and still writes
 * fails at its next snapshot publish and drops the partition; its consumer was deleted by its successor.
 *
 * @module
 */
import type { Translator } from '../core/translator.js'
import type { Consumer, ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream'
import type { KV } from '@nats-io/kv'
import type { NatsConnection } from '@nats-io/transport-node'
import * as E from 'fp-ts/lib/Either.js'
import { hostname } from 'node:os'
import { formatByName, formats } from '../formats/index.js'
import type { RunResult } from '../core/RunResult.js'
import { decodeCheckpoint, fitResult, SessionFold } from './checkpoint.js'
import { loadNatsClients, type NatsClients } from './clients.js'
import {
  isValidName,
  JETSTREAM_DEFAULTS,
  parsePartitionedSubject,
  partitionedPattern,
  partitionFilter,
  resultKey,
  sessionTokenIndex,
  snapshotSubject,
  subjectForSession,
  tenureConsumer,
} from './keys.js'
import { configKey, leaseKey, partitionOf, rebalance, StalenessTracker, workersKey, type PartitionView } from './partitions.js'
import { readSnapshotChunks, readSnapshotHead, readSnapshotLines, sliceText, SnapshotFencedError, SnapshotWriter } from './snapshot.js'

/** Options of {@link startConsumer}; every name defaults to {@link JETSTREAM_DEFAULTS}. @since 0.1.0 */
export interface ConsumeOptions {
  /** NATS server URL(s), e.g. `nats://127.0.0.1:4222`. Required unless `connection` is given. */
  readonly servers?: string | ReadonlyArray<string>
  /** An open connection to use instead of `servers`; it is left open by `stop()`. */
  readonly connection?: NatsConnection
  /** Stream of the events (created capturing the partitioned subjects when missing; an existing one is used as it is). */
  readonly stream?: string
  /** The publishers' subject pattern, one `*` token for the session id (`agents.*.events`); stored partitioned. */
  readonly subjects?: string
  /** Prefix of the partitions' consumers (`<durable>-<p>-<tenure>`) and of the lease keys. */
  readonly durable?: string
  /** KV bucket of the results (`<sessionKey>.<n>` → `RunResult` JSON). */
  readonly results?: string
  /** KV bucket of the leases, heartbeats and the pinned partition count and format. */
  readonly state?: string
  /** Stream of the partitions' snapshot logs (subjects `<snapshots>.>`). */
  readonly snapshots?: string
  /**
   * Format of the records (`native`, `claude-code`, `codex`, `gemini`, `ai-sdk`, `acp`, `openai-agents`). Default
   * native. Pinned in the state bucket with the partition count; a worker started with another format refuses to start.
   */
  readonly format?: string
  /**
   * Partitions of the sessions: how many workers can share the work. Pinned in the state bucket by the first
   * worker; a worker started with another count refuses to start. Must match the server's mapping. Default 4.
   */
  readonly partitions?: number
  /** Lease time in milliseconds: a silent worker's partitions are taken over after it. Default 2 s. */
  readonly leaseMs?: number
  /** `ack_wait` of the consumers, in milliseconds. Default 30 s. */
  readonly ackWaitMs?: number
  /** `max_ack_pending` of the consumers. Default 100,000. */
  readonly maxAckPending?: number
  /** Replicas of the streams and buckets this call creates. Default 1. */
  readonly replicas?: number
  /** Pull size unit: the consumer asks for `8 × batch` messages and refills when `4 × batch` are left. Default 256. */
  readonly batch?: number
  /** Milliseconds between two snapshots of a partition with new events. Default 1,000. */
  readonly snapshotMs?: number
  /** Largest checkpoint of one session, in bytes (checked as {@link SessionFold.checkBound} says). Default 4 MiB. */
  readonly maxSessionBytes?: number
  /** How often `onProgress` is called, in milliseconds (0: never). Default 5,000. */
  readonly progressIntervalMs?: number
  /** Called with the counters every `progressIntervalMs` (`final` false), and once when the consumer stops (`final` true). */
  readonly onProgress?: (stats: ConsumeStats, final: boolean) => void
  /** Called with a one-line note about a recoverable problem (a resync, a lost lease, a failed write). */
  readonly onWarning?: (message: string) => void
  /** Client name shown by the server. */
  readonly name?: string
}

/** A worker's counters since it started. @since 0.1.0 */
export interface ConsumeStats {
  /** Milliseconds since the consumer started. */
  readonly elapsedMs: number
  /** Messages applied to sessions (a message applied again after a takeover counts again). */
  readonly events: number
  /** Events applied per second over the last progress interval (over the whole run in the final call). */
  readonly eventsPerSecond: number
  /** Sessions in this worker's memory whose current run has content and no terminal record yet. */
  readonly openSessions: number
  /** Sessions of the held partitions in memory. */
  readonly sessions: number
  /** Results this worker created in the results bucket. */
  readonly resultsWritten: number
  /** Messages the native format rejected (recorded as diagnostics). */
  readonly protocolErrors: number
  /** Snapshots committed. */
  readonly commits: number
  /** Bytes of the last snapshot written. */
  readonly snapshotBytes: number
  /** Consumers recreated at the worker's position (a failed or stuck pull, a gap, a redelivery). */
  readonly resyncs: number
  /** Sessions whose checkpoint passed `maxSessionBytes` (run closed with a diagnostic, fold restarted). */
  readonly restartedSessions: number
  /** Messages on a subject without the partitioned shape (acknowledged, skipped). */
  readonly skipped: number
  /** Partitions this worker holds now (of `partitionCount`). */
  readonly partitions: ReadonlyArray<number>
  /** The deployment's partition count. */
  readonly partitionCount: number
}

/** A running consumer. @since 0.1.0 */
export interface RunningConsumer {
  /** This worker's id (its entry in the heartbeat key). */
  readonly id: string
  /** The counters now. */
  stats(): ConsumeStats
  /**
   * Stops cleanly: no new messages, each held partition's state is committed (snapshot, results, ack), the
   * leases are released so other workers take the partitions at once, and the connection is drained (when
   * this consumer opened it). Always ends: the server is waited for 10 s in all (a server that is down or frozen
   * never answers); a partition whose last snapshot was not committed by then is named in a warning (safe: its
   * next holder resumes from the snapshot before, and results are create-only), the leases left run out after
   * the lease time, and an owned connection whose drain does not finish within 2 s more is closed.
   */
  stop(): Promise<void>
  /**
   * Resolves after `stop()`; rejects if the connection closes for good or a partition's snapshot was folded with
   * another format (a deployment pinned before its format was: start-up checks the others).
   */
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
  readonly snapshots: string
  readonly translator: Translator<unknown>
  readonly partitions: number
  readonly leaseMs: number
  readonly ackWaitMs: number
  readonly maxAckPending: number
  readonly replicas: number
  readonly batch: number
  readonly snapshotMs: number
  readonly maxSessionBytes: number
  readonly progressIntervalMs: number
}

const positive = (n: number | undefined, fallback: number, what: string): number => {
  const v = n ?? fallback
  if (!Number.isFinite(v) || v <= 0) throw new ConsumeSetupError(`${what} must be a positive number`)
  return v
}

/** The longest delay a Node timer takes (2^31 − 1 ms, about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1
/** A time in milliseconds that a timer can wait: positive, and at most {@link MAX_TIMER_MS}. */
const duration = (n: number | undefined, fallback: number, what: string): number => {
  const v = positive(n, fallback, what)
  if (v > MAX_TIMER_MS) throw new ConsumeSetupError(`${what} must be at most ${Math.floor(MAX_TIMER_MS / 1000)} s (about 24 days)`)
  return v
}

/** Format names `consume` accepts (every format with a translator). @since 0.3.0 */
export const consumeFormats = (): Array<string> => formats.filter((f) => f.translator !== undefined).map((f) => f.name)

/**
 * Checks and completes the options. **Throws** {@link ConsumeSetupError} on a bad name, count, format or subject pattern.
 * @internal
 */
export const resolveConfig = (o: ConsumeOptions): Config => {
  const stream = o.stream ?? JETSTREAM_DEFAULTS.stream
  const durable = o.durable ?? JETSTREAM_DEFAULTS.durable
  const results = o.results ?? JETSTREAM_DEFAULTS.results
  const state = o.state ?? JETSTREAM_DEFAULTS.state
  const snapshots = o.snapshots ?? JETSTREAM_DEFAULTS.snapshots
  for (const [what, name] of [
    ['stream', stream],
    ['durable', durable],
    ['results bucket', results],
    ['state bucket', state],
    ['snapshots stream', snapshots],
  ] as const) {
    if (!isValidName(name)) throw new ConsumeSetupError(`the ${what} name may contain only letters, digits, '-' and '_'`)
  }
  if (results === state) throw new ConsumeSetupError('the results and state buckets must differ')
  if (snapshots === stream) throw new ConsumeSetupError('the snapshots stream must differ from the events stream')
  const subjects = o.subjects ?? JETSTREAM_DEFAULTS.subjects
  const tokenIndex = sessionTokenIndex(subjects)
  if (typeof tokenIndex === 'string') throw new ConsumeSetupError(tokenIndex)
  const formatName = o.format ?? 'native'
  const translator = formatByName(formatName)?.translator
  if (translator === undefined) throw new ConsumeSetupError(`unknown format "${formatName.slice(0, 40)}" (one of: ${consumeFormats().join(', ')})`)
  const progress = o.progressIntervalMs ?? 5000
  if (!Number.isFinite(progress) || progress < 0) throw new ConsumeSetupError('the progress interval must be 0 or more')
  if (progress > MAX_TIMER_MS) throw new ConsumeSetupError(`the progress interval must be at most ${Math.floor(MAX_TIMER_MS / 1000)} s (about 24 days)`)
  const partitions = positive(o.partitions, JETSTREAM_DEFAULTS.partitions, 'the partition count')
  if (!Number.isInteger(partitions) || partitions > 1024) throw new ConsumeSetupError('the partition count must be a whole number from 1 to 1024')
  return {
    stream,
    subjects,
    tokenIndex,
    durable,
    results,
    state,
    snapshots,
    translator: translator as Translator<unknown>,
    partitions,
    leaseMs: Math.max(300, duration(o.leaseMs, JETSTREAM_DEFAULTS.leaseSeconds * 1000, 'the lease time')),
    ackWaitMs: duration(o.ackWaitMs, JETSTREAM_DEFAULTS.ackWaitSeconds * 1000, 'ack wait'),
    maxAckPending: Math.max(2, Math.floor(positive(o.maxAckPending, JETSTREAM_DEFAULTS.maxAckPending, 'max ack pending'))),
    replicas: Math.floor(positive(o.replicas, 1, 'replicas')),
    batch: Math.floor(positive(o.batch, JETSTREAM_DEFAULTS.batch, 'batch')),
    snapshotMs: duration(o.snapshotMs, JETSTREAM_DEFAULTS.snapshotSeconds * 1000, 'the snapshot interval'),
    maxSessionBytes: Math.floor(positive(o.maxSessionBytes, JETSTREAM_DEFAULTS.maxSessionBytes, 'the session checkpoint bound')),
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
 * Creates what is missing — the events stream (capturing the partitioned subjects), the snapshots stream, the
 * two KV buckets (history 1) and the pinned configuration `{ partitions, format }` — and leaves existing ones as
 * they are. Concurrent workers may race here: the server accepts an identical create twice, and the configuration
 * is created once.
 *
 * **Throws** `ConsumeSetupError` when the pinned partition count differs from `cfg.partitions`, or the pinned
 * format from `cfg.translator.format` (a configuration without a format, pinned by an older version, is accepted
 * as it is: each partition's snapshot is checked when it is taken).
 * @internal
 */
export const ensureTopology = async (
  clients: NatsClients,
  js: JetStreamClient,
  jsm: JetStreamManager,
  cfg: Config,
  warn: (m: string) => void,
): Promise<Topology> => {
  const { RetentionPolicy, StorageType, DiscardPolicy } = clients.jetstream
  const created: Array<string> = []
  const stream = async (name: string, subjects: string): Promise<void> => {
    try {
      const info = await jsm.streams.info(name)
      if (name === cfg.stream && !(info.config.subjects ?? []).includes(subjects)) {
        warn(`the existing stream ${name} does not capture ${subjects}; only its messages on partitioned subjects are folded (docs/scale-out.md §1)`)
      }
    } catch (e) {
      if (apiCode(e) !== STREAM_NOT_FOUND) throw e
      await jsm.streams.add({
        name,
        subjects: [subjects],
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        discard: DiscardPolicy.Old,
        num_replicas: cfg.replicas,
      })
      created.push(`stream ${name}`)
    }
  }
  await stream(cfg.stream, partitionedPattern(cfg.subjects))
  await stream(cfg.snapshots, `${cfg.snapshots}.>`)
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
  // pin the partition count and the format: every worker must read the same partitions, and fold them alike
  const format = cfg.translator.format
  const pinnedConfig = (e: Awaited<ReturnType<KV['get']>>): { partitions: unknown; format: unknown } | undefined => {
    if (e === null || e.operation !== 'PUT') return undefined
    const v = e.json() as { partitions?: unknown; format?: unknown } | null
    return { partitions: v?.partitions ?? null, format: v?.format }
  }
  let pinned = pinnedConfig(await stateKv.get(configKey(cfg.durable)))
  if (pinned === undefined) {
    try {
      await stateKv.create(configKey(cfg.durable), JSON.stringify({ partitions: cfg.partitions, format }))
      pinned = { partitions: cfg.partitions, format }
    } catch (e) {
      if (!isWrongLastSequence(e)) throw e
    }
  }
  // created by another worker just now: a read served by a replica (direct get) may not show it yet
  for (let attempt = 0; pinned === undefined && attempt < 50; attempt++) {
    await sleep(100)
    pinned = pinnedConfig(await stateKv.get(configKey(cfg.durable)))
  }
  const count = pinned?.partitions
  if (count !== cfg.partitions) {
    throw new ConsumeSetupError(
      `the workers of ${cfg.durable} are pinned to ${typeof count === 'number' ? count : 'another'} partition(s), not ${cfg.partitions}; start every worker with --partitions ${typeof count === 'number' ? count : 'N'} (docs/scale-out.md says how to change it)`,
    )
  }
  // a deployment pinned before the format was (no `format`) is checked per partition, at each snapshot's load
  const pinnedFormat = pinned?.format
  if (pinnedFormat !== undefined && pinnedFormat !== format) {
    const shown = typeof pinnedFormat === 'string' ? pinnedFormat.slice(0, 40) : 'another'
    throw new ConsumeSetupError(
      `the workers of ${cfg.durable} are pinned to --format ${shown}, not ${format}; start every worker with --format ${typeof pinnedFormat === 'string' ? shown : 'NAME'} (another format needs its own --durable and stream: docs/scale-out.md §2)`,
    )
  }
  return { resultsKv, stateKv, created }
}

/** A session of a held partition. */
interface Session {
  readonly fold: SessionFold
  /** Changed since the last snapshot point (in the tenure's `dirty` list). */
  dirty: boolean
  /** Length of its last checkpoint line. */
  bytes: number
}

interface PendingResult {
  readonly key: string
  readonly text: string
  done: Promise<void>
  readonly send: () => void
}

/** One hold of a partition by this worker. */
interface Tenure {
  readonly index: number
  readonly writer: SnapshotWriter
  readonly consumerName: string
  readonly sessions: Map<string, Session>
  readonly dirty: Array<Session>
  consumer: Consumer | undefined
  /** Incremented at each (re)creation of the consumer. */
  incarnation: number
  /** The next delivery sequence expected from the consumer. */
  nextDelivery: number
  /** Pending count of the last message (messages the consumer has left after it). */
  lastPending: number
  /** Messages received in this tenure (the watchdog's progress counter). */
  received: number
  /** Stream sequence of the last message applied (or skipped): the in-memory position. */
  position: number
  /** The message at `position` and the incarnation it came from (the one to ack-all). */
  ackMsg: JsMsg | undefined
  ackIncarnation: number
  /** Messages applied since the last snapshot point. */
  sinceSnapshot: number
  /** Messages of the current consumer delivered and not yet acknowledged. */
  unacked: number
  lastSnapshotAt: number
  /** Chunks of the current commit chain, their bytes, and the sum of the sessions' line lengths. */
  chain: Array<number>
  /** Chunks of the chain's first snapshot (the last full one, or the chain loaded at the claim). */
  baseChunks: number
  chainBytes: number
  liveBytes: number
  forceFull: boolean
  results: Array<PendingResult>
  committing: Promise<void> | undefined
  fetching: ConsumerMessages | undefined
  pump: Promise<void> | undefined
  stopped: boolean
  current: Session | undefined
  /** Queues the results of the session being applied (`current`): one closure per tenure, not per message. */
  onClosed: (n: number, result: RunResult) => void
}

/** One partition as this worker sees it. */
interface Partition {
  readonly index: number
  held: boolean
  /** This worker holds the partition's lease key and renews it (from its taking until its release is deleted). */
  leased: boolean
  leaseRevision: number
  tenure: Tenure | undefined
}

const RETRY_MS = 500
/** How long one pull request waits for messages when the partition is idle. */
const FETCH_EXPIRES_MS = 3000
/** A full snapshot instead of a delta once the commit chain has this many chunks past its first snapshot's. */
const MAX_CHAIN = 64

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref())
/**
 * Resolves `true` once `p` settles (fulfilled or rejected), or `false` when `ms` pass first; `p` goes on, its
 * outcome ignored.
 */
const within = (p: Promise<unknown>, ms: number): Promise<boolean> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms)
    const settled = (): void => {
      clearTimeout(timer)
      resolve(true)
    }
    p.then(settled, settled)
  })
/**
 * How long `stop()` waits for the server in all (the last commits, the lease releases, the heartbeat's removal):
 * past it, a server that is down or frozen is given up on. Losing a last snapshot is safe (module doc).
 */
const STOP_PATIENCE_MS = 10_000
/** How long `stop()` lets a drain (or a flush) take at least before it closes the connection anyway. */
const DRAIN_PATIENCE_MS = 2_000
/** How long start-up keeps asking again when the server is too busy to answer a set-up request in time. */
const SETUP_PATIENCE_MS = 60_000
/** JetStream's "system temporarily unavailable" (no meta leader yet, e.g. a cluster still starting). */
const TEMPORARILY_UNAVAILABLE = 10008
/**
 * A request the server did not answer in time (the clients' `TimeoutError`, after their 5 s) or a JetStream
 * that is not ready yet: worth asking again. Anything else (a refusal, a closed connection) is not.
 */
const isBusyServer = (e: unknown): boolean => (e instanceof Error && e.name === 'TimeoutError') || apiCode(e) === TEMPORARILY_UNAVAILABLE

interface AckInfo {
  deliveryCount: number
  streamSequence: number
  deliverySequence: number
  pending: number
}
const info: AckInfo = { deliveryCount: 0, streamSequence: 0, deliverySequence: 0, pending: 0 }
/**
 * The delivery facts of a JetStream message from its reply subject, without allocating:
 * `$JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<dseq>.<ts>.<pending>` (nats-server 2.9), or the newer form
 * with a domain and account hash after `ACK` and a token at the end. The result is reused by the next call.
 * @internal
 */
export const ackInfo = (reply: string): AckInfo | null => {
  if (!reply.startsWith('$JS.ACK.')) return null
  // 9 tokens in the old form, 11 or 12 in the new (a split is as cheap as any scan of the string)
  const t = reply.split('.')
  const first = t.length === 9 ? 4 : t.length === 11 || t.length === 12 ? 6 : -1
  if (first < 0) return null
  info.deliveryCount = Number(t[first])
  info.streamSequence = Number(t[first + 1])
  info.deliverySequence = Number(t[first + 2])
  info.pending = Number(t[first + 4])
  return info
}

/**
 * Starts one worker of the per-session fold (see the module doc): connects (unless given a connection),
 * creates the missing streams and buckets, takes its share of the partitions, and folds messages until
 * `stop()`.
 *
 * Several workers (processes or machines) with the same names share the partitions; each session's records
 * are applied once, in stream order. A worker killed at any point loses nothing: its partitions are taken over
 * once its lease runs out, from their last snapshot, by a new consumer that delivers from there at once.
 *
 * A set-up request that a busy server does not answer in time (or a JetStream with no meta leader yet) is
 * asked again, with a warning each time, for up to 60 s: the set-up only creates what is missing, so asking
 * twice changes nothing.
 *
 * **Fails with** {@link ConsumeSetupError} for bad options, an unreachable server, a topology that cannot be
 * set up (still unanswered after those 60 s) or a partition count or format that differs from the pinned one, and
 * `MissingNatsClientsError` when the optional NATS packages are not installed.
 * @since 0.1.0
 */
export const startConsumer = async (options: ConsumeOptions, clientsIn?: NatsClients): Promise<RunningConsumer> => {
  const cfg = resolveConfig(options)
  const clients = clientsIn ?? (await loadNatsClients())
  // quiet once stopped: requests a stop gave up on may still fail afterwards
  let silenced = false
  const warn = (m: string): void => {
    if (!silenced) options.onWarning?.(m)
  }
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
        reconnectTimeWait: 250,
        // the clients capture a stack trace per request otherwise: a large share of a worker's CPU
        noAsyncTraces: true,
      })
    } catch (e) {
      throw new ConsumeSetupError(`cannot connect to ${servers.join(',')}: ${shortMessage(e)}`)
    }
  }
  const js: JetStreamClient = clients.jetstream.jetstream(nc)
  let jsm: JetStreamManager
  let topo: Topology
  // every step of the set-up is idempotent, so a request the server did not answer in time is asked again
  const patience = Date.now() + SETUP_PATIENCE_MS
  for (let attempt = 0; ; attempt++) {
    try {
      jsm = await clients.jetstream.jetstreamManager(nc)
      topo = await ensureTopology(clients, js, jsm, cfg, warn)
      break
    } catch (e) {
      if (!(e instanceof ConsumeSetupError) && isBusyServer(e) && Date.now() < patience) {
        warn(`JetStream did not answer the set-up in time (${shortMessage(e)}); asking again`)
        await sleep(Math.min(RETRY_MS * 2 ** attempt, 4000))
        continue
      }
      if (owned) await nc.close().catch(() => undefined)
      throw e instanceof ConsumeSetupError ? e : new ConsumeSetupError(`cannot set up JetStream: ${shortMessage(e)}`)
    }
  }
  const { stateKv } = topo
  const { AckPolicy, DeliverPolicy } = clients.jetstream
  const { nanos } = clients.transport
  const id = `${hostname()
    .replace(/[^-_a-zA-Z0-9]/g, '_')
    .slice(0, 40)}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  const translator = cfg.translator
  // room for the headers under the server's max_payload
  const maxPayload = nc.info?.max_payload ?? 1024 * 1024
  const chunkBytes = Math.max(1024, maxPayload - Math.min(16 * 1024, Math.floor(maxPayload / 4)))
  const resultBytes = chunkBytes

  // ---- counters ----
  const started = Date.now()
  let events = 0
  let resultsWritten = 0
  let protocolErrors = 0
  let commits = 0
  let snapshotBytes = 0
  let resyncs = 0
  let restartedSessions = 0
  let skipped = 0
  let lastTick = { at: started, events: 0 }
  let stopping = false
  let fail: (e: Error) => void = () => {}
  const failed = new Promise<never>((_, reject) => {
    fail = reject
  })
  failed.catch(() => undefined)

  const parts: Array<Partition> = Array.from({ length: cfg.partitions }, (_, index) => ({
    index,
    held: false,
    leased: false,
    leaseRevision: 0,
    tenure: undefined,
  }))

  // ---- results: created once, pipelined, awaited before the commit that covers them ----
  // A create is a publish on the bucket's subject with `Nats-Expected-Last-Subject-Sequence: 0` (what
  // `kv.create` sends), its reply read by one subscription for all of them: no timer, promise chain or error
  // object per result, which the clients' request path costs (a third of a worker's time at platform speed).
  const inbox = `${clients.transport.createInbox()}.`
  const waiting = new Map<string, { resolve: () => void; reject: (e: unknown) => void; at: number; key: string }>()
  let nextReply = 0
  const createHeaders = clients.transport.headers()
  createHeaders.set('Nats-Expected-Last-Subject-Sequence', '0')
  const replyDecoder = new TextDecoder()
  const replies = nc.subscribe(`${inbox}*`, {
    callback: (err, msg) => {
      if (err !== null) return
      const w = waiting.get(msg.subject)
      if (w === undefined) return
      waiting.delete(msg.subject)
      type Ack = { error?: { err_code?: number; description?: string } }
      const parse = (): Ack | null => {
        try {
          return JSON.parse(replyDecoder.decode(msg.data)) as Ack
        } catch {
          return null
        }
      }
      const ack = parse()
      const error = ack?.error
      if (ack === null) w.reject(new Error('the server answered a result write with no JSON'))
      else if (error === undefined) {
        resultsWritten++
        w.resolve()
      } else if (WRONG_LAST_SEQUENCE.includes(error.err_code ?? 0)) {
        // written by an earlier attempt (this tenure before a crash, or a stale holder): the same deterministic value
        w.resolve()
      } else w.reject(new Error(`storing a result failed: ${String(error.description ?? 'error').slice(0, 200)}`))
    },
  })
  const requestTimeoutMs = 10_000
  const sweep = setInterval(() => {
    const now = Date.now()
    for (const [subject, w] of waiting) {
      if (now - w.at < requestTimeoutMs) continue
      waiting.delete(subject)
      w.reject(new Error(`storing the result ${w.key} timed out`))
    }
  }, 1000)
  sweep.unref()
  const resultSubject = (key: string): string => `$KV.${cfg.results}.${key}`
  const createResult = (key: string, text: string): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const reply = `${inbox}${nextReply++}`
      waiting.set(reply, { resolve, reject, at: Date.now(), key })
      try {
        nc.publish(resultSubject(key), text, { reply, headers: createHeaders })
      } catch (e) {
        waiting.delete(reply)
        // a value the server can never take must not stall the partition (fitResult makes this rare)
        if (/max_payload|MAX_PAYLOAD|payload/i.test(shortMessage(e))) {
          warn(`the result ${key} could not be stored (${shortMessage(e)}); skipped`)
          resolve()
        } else reject(e)
      }
    })
  // creates are sent together once per macrotask: one socket write for all of them, not one per result
  let toSend: Array<PendingResult> = []
  const sendResults = (): void => {
    const list = toSend
    toSend = []
    for (const r of list) r.send()
  }
  const queueResult = (t: Tenure, session: string, n: number, result: RunResult): void => {
    const key = resultKey(session, n)
    const text = fitResult(result, resultBytes)
    let resolve: () => void = () => {}
    let reject: (e: unknown) => void = () => {}
    const r: PendingResult = {
      key,
      text,
      done: new Promise<void>((res, rej) => {
        resolve = res
        reject = rej
      }),
      send: () => createResult(key, text).then(resolve, reject),
    }
    r.done.catch(() => undefined)
    t.results.push(r)
    if (toSend.length === 0) setImmediate(sendResults)
    toSend.push(r)
  }

  // ---- applying ----
  const markDirty = (t: Tenure, s: Session): void => {
    if (!s.dirty) {
      s.dirty = true
      t.dirty.push(s)
    }
  }
  const apply = (t: Tenure, m: JsMsg, seq: number): void => {
    const subject = m.subject
    let s = t.sessions.get(subject)
    if (s === undefined) {
      const parsed = parsePartitionedSubject(cfg.subjects, cfg.tokenIndex, subject)
      if (parsed === null) {
        if (skipped++ % 1000 === 0) warn(`skipped message(s) on a subject without the partitioned shape ${partitionedPattern(cfg.subjects)}`)
        return
      }
      if (partitionOf(parsed.session, cfg.partitions) !== t.index && mismatchWarned++ === 0) {
        warn(
          `a session on partition ${t.index} hashes to partition ${partitionOf(parsed.session, cfg.partitions)} of ${cfg.partitions}: does the server's mapping use another partition count? (folded here all the same)`,
        )
      }
      s = { fold: new SessionFold(translator, parsed.session), dirty: false, bytes: 0 }
      t.sessions.set(subject, s)
    }
    t.current = s
    const data = m.data
    const error = s.fold.apply(seq, data, t.onClosed)
    if (error !== undefined) protocolErrors++
    events++
    markDirty(t, s)
    // the session bound, at points fixed by the session's records (a replay cuts where the first attempt did)
    const cut = s.fold.checkBound(cfg.maxSessionBytes, data.length)
    if (cut !== undefined) {
      restartedSessions++
      warn(
        `partition ${t.index}: a session's checkpoint grew to ${cut.bytes} bytes (bound ${cfg.maxSessionBytes}); ${cut.closed === null ? 'no run was open; ' : 'its run was closed with a diagnostic and '}its fold restarted`,
      )
      if (cut.closed !== null) queueResult(t, s.fold.session, cut.closed.n, cut.closed.result)
    }
  }
  let mismatchWarned = 0

  // ---- consumers ----
  const createConsumer = async (t: Tenure): Promise<void> => {
    await jsm.consumers.delete(cfg.stream, t.consumerName).catch((e: unknown) => {
      if (apiCode(e) !== CONSUMER_NOT_FOUND) throw e
    })
    await jsm.consumers.add(cfg.stream, {
      durable_name: t.consumerName,
      ack_policy: AckPolicy.All,
      ack_wait: nanos(cfg.ackWaitMs),
      max_ack_pending: cfg.maxAckPending,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: t.position + 1,
      filter_subject: partitionFilter(cfg.subjects, t.index),
      max_deliver: -1,
      // a consumer left behind by a worker that died for good is removed by the server
      inactive_threshold: nanos(Math.max(60_000, 30 * cfg.leaseMs)),
    })
    t.consumer = await js.consumers.get(cfg.stream, t.consumerName)
    t.incarnation++
    t.nextDelivery = 1
    t.lastPending = 0
    t.unacked = 0
  }
  const resync = async (t: Tenure, why: string): Promise<void> => {
    t.fetching?.stop()
    resyncs++
    warn(`partition ${t.index}: ${why}; resuming from stream sequence ${t.position + 1}`)
    for (let attempt = 0; !t.stopped; attempt++) {
      try {
        await createConsumer(t)
        return
      } catch (e) {
        if (attempt % 10 === 0) warn(`partition ${t.index}: could not recreate its consumer, retrying: ${shortMessage(e)}`)
        await sleep(RETRY_MS)
      }
    }
  }

  /**
   * Pulls the tenure's consumer until the tenure ends: one `consume()` (pull requests of 8 × batch refilled by the
   * client at half, delivered by callback straight from the socket reader), recreated by {@link resync} on a
   * gap, a redelivery, an error, or a watchdog that sees no message for a whole pull expiry while the last one
   * said more were pending and the consumer is not held back by `max_ack_pending`.
   */
  const runPump = async (t: Tenure): Promise<void> => {
    while (!t.stopped) {
      let problem: string | undefined
      let messages: ConsumerMessages | undefined
      const onMessage = (m: JsMsg): void => {
        if (t.stopped || problem !== undefined) return
        const info = ackInfo((m as unknown as { readonly reply?: string }).reply ?? '')
        if (info === null || info.deliverySequence !== t.nextDelivery || info.deliveryCount !== 1) {
          problem =
            info === null
              ? 'a message without a JetStream reply subject'
              : info.deliveryCount !== 1
                ? 'a message was delivered again'
                : `delivery ${info.deliverySequence} arrived where ${t.nextDelivery} was due`
          messages?.stop()
          return
        }
        t.nextDelivery++
        t.received++
        t.lastPending = info.pending
        const seq = info.streamSequence
        apply(t, m, seq)
        t.position = seq
        t.ackMsg = m
        t.ackIncarnation = t.incarnation
        t.sinceSnapshot++
        t.unacked++
        if (t.unacked >= cfg.maxAckPending / 2) snapshotIfDue(t)
      }
      let seen = t.received
      const watchdog = setInterval(() => {
        if (t.stopped || problem !== undefined) return
        const moved = t.received !== seen
        seen = t.received
        // held back by max_ack_pending until the next snapshot acknowledges: not a stall
        if (!moved && t.lastPending > 0 && t.unacked < cfg.maxAckPending - 2 * cfg.batch) {
          problem = `no message in ${FETCH_EXPIRES_MS} ms while ${t.lastPending} were pending`
          messages?.stop()
        }
      }, FETCH_EXPIRES_MS)
      watchdog.unref()
      try {
        if (t.consumer === undefined) throw new Error('no consumer')
        const options = { max_messages: 8 * cfg.batch, threshold_messages: 4 * cfg.batch, expires: FETCH_EXPIRES_MS, callback: onMessage }
        messages = await t.consumer.consume(options as Parameters<Consumer['consume']>[0])
        t.fetching = messages
        if (t.stopped) messages.stop()
        const closed = await messages.closed()
        if (closed instanceof Error && problem === undefined && !t.stopped) problem = `pulling failed (${shortMessage(closed)})`
        if (problem === undefined && !t.stopped) problem = 'the pull ended'
      } catch (e) {
        if (!t.stopped && problem === undefined) problem = `pulling failed (${shortMessage(e)})`
      } finally {
        clearInterval(watchdog)
        t.fetching = undefined
      }
      if (t.stopped) break
      snapshotIfDue(t)
      if (problem !== undefined) {
        await resync(t, problem)
        await sleep(problem.startsWith('pulling failed') ? RETRY_MS : 0)
      }
    }
  }

  // ---- snapshots ----
  const settleResults = async (list: ReadonlyArray<PendingResult>): Promise<void> => {
    for (const r of list) {
      try {
        await r.done
      } catch {
        // one retry each, in order; a second failure aborts this commit (the results stay queued)
        r.done = createResult(r.key, r.text)
        await r.done
      }
    }
  }

  const commit = async (t: Tenure): Promise<void> => {
    // the snapshot point: everything below is synchronous, so the state is the one at `position`
    const lastSeq = t.position
    const ack = t.ackIncarnation === t.incarnation ? t.ackMsg : undefined
    const ackIncarnation = t.incarnation
    const covered = t.unacked
    const full = t.forceFull || t.chain.length >= t.baseChunks + MAX_CHAIN || t.chainBytes > 2 * Math.max(t.liveBytes, chunkBytes)
    const picked = full ? [...t.sessions.values()] : t.dirty.slice()
    for (const s of t.dirty) s.dirty = false
    t.dirty.length = 0
    const lines: Array<string> = []
    for (const s of picked) {
      const line = s.fold.encode()
      t.liveBytes += line.length - s.bytes
      s.bytes = line.length
      lines.push(line)
    }
    const results = t.results.splice(0)
    t.sinceSnapshot = 0
    t.lastSnapshotAt = Date.now()
    try {
      await settleResults(results)
      const slices = lines.length === 0 ? [] : sliceText(`${lines.join('\n')}\n`, chunkBytes)
      const seqs: Array<number> = []
      let bytes = 0
      for (const slice of slices) {
        seqs.push(await t.writer.chunk(slice))
        bytes += slice.length
      }
      const chain = full ? seqs : [...t.chain, ...seqs]
      const chainBytes = full ? bytes : t.chainBytes + bytes
      const commitSeq = await t.writer.commit(
        { version: 1, lastSeq, chunks: chain, bytes: chainBytes, sessions: t.sessions.size, format: translator.format },
        chunkBytes,
      )
      t.chain = chain
      if (full) t.baseChunks = seqs.length
      t.chainBytes = chainBytes
      t.forceFull = false
      commits++
      snapshotBytes = bytes
      if (ackIncarnation === t.incarnation) {
        ack?.ack()
        t.unacked = Math.max(0, t.unacked - covered)
      }
      if (full) {
        // older snapshots are no longer read
        const below = seqs[0] ?? commitSeq
        void jsm.streams.purge(cfg.snapshots, { filter: t.writer.subjectName, seq: below }).catch(() => undefined)
      }
    } catch (e) {
      // results not stored stay queued; the sessions of this attempt go in the next (full) snapshot
      t.results.unshift(...results)
      t.forceFull = true
      throw e
    }
  }

  const commitNow = (t: Tenure): Promise<void> => {
    const run = async (): Promise<void> => {
      try {
        await commit(t)
      } catch (e) {
        if (e instanceof SnapshotFencedError) {
          if (!t.stopped) await losePartition(t.index, 'another worker wrote its snapshot log')
        } else if (!t.stopped || stopping) warn(`partition ${t.index}: the snapshot failed${stopping ? '' : ', retrying'}: ${shortMessage(e)}`)
      } finally {
        t.committing = undefined
      }
    }
    const prev = t.committing
    const next = (prev ?? Promise.resolve()).then(run)
    t.committing = next
    return next
  }
  const hasWork = (t: Tenure): boolean => t.sinceSnapshot > 0 || t.dirty.length > 0 || t.results.length > 0
  function snapshotIfDue(t: Tenure): void {
    if (t.committing !== undefined || t.stopped || !hasWork(t)) return
    if (t.unacked >= cfg.maxAckPending / 2 || Date.now() - t.lastSnapshotAt >= cfg.snapshotMs) void commitNow(t)
  }
  const snapshotTimer = setInterval(
    () => {
      for (const p of parts) if (p.tenure !== undefined) snapshotIfDue(p.tenure)
    },
    Math.max(50, Math.floor(cfg.snapshotMs / 2)),
  )
  snapshotTimer.unref()

  // ---- tenures ----
  const startTenure = async (part: Partition): Promise<void> => {
    const subject = snapshotSubject(cfg.snapshots, cfg.durable, part.index)
    let writer: SnapshotWriter | undefined
    let head
    for (let attempt = 0; writer === undefined; attempt++) {
      head = await readSnapshotHead(jsm, cfg.snapshots, subject)
      const w = new SnapshotWriter(clients, js, subject, head)
      try {
        await w.claim(id)
        writer = w
      } catch (e) {
        if (!(e instanceof SnapshotFencedError) || attempt >= 4) throw e
      }
    }
    const h = head as Awaited<ReturnType<typeof readSnapshotHead>>
    if (h.commit !== null && h.commit.format !== translator.format) {
      const message = `partition ${part.index} was folded as --format ${h.commit.format}; start every worker of ${cfg.durable} with that format`
      fail(new ConsumeSetupError(message))
      throw new Error(message)
    }
    const sessions = new Map<string, Session>()
    let liveBytes = 0
    const chain = h.commit === null ? [] : await readSnapshotChunks(jsm, cfg.snapshots, h.commit)
    if (h.commit !== null) {
      const filter = partitionFilter(cfg.subjects, part.index)
      for (const line of await readSnapshotLines(jsm, cfg.snapshots, h.commit)) {
        const cp = decodeCheckpoint(translator, line)
        if (E.isLeft(cp))
          throw new Error(
            `a session checkpoint in the snapshot of partition ${part.index} is not valid (${cp.left.path || 'JSON'}: expected ${cp.left.expected})`,
          )
        const key = subjectForSession(filter, cp.right.session)
        const before = sessions.get(key)
        if (before !== undefined) liveBytes -= before.bytes
        sessions.set(key, { fold: new SessionFold(translator, cp.right.session, cp.right), dirty: false, bytes: line.length })
        liveBytes += line.length
      }
    }
    if (h.claimSeq > 0) {
      // the previous tenure's consumer: nobody pulls from it any more
      await jsm.consumers.delete(cfg.stream, tenureConsumer(cfg.durable, part.index, h.claimSeq)).catch(() => undefined)
    }
    const t: Tenure = {
      index: part.index,
      writer,
      consumerName: tenureConsumer(cfg.durable, part.index, writer.claimSeq),
      sessions,
      dirty: [],
      consumer: undefined,
      incarnation: 0,
      nextDelivery: 1,
      lastPending: 0,
      received: 0,
      position: h.commit?.lastSeq ?? 0,
      ackMsg: undefined,
      ackIncarnation: -1,
      sinceSnapshot: 0,
      unacked: 0,
      lastSnapshotAt: Date.now(),
      chain,
      baseChunks: chain.length,
      chainBytes: h.commit?.bytes ?? 0,
      liveBytes,
      forceFull: false,
      results: [],
      committing: undefined,
      fetching: undefined,
      pump: undefined,
      stopped: false,
      current: undefined,
      onClosed: () => {},
    }
    t.onClosed = (n, result) => queueResult(t, (t.current as Session).fold.session, n, result)
    await createConsumer(t)
    part.tenure = t
    part.held = true
    t.pump = runPump(t)
  }
  /**
   * Ends a tenure; with `save`, commits its state first (a release or a clean stop), once more if the last commit
   * failed. Returns whether its whole state is committed.
   */
  const endTenure = async (part: Partition, save: boolean): Promise<boolean> => {
    const t = part.tenure
    part.held = false
    part.tenure = undefined
    if (t === undefined) return true
    t.stopped = true
    t.fetching?.stop()
    await t.pump
    await t.committing
    // a commit that failed left `forceFull` set (its sessions go in the next one)
    if (save && (hasWork(t) || t.forceFull)) {
      t.stopped = false // let the commit count as a live one
      await commitNow(t)
      t.stopped = true
    }
    return !hasWork(t) && !t.forceFull
  }
  const losePartition = async (p: number, why: string): Promise<void> => {
    const part = parts[p] as Partition
    if (!part.held && !part.leased) return
    warn(`lost partition ${p} (${why}); another worker holds it now`)
    const t = part.tenure
    part.held = false
    part.leased = false
    part.tenure = undefined
    if (t !== undefined) {
      t.stopped = true
      t.fetching?.stop()
    }
    // if the lease is still ours (a write that timed out and was stored after all), free it for a clean claim
    await stateKv.delete(leaseKey(cfg.durable, p), { previousSeq: part.leaseRevision }).catch(() => undefined)
  }

  // ---- partitions: leases ----
  // Heartbeats: one key (`_workers.<durable>`) maps each worker id to a counter its owner bumps every tick
  // (compare-and-set). Listing keys instead (kv.keys) creates a consumer per call, which stalls pulls on 2.9.
  const tracker = new StalenessTracker(cfg.leaseMs)
  let beats = 0
  const leaseValue = (): string => JSON.stringify({ owner: id })
  /** Bumps this worker's counter (or removes it when `leaving`), drops silent workers; returns the other live workers. */
  const heartbeat = async (now: number, leaving = false): Promise<Array<string>> => {
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
      const live: Array<string> = []
      for (const [w, n] of Object.entries(current ?? {})) {
        if (w === id || typeof n !== 'number') continue
        // a worker whose counter has not moved for a lease time is gone
        if (tracker.observe(`#worker:${w}`, n, now)) tracker.forget(`#worker:${w}`)
        else {
          next[w] = n
          live.push(w)
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

  // Renewal runs on its own timer, never behind a rebalancing step: a release that commits a large partition
  // or a takeover that loads one can take longer than a lease time, and the other leases must not go stale meanwhile.
  let others: Array<string> = []
  let renewing: Promise<void> | undefined
  let renewalsEnded = false
  const renew = async (): Promise<void> => {
    try {
      others = await heartbeat(Date.now())
    } catch (e) {
      // the leases are renewed all the same; the live workers are those of the last heartbeat
      if (!renewalsEnded) warn(`the heartbeat failed, retrying: ${shortMessage(e)}`)
    }
    for (const part of parts) {
      if (!part.leased) continue
      try {
        part.leaseRevision = await stateKv.update(leaseKey(cfg.durable, part.index), leaseValue(), part.leaseRevision)
      } catch (e) {
        if (!part.leased) continue // released meanwhile
        // taken by another worker: stop; any other failure (a timeout): keep going, the next renewal retries
        if (isWrongLastSequence(e)) await losePartition(part.index, 'its lease was taken')
        else warn(`could not renew the lease of partition ${part.index}: ${shortMessage(e)}`)
      }
    }
  }
  const renewNow = (): Promise<void> => {
    if (renewing === undefined && !renewalsEnded) {
      renewing = renew()
        .catch((e: unknown) => {
          if (!renewalsEnded) warn(`renewing the leases failed, retrying: ${shortMessage(e)}`)
        })
        .finally(() => {
          renewing = undefined
        })
    }
    return renewing ?? Promise.resolve()
  }
  /** Gives a lease up: no more renewals, then the key deleted (compare-and-set on this worker's last revision). */
  const releaseLease = async (part: Partition): Promise<void> => {
    part.leased = false
    await renewing
    await stateKv.delete(leaseKey(cfg.durable, part.index), { previousSeq: part.leaseRevision }).catch(() => undefined)
  }

  let ticking = false
  const tick = async (): Promise<void> => {
    if (ticking || stopping) return
    ticking = true
    try {
      const now = Date.now()
      const heldBy = new Map<string, number>(others.map((w) => [w, 0]))
      const views: Array<PartitionView> = []
      const revisions = new Map<number, number>()
      for (const part of parts) {
        if (part.leased) {
          views.push({ partition: part.index, state: 'mine' })
          continue
        }
        const e = await stateKv.get(leaseKey(cfg.durable, part.index))
        if (e === null || e.operation !== 'PUT') {
          revisions.set(part.index, e?.revision ?? 0)
          views.push({ partition: part.index, state: 'free' })
        } else {
          const stale = tracker.observe(leaseKey(cfg.durable, part.index), e.revision, now)
          revisions.set(part.index, e.revision)
          views.push({ partition: part.index, state: stale ? 'free' : 'taken' })
          let owner: unknown
          try {
            owner = (e.json() as { owner?: unknown } | null)?.owner
          } catch {
            owner = undefined
          }
          if (!stale && typeof owner === 'string' && heldBy.has(owner)) heldBy.set(owner, (heldBy.get(owner) ?? 0) + 1)
        }
      }
      const plan = rebalance(
        views,
        others.length + 1,
        id,
        [...heldBy].map(([w, held]) => ({ id: w, held })),
      )
      for (const p of plan.release) {
        const part = parts[p] as Partition
        await endTenure(part, true)
        await releaseLease(part)
      }
      for (const p of plan.acquire) {
        if (stopping) return
        const part = parts[p] as Partition
        const seen = revisions.get(p) ?? 0
        try {
          part.leaseRevision =
            seen === 0 ? await stateKv.create(leaseKey(cfg.durable, p), leaseValue()) : await stateKv.update(leaseKey(cfg.durable, p), leaseValue(), seen)
        } catch (e) {
          if (!isWrongLastSequence(e)) warn(`could not take partition ${p}: ${shortMessage(e)}`)
          continue // another worker was quicker
        }
        part.leased = true
        tracker.forget(leaseKey(cfg.durable, p))
        try {
          await startTenure(part)
        } catch (e) {
          if (!stopping) warn(`could not start partition ${p}: ${shortMessage(e)}`)
          part.held = false
          await releaseLease(part)
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
    let sessions = 0
    for (const p of parts) {
      if (p.tenure === undefined) continue
      sessions += p.tenure.sessions.size
      for (const s of p.tenure.sessions.values()) if (s.fold.open) open++
    }
    const span = final ? now - started : now - lastTick.at
    const delta = final ? events : events - lastTick.events
    return {
      elapsedMs: now - started,
      events,
      eventsPerSecond: span > 0 ? Math.round((delta * 1000) / span) : 0,
      openSessions: open,
      sessions,
      resultsWritten,
      protocolErrors,
      commits,
      snapshotBytes,
      resyncs,
      restartedSessions,
      skipped,
      partitions: parts.filter((p) => p.held).map((p) => p.index),
      partitionCount: cfg.partitions,
    }
  }

  await renewNow()
  await tick()
  const renewals = setInterval(() => void renewNow(), Math.max(100, Math.floor(cfg.leaseMs / 3)))
  renewals.unref()
  const membership = setInterval(() => void tick(), Math.max(100, Math.floor(cfg.leaseMs / 3)))
  membership.unref()

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
  let resolveStopped: () => void = () => {}
  const stoppedSignal = new Promise<void>((r) => {
    resolveStopped = r
  })
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      stopping = true
      // a server that is down or frozen never answers: its answers are awaited STOP_PATIENCE_MS in all
      const deadline = Date.now() + STOP_PATIENCE_MS
      const left = (): number => Math.max(0, deadline - Date.now())
      clearInterval(membership)
      while (ticking && left() > 0) await sleep(20)
      if (ticker !== undefined) clearInterval(ticker)
      clearInterval(snapshotTimer)
      // commit every held partition, then let other workers take them now rather than after the lease time
      // (the leases are renewed meanwhile: a long last commit is not taken over halfway)
      const unsaved = new Set<number>()
      const ended = await within(
        Promise.all(
          parts.map(async (part) => {
            if (!part.held && !part.leased) return
            unsaved.add(part.index)
            const saved = await endTenure(part, true).catch((e: unknown) => {
              warn(`partition ${part.index}: the last snapshot failed: ${shortMessage(e)}`)
              return false
            })
            if (saved) unsaved.delete(part.index)
            await releaseLease(part)
          }),
        ),
        left(),
      )
      // safe: the next holder resumes from the snapshot before, and the results are create-only
      for (const p of unsaved) {
        warn(
          `${ended ? '' : 'the server did not answer: '}stopped without the last snapshot of partition ${p}; the next worker to hold it resumes from the one before`,
        )
      }
      if (!ended && unsaved.size === 0)
        warn('the server did not answer: stopped without releasing the partitions; other workers take them after the lease time')
      renewalsEnded = true
      clearInterval(renewals)
      await within(renewing ?? Promise.resolve(), left())
      await within(
        heartbeat(Date.now(), true).catch(() => undefined),
        left(),
      )
      clearInterval(sweep)
      replies.unsubscribe()
      if (owned) {
        // a drain that the server does not answer never ends, and a client that failed to drain reconnects for ever
        await within(
          nc.drain().catch(() => undefined),
          Math.max(left(), DRAIN_PATIENCE_MS),
        )
        if (!nc.isClosed()) await within(nc.close(), DRAIN_PATIENCE_MS)
      } else await within(nc.flush(), Math.max(left(), DRAIN_PATIENCE_MS))
      options.onProgress?.(stats(true), true)
      silenced = true
      resolveStopped()
    })()
    return stopped
  }

  const done = Promise.race([failed, stoppedSignal]).then(() => undefined)
  return { id, stats: () => stats(), stop, done, created: topo.created }
}
