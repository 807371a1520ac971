/**
 * Partitions and their leases: how several workers share the sessions (docs/scale-out.md).
 *
 * A deployment has a fixed number `P` of partitions. A session belongs to partition
 * `fnv1a32(sessionId) mod P` (FNV-1a over the UTF-16 code units of the id, so every worker computes the same).
 * Partition `p` has its own durable (`<durable>-<p>`), which sees every event; the worker that holds the
 * partition's lease folds the events of that partition's sessions and acknowledges the others at once.
 *
 * Leases and heartbeats are keys of the state bucket, per durable prefix (`_lease.<durable>.<p>` per
 * partition, `_workers.<durable>` for the heartbeats, `_config.<durable>` pinning the partition count), so two
 * groups of workers with different durables may share the buckets: each folds every session, and the
 * checkpoints' compare-and-set keeps them from applying an event twice. An owner rewrites its lease and bumps its
 * heartbeat every third of the lease time; another worker calls a lease or a heartbeat stale when it has not
 * changed for a whole lease time **by its own clock**, so clocks of different machines never need to agree.
 * Session keys never contain a dot, so these keys cannot clash with them.
 *
 * @module
 */

/** The partition of a session: FNV-1a (32-bit) of its id modulo `partitions`. @since 0.1.0 */
export const partitionOf = (sessionId: string, partitions: number): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < sessionId.length; i++) {
    h ^= sessionId.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h % partitions
}

/** KV key of the lease of partition `p` of the workers using durable prefix `durable`. @since 0.1.0 */
export const leaseKey = (durable: string, p: number): string => `_lease.${durable}.${p}`
/** KV key of the heartbeats of the workers using `durable`: `{ "<worker id>": <counter> }`, each bumping its own. @since 0.1.0 */
export const workersKey = (durable: string): string => `_workers.${durable}`
/** KV key pinning the partition count of the workers using `durable` (`{ partitions }`). @since 0.1.0 */
export const configKey = (durable: string): string => `_config.${durable}`

/** The durable of partition `p` (`run-outcome` → `run-outcome-0`, …). @since 0.1.0 */
export const partitionDurable = (durable: string, p: number): string => `${durable}-${p}`

/**
 * Remembers when each key's revision last changed, by the local clock, to tell live keys from stale ones.
 * @since 0.1.0
 */
export class StalenessTracker {
  private readonly seen = new Map<string, { revision: number; since: number }>()
  constructor(private readonly ttlMs: number) {}

  /** Records the revision read now; returns `true` when it has not changed for at least the lease time. */
  observe(key: string, revision: number, now: number): boolean {
    const s = this.seen.get(key)
    if (s === undefined || s.revision !== revision) {
      this.seen.set(key, { revision, since: now })
      return false
    }
    return now - s.since >= this.ttlMs
  }

  /** Forgets a key (deleted, or written by this worker). */
  forget(key: string): void {
    this.seen.delete(key)
  }
}

/** What a worker knows about one partition at a rebalancing tick. @since 0.1.0 */
export interface PartitionView {
  readonly partition: number
  /** `mine` (this worker holds it), `free` (no lease, or a stale one), `taken` (another live worker's). */
  readonly state: 'mine' | 'free' | 'taken'
}

/**
 * The rebalancing decision: each live worker aims at `ceil(P / live)` partitions. A worker above its share
 * releases the excess (highest first); a worker below it takes free partitions (lowest first).
 * @since 0.1.0
 */
export const rebalance = (views: ReadonlyArray<PartitionView>, liveWorkers: number): { readonly acquire: Array<number>; readonly release: Array<number> } => {
  const target = Math.ceil(views.length / Math.max(1, liveWorkers))
  const mine = views.filter((v) => v.state === 'mine').map((v) => v.partition)
  if (mine.length > target) return { acquire: [], release: mine.sort((a, b) => b - a).slice(0, mine.length - target) }
  const free = views.filter((v) => v.state === 'free').map((v) => v.partition)
  return { acquire: free.sort((a, b) => a - b).slice(0, target - mine.length), release: [] }
}
