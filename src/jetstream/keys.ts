/**
 * Names on NATS for the per-session fold: where the session id sits in an event subject, and the key-value
 * keys of a session's checkpoint and of its results.
 *
 * A subject pattern such as `agents.*.events` has exactly one `*` token; the subject token in its place is
 * the session id, the fold key. KV keys accept only `[-/_=.a-zA-Z0-9]`, so a session id made of
 * `[-_a-zA-Z0-9]` is its own key, and any other id (dots cannot occur in a subject token, but `:`, `@`,
 * non-ASCII letters … can) is written as `=` followed by the base64url of its UTF-8 bytes. `=` never occurs in
 * a plain key, so the mapping is one-to-one.
 *
 * @module
 */

/** The defaults of `run-outcome consume` and of `startConsumer` (issue 8). @since 0.1.0 */
export const JETSTREAM_DEFAULTS = {
  stream: 'AGENT_EVENTS',
  subjects: 'agents.*.events',
  durable: 'run-outcome',
  results: 'RUN_RESULTS',
  state: 'RUN_STATE',
  /** Seconds before the server redelivers a message that was delivered and not acknowledged. */
  ackWaitSeconds: 30,
  /** Messages the durable lets be delivered and unacknowledged at once, over all workers. */
  maxAckPending: 10_000,
  /** Most messages a worker folds per batch (and asks the server for per pull). */
  batch: 256,
  /** Session checkpoints a worker keeps in memory (least recently used first out). */
  cacheSessions: 10_000,
  /** Partitions of the sessions (how many workers can share the work); pinned by the first worker. */
  partitions: 4,
  /** Seconds without a heartbeat after which a worker's partitions are taken over. */
  leaseSeconds: 10,
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

/** The subject of a session's events under a pattern (`agents.*.events`, `s1` → `agents.s1.events`). @since 0.1.0 */
export const subjectForSession = (pattern: string, sessionId: string): string =>
  pattern
    .split('.')
    .map((t) => (t === '*' ? sessionId : t))
    .join('.')

/**
 * The KV key of a session: the id itself when it is made of `[-_a-zA-Z0-9]`, else `=` + base64url(UTF-8).
 * @since 0.1.0
 */
export const sessionKey = (sessionId: string): string =>
  PLAIN_KEY.test(sessionId) ? sessionId : `=${Buffer.from(sessionId, 'utf8').toString('base64url')}`

/** The session id of a key made by {@link sessionKey}. @since 0.1.0 */
export const sessionIdOfKey = (key: string): string =>
  key.startsWith('=') ? Buffer.from(key.slice(1), 'base64url').toString('utf8') : key

/** The `RUN_RESULTS` key of a session's `n`-th run (1-based): `<sessionKey>.<n>`. @since 0.1.0 */
export const resultKey = (sessionId: string, n: number): string => `${sessionKey(sessionId)}.${n}`

/** `true` for a stream, durable or bucket name this tool accepts: `[-_a-zA-Z0-9]+`. @since 0.1.0 */
export const isValidName = (name: string): boolean => NAME.test(name)
