/**
 * Names on NATS for the per-session fold (docs/scale-out.md §1): subjects and their partition token, the
 * result keys, the snapshot subjects and the consumers of each partition.
 *
 * Publishers use a pattern with one `*` token for the session id (`agents.*.events`). The stream stores the
 * **partitioned** form, with a partition token inserted before the session token
 * (`agents.<p>.<sessionId>.events`): either the server maps the publishers' subjects (an account mapping,
 * {@link serverMapping}) or the publishers write the partitioned subject themselves
 * ({@link partitionedSubjectFor}); both put a session in partition `fnv1a32(utf8(sessionId)) mod P`.
 *
 * KV keys accept only `[-/_=.a-zA-Z0-9]`, so a session id made of `[-_a-zA-Z0-9]` is its own key, and any
 * other id (dots cannot occur in a subject token, but `:`, `@`, non-ASCII letters … can) is written as `=`
 * followed by the base64url of its UTF-8 bytes. `=` never occurs in a plain key, so the mapping is one-to-one.
 *
 * @module
 */
import { partitionOf } from './partitions.js'

/** The defaults of `run-outcome consume` and of `startConsumer` (docs/scale-out.md). @since 0.1.0 */
export const JETSTREAM_DEFAULTS = {
  stream: 'AGENT_EVENTS',
  /** The publishers' subject pattern: one `*` token for the session id. The stream stores it partitioned. */
  subjects: 'agents.*.events',
  /** Prefix of the partitions' consumers (`<durable>-<p>-<tenure>`) and of the lease keys. */
  durable: 'run-outcome',
  results: 'RUN_RESULTS',
  state: 'RUN_STATE',
  /** Stream of the partitions' snapshots (subjects `<snapshots>.<durable>.<p>`). */
  snapshots: 'RUN_SNAPSHOTS',
  /** Seconds before the server redelivers a message delivered and not acknowledged (a stall; never needed for a takeover). */
  ackWaitSeconds: 30,
  /** Messages a partition's consumer lets be delivered and unacknowledged at once (a snapshot is taken at half). */
  maxAckPending: 100_000,
  /** Pull size unit: pulls ask for 8 × batch messages, refilled at 4 × batch. */
  batch: 256,
  /** Partitions of the sessions (how many workers can share the work); pinned by the first worker. */
  partitions: 4,
  /** Seconds without a heartbeat after which a worker's partitions are taken over. */
  leaseSeconds: 2,
  /** Seconds between two snapshots of a partition that has new events. */
  snapshotSeconds: 1,
  /** Largest checkpoint of one session, in bytes; a larger one closes its run with a diagnostic and restarts it. */
  maxSessionBytes: 4 * 1024 * 1024,
} as const

const PLAIN_KEY = /^[-_a-zA-Z0-9]+$/
const NAME = /^[-_a-zA-Z0-9]+$/

/**
 * The position of the session token in a subject pattern (`agents.*.events` → 1), or an error message when
 * the pattern is not usable: it needs exactly one `*` token, no `>` and no empty token.
 * @since 0.1.0
 */
export const sessionTokenIndex = (pattern: string): number | string => {
  const tokens = pattern.split('.')
  if (tokens.some((t) => t === '' || /\s/.test(t))) return 'a subject pattern has no empty tokens and no spaces'
  if (tokens.includes('>')) return "the subject pattern may not contain '>' (use one '*' for the session id)"
  const stars = tokens.flatMap((t, i) => (t === '*' ? [i] : []))
  if (stars.length !== 1 || tokens.some((t) => t !== '*' && (t.includes('*') || t.includes('>')))) {
    return "the subject pattern needs exactly one '*' token, where the session id goes (e.g. agents.*.events)"
  }
  return stars[0] as number
}

/**
 * The session id of a subject under a pattern whose session token is at `index` (see
 * {@link sessionTokenIndex}), or `null` when the subject does not have the pattern's shape.
 * @since 0.1.0
 */
export const sessionFromSubject = (pattern: string, index: number, subject: string): string | null => {
  const want = pattern.split('.')
  const got = subject.split('.')
  if (got.length !== want.length) return null
  for (let i = 0; i < want.length; i++) {
    if (i !== index && want[i] !== got[i]) return null
  }
  const token = got[index]
  return token === undefined || token === '' ? null : token
}

/** Characters a subject token cannot hold: its separator, the wildcards, and whitespace (NATS protocol). */
const NOT_IN_TOKEN = /[.*>\s]/

/**
 * The subject of a session's events under a pattern (`agents.*.events`, `s1` → `agents.s1.events`).
 *
 * **Throws** `RangeError` when the session id cannot be one token of a subject: empty, or holding `.`, `*`, `>` or
 * whitespace (`a.b` would make `agents.a.b.events`, which no stream of the pattern captures).
 * @since 0.1.0
 */
export const subjectForSession = (pattern: string, sessionId: string): string => {
  if (sessionId === '' || NOT_IN_TOKEN.test(sessionId))
    throw new RangeError(`the session id ${JSON.stringify(sessionId.slice(0, 80))} cannot be a subject token (empty, or holding '.', '*', '>' or whitespace)`)
  return pattern
    .split('.')
    .map((t) => (t === '*' ? sessionId : t))
    .join('.')
}

const insertAt = (pattern: string, token: string): string => {
  const tokens = pattern.split('.')
  const i = tokens.indexOf('*')
  tokens.splice(i, 0, token)
  return tokens.join('.')
}

/**
 * The stream's subject pattern for a publishers' pattern: a partition token before the session token
 * (`agents.*.events` → `agents.*.*.events`).
 * @since 0.3.0
 */
export const partitionedPattern = (pattern: string): string => insertAt(pattern, '*')

/** The subjects of partition `p` (a consumer's filter): `agents.*.events`, 2 → `agents.2.*.events`. @since 0.3.0 */
export const partitionFilter = (pattern: string, p: number): string => insertAt(pattern, String(p))

/**
 * The subject a publisher without the server mapping uses for a session's events:
 * `agents.<partitionOf(id, P)>.<id>.events`. The same subject the server's mapping ({@link serverMapping}) gives.
 * **Throws** `RangeError` as {@link subjectForSession} does.
 * @since 0.3.0
 */
export const partitionedSubjectFor = (pattern: string, sessionId: string, partitions: number): string =>
  subjectForSession(partitionFilter(pattern, partitionOf(sessionId, partitions)), sessionId)

/**
 * The account mapping that makes nats-server (2.9 and later) partition the publishers' subjects itself, for its
 * configuration file: `mappings { "agents.*.events": "agents.{{partition(4,1)}}.{{wildcard(1)}}.events" }`.
 * The server hashes the session token's UTF-8 bytes with FNV-1a, as {@link partitionOf} does.
 * @since 0.3.0
 */
export const serverMapping = (pattern: string, partitions: number): { readonly from: string; readonly to: string } => ({
  from: pattern,
  to: pattern
    .split('.')
    .flatMap((t) => (t === '*' ? [`{{partition(${partitions},1)}}`, '{{wildcard(1)}}'] : [t]))
    .join('.'),
})

/**
 * The partition and session id of a partitioned subject (see {@link partitionedPattern}) for a publishers'
 * pattern whose session token is at `index`, or `null` when the subject has another shape.
 * @since 0.3.0
 */
export const parsePartitionedSubject = (pattern: string, index: number, subject: string): { readonly partition: number; readonly session: string } | null => {
  const want = pattern.split('.')
  const got = subject.split('.')
  if (got.length !== want.length + 1) return null
  for (let i = 0; i < want.length; i++) {
    if (i !== index && want[i] !== got[i < index ? i : i + 1]) return null
  }
  const p = got[index] ?? ''
  const session = got[index + 1] ?? ''
  if (!/^(0|[1-9][0-9]{0,5})$/.test(p) || session === '') return null
  return { partition: Number(p), session }
}

/**
 * The KV key of a session: the id itself when it is made of `[-_a-zA-Z0-9]`, else `=` + base64url(UTF-8).
 * @since 0.1.0
 */
export const sessionKey = (sessionId: string): string => (PLAIN_KEY.test(sessionId) ? sessionId : `=${Buffer.from(sessionId, 'utf8').toString('base64url')}`)

/** The session id of a key made by {@link sessionKey}. @since 0.1.0 */
export const sessionIdOfKey = (key: string): string => (key.startsWith('=') ? Buffer.from(key.slice(1), 'base64url').toString('utf8') : key)

/** The `RUN_RESULTS` key of a session's `n`-th run (1-based): `<sessionKey>.<n>`. @since 0.1.0 */
export const resultKey = (sessionId: string, n: number): string => `${sessionKey(sessionId)}.${n}`

/** The subject of partition `p`'s snapshot log: `<snapshots>.<durable>.<p>` (`RUN_SNAPSHOTS.run-outcome.0`). @since 0.3.0 */
export const snapshotSubject = (snapshots: string, durable: string, p: number): string => `${snapshots}.${durable}.${p}`

/**
 * The consumer of partition `p` during one tenure (a worker's hold of the partition), named after the stream
 * sequence of the tenure's claim in the snapshot log: `run-outcome-0-17`. Unique per tenure, so a worker that
 * lost the partition can never pull from its successor's consumer.
 * @since 0.3.0
 */
export const tenureConsumer = (durable: string, p: number, claimSeq: number): string => `${durable}-${p}-${claimSeq}`

/** `true` for a stream, durable or bucket name this tool accepts: `[-_a-zA-Z0-9]+`. @since 0.1.0 */
export const isValidName = (name: string): boolean => NAME.test(name)
