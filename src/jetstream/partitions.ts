/**
 * Partitions and their leases: how several workers share the sessions (docs/scale-out.md §2).
 *
 * A deployment has a fixed number `P` of partitions. A session belongs to partition
 * `fnv1a32(utf8(sessionId)) mod P` — the hash nats-server's `{{partition(P,1)}}` subject mapping computes, so a
 * server that partitions the subjects and a publisher that does it itself agree. Partition `p`'s events are the
 * subjects `agents.<p>.*.events`; the worker that holds its lease folds them, through a consumer of its own.
 *
 * Leases and heartbeats are keys of the state bucket, per durable prefix (`_lease.<durable>.<p>` per
 * partition, `_workers.<durable>` for the heartbeats, `_config.<durable>` pinning the partition count and format). An
 * owner rewrites its lease and bumps its heartbeat every third of the lease time; another worker calls a lease
 * or a heartbeat stale when it has not changed for a whole lease time **by its own clock**, so clocks of
 * different machines never need to agree. Leases only keep workers out of each other's way: what makes a
 * stale holder harmless is the snapshot log's compare-and-set (snapshot.ts).
 *
 * @module
 */

/**
 * The partition of a session: FNV-1a (32-bit) of its id's UTF-8 bytes modulo `partitions` — what nats-server
 * computes for `{{partition(P,1)}}`. A lone surrogate counts as U+FFFD, as the clients encode it.
 * @since 0.1.0
 */
export const partitionOf = (sessionId: string, partitions: number): number => {
  let h = 0x811c9dc5
  const byte = (b: number): void => {
    h ^= b
    h = Math.imul(h, 0x01000193) >>> 0
  }
  for (let i = 0; i < sessionId.length; i++) {
    let c = sessionId.charCodeAt(i)
    if (c < 0x80) {
      byte(c)
      continue
    }
    if (c < 0x800) {
      byte(0xc0 | (c >> 6))
      byte(0x80 | (c & 63))
      continue
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = sessionId.charCodeAt(i + 1)
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00)
        i++
        byte(0xf0 | (c >> 18))
        byte(0x80 | ((c >> 12) & 63))
        byte(0x80 | ((c >> 6) & 63))
        byte(0x80 | (c & 63))
        continue
      }
      c = 0xfffd
    }
    byte(0xe0 | (c >> 12))
    byte(0x80 | ((c >> 6) & 63))
    byte(0x80 | (c & 63))
  }
  return h % partitions
}

/** KV key of the lease of partition `p` of the workers using durable prefix `durable`. @since 0.1.0 */
export const leaseKey = (durable: string, p: number): string => `_lease.${durable}.${p}`
/** KV key of the heartbeats of the workers using `durable`: `{ "<worker id>": <counter> }`, each bumping its own. @since 0.1.0 */
export const workersKey = (durable: string): string => `_workers.${durable}`
/** KV key pinning the partition count and format of the workers using `durable` (`{ partitions, format }`). @since 0.1.0 */
export const configKey = (durable: string): string => `_config.${durable}`

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
 * What the other live workers hold, for {@link rebalance}: each one's id and how many partitions its leases name.
 * @since 0.3.0
 */
export interface PeerView {
  readonly id: string
  readonly held: number
}

/**
 * The rebalancing decision. With `P` partitions and `W` live workers, each worker holds `floor(P / W)` or
 * `ceil(P / W)`:
 * - above `ceil` it releases the excess (highest first);
 * - at `ceil` while another live worker is below `floor` and nothing is free, the worker with the smallest id
 *   among those above `floor` releases one, so no live worker stays idle (4 partitions, 3 workers: 2, 1, 1);
 * - below its share it takes free partitions (lowest first), up to `ceil`, or only up to `floor` while another
 *   live worker is below `floor` (leaving it the rest).
 * Without `peers` (the 0.1 form) only the `ceil` rule applies.
 * @since 0.1.0
 */
export const rebalance = (
  views: ReadonlyArray<PartitionView>,
  liveWorkers: number,
  self?: string,
  peers: ReadonlyArray<PeerView> = [],
): { readonly acquire: Array<number>; readonly release: Array<number> } => {
  const live = Math.max(1, liveWorkers)
  const hi = Math.ceil(views.length / live)
  const lo = Math.floor(views.length / live)
  const mine = views.filter((v) => v.state === 'mine').map((v) => v.partition)
  const free = views.filter((v) => v.state === 'free').map((v) => v.partition)
  if (mine.length > hi) return { acquire: [], release: mine.sort((a, b) => b - a).slice(0, mine.length - hi) }
  const starving = peers.some((p) => p.held < lo)
  if (self !== undefined && starving && free.length === 0 && mine.length > lo) {
    const above = [{ id: self, held: mine.length }, ...peers].filter((p) => p.held > lo).map((p) => p.id)
    above.sort()
    if (above[0] === self) return { acquire: [], release: mine.sort((a, b) => b - a).slice(0, 1) }
    return { acquire: [], release: [] }
  }
  const want = (starving ? lo : hi) - mine.length
  return { acquire: free.sort((a, b) => a - b).slice(0, Math.max(0, want)), release: [] }
}
