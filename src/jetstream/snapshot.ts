/**
 * A partition's snapshot log (docs/scale-out.md §3): the checkpoints of the partition's sessions, written
 * periodically as messages on one subject of the snapshots stream (`RUN_SNAPSHOTS.<durable>.<p>`), every
 * message published with compare-and-set on the subject's last sequence (`Nats-Expected-Last-Subject-Sequence`).
 *
 * Three kinds of message (header `Ro-Kind`):
 * - `claim`: a worker starts holding the partition (its tenure). Its stream sequence names the tenure's
 *   consumer ({@link tenureConsumer}); every later message of the tenure carries it in `Ro-Claim`.
 * - `chunk`: a slice (at most the server's `max_payload`) of a text of session checkpoints, one JSON line each.
 * - `commit`: `{ lastSeq, chunks, … }` — the partition's state is the sessions of the listed chunks, read in
 *   order (a later line of a session replaces an earlier one), after applying every event of the partition up
 *   to stream sequence `lastSeq`. A full snapshot lists only its own chunks; a delta adds the sessions changed
 *   since the previous commit to its list; a full one is written when the list grows past twice the live size
 *   (or 64 chunks past the last full one), and the messages before it are purged.
 * - `index`: a JSON array of chunk sequences. A commit whose chunk list would not fit in one message (a
 *   partition of many megabytes under a small `max_payload`) lists its chunks in index messages written just
 *   before it and names those (`index`), so no commit is ever larger than `max_payload`.
 * Every message carries `Ro-Commit`, the sequence of the latest commit when it was written, so the last message
 * of the subject leads to the state.
 *
 * Because each publish names the sequence it expects to follow, a worker that lost the partition (its lease
 * taken while it stalled) fails at its next write and drops the partition: two holders can never interleave a
 * snapshot, and nothing written after the last commit is ever read.
 *
 * @module
 */
import type { JetStreamClient, JetStreamManager, StoredMsg } from '@nats-io/jetstream'
import type { NatsClients } from './clients.js'

/** The commit of a snapshot (the JSON of a `commit` message). @since 0.3.0 */
export interface SnapshotCommit {
  readonly version: 1
  /** Every event of the partition up to this stream sequence (of the events stream) is in the state. */
  readonly lastSeq: number
  /** Stream sequences (in the snapshots stream) of the chunks to read, in order. */
  readonly chunks: ReadonlyArray<number>
  /** Bytes of those chunks. */
  readonly bytes: number
  /** Sessions in the state. */
  readonly sessions: number
  /** The format of the sessions' records (`--format`). */
  readonly format: string
  /**
   * When present, `chunks` is empty and the chunk list is the concatenation of these `index` messages (stream
   * sequences in the snapshots stream), each a JSON array of chunk sequences: a list too long for one message.
   */
  readonly index?: ReadonlyArray<number>
}

/** What the last message of a partition's snapshot subject says. @since 0.3.0 */
export interface SnapshotHead {
  /** The subject's last stream sequence (0: no message). */
  readonly lastSubjectSeq: number
  /** The latest commit and its sequence (`null`, 0: none yet). */
  readonly commit: SnapshotCommit | null
  readonly commitSeq: number
  /** The claim sequence of the tenure that wrote the last message (its consumer's name), 0 when none. */
  readonly claimSeq: number
}

/** A write to the snapshot log found another writer's message after its own: the partition is someone else's. @since 0.3.0 */
export class SnapshotFencedError extends Error {
  override readonly name = 'SnapshotFencedError' as const
}

const WRONG_LAST_SEQUENCE = [10071, 10164]
const apiCode = (e: unknown): number | undefined => {
  const code = (e as { code?: unknown } | null)?.code
  return typeof code === 'number' ? code : undefined
}

const headerOf = (m: StoredMsg, name: string): string => m.header?.get(name) ?? ''

/**
 * Reads the head of a partition's snapshot log: its last message and the commit it leads to.
 * **Throws** when the server cannot be asked, or a commit is not valid JSON.
 * @since 0.3.0
 */
export const readSnapshotHead = async (jsm: JetStreamManager, stream: string, subject: string): Promise<SnapshotHead> => {
  const last = await jsm.streams.getMessage(stream, { last_by_subj: subject })
  if (last === null) return { lastSubjectSeq: 0, commit: null, commitSeq: 0, claimSeq: 0 }
  const kind = headerOf(last, 'Ro-Kind')
  const claimSeq = kind === 'claim' ? last.seq : Number(headerOf(last, 'Ro-Claim')) || 0
  let commitSeq = kind === 'commit' ? last.seq : Number(headerOf(last, 'Ro-Commit')) || 0
  let commitMsg: StoredMsg | null = kind === 'commit' ? last : null
  if (commitMsg === null && commitSeq > 0) {
    commitMsg = await jsm.streams.getMessage(stream, { seq: commitSeq })
    if (commitMsg === null) commitSeq = 0
  }
  const commit = commitMsg === null ? null : (JSON.parse(new TextDecoder().decode(commitMsg.data)) as SnapshotCommit)
  return { lastSubjectSeq: last.seq, commit, commitSeq, claimSeq }
}

/**
 * The chunk sequences of a commit, in order: its `chunks`, or those its `index` messages list.
 * **Throws** when an index message is missing or is not a JSON array of sequences.
 * @since 0.3.0
 */
export const readSnapshotChunks = async (jsm: JetStreamManager, stream: string, commit: SnapshotCommit): Promise<Array<number>> => {
  if (commit.index === undefined) return [...commit.chunks]
  const out: Array<number> = []
  for (const seq of commit.index) {
    const m = await jsm.streams.getMessage(stream, { seq })
    if (m === null) throw new Error(`the snapshot index at sequence ${seq} of ${stream} is missing`)
    const list: unknown = JSON.parse(new TextDecoder().decode(m.data))
    if (!Array.isArray(list) || !list.every((x) => Number.isSafeInteger(x)))
      throw new Error(`the snapshot index at sequence ${seq} of ${stream} is not a list of sequences`)
    out.push(...(list as Array<number>))
  }
  return out
}

/**
 * The checkpoint lines of a commit: its chunks read in order, joined and split at newlines.
 * **Throws** when a chunk or an index message is missing (removed from the stream by hand).
 * @since 0.3.0
 */
export const readSnapshotLines = async (jsm: JetStreamManager, stream: string, commit: SnapshotCommit): Promise<Array<string>> => {
  const parts: Array<Buffer> = []
  // a delta's chunks start a new line; a full text's chunks are cut anywhere: concatenated in order, both read back
  for (const seq of await readSnapshotChunks(jsm, stream, commit)) {
    const m = await jsm.streams.getMessage(stream, { seq })
    if (m === null) throw new Error(`the snapshot chunk at sequence ${seq} of ${stream} is missing`)
    parts.push(Buffer.from(m.data))
  }
  return Buffer.concat(parts)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
}

/** Cuts a text of lines into slices of at most `max` bytes (cut anywhere; the reader joins them). @since 0.3.0 */
export const sliceText = (text: string, max: number): Array<Uint8Array> => {
  const bytes = Buffer.from(text, 'utf8')
  const out: Array<Uint8Array> = []
  for (let i = 0; i < bytes.length; i += max) out.push(bytes.subarray(i, Math.min(bytes.length, i + max)))
  return out
}

/**
 * The writing end of one tenure: publishes with compare-and-set on the subject's last sequence.
 * @since 0.3.0
 */
export class SnapshotWriter {
  /** The subject's last sequence as this writer knows it. */
  private last: number
  /** The latest commit's sequence. */
  commitSeq: number
  /** This tenure's claim sequence (0 before the claim). */
  claimSeq = 0
  /** The log's subject. */
  readonly subjectName: string

  constructor(
    private readonly clients: NatsClients,
    private readonly js: JetStreamClient,
    private readonly subject: string,
    head: SnapshotHead,
  ) {
    this.subjectName = subject
    this.last = head.lastSubjectSeq
    this.commitSeq = head.commitSeq
  }

  private async publish(kind: 'claim' | 'chunk' | 'index' | 'commit', data: Uint8Array | string): Promise<number> {
    const h = this.clients.transport.headers()
    h.set('Ro-Kind', kind)
    h.set('Ro-Commit', String(this.commitSeq))
    if (kind !== 'claim') h.set('Ro-Claim', String(this.claimSeq))
    try {
      const ack = await this.js.publish(this.subject, data, { headers: h, expect: { lastSubjectSequence: this.last } })
      this.last = ack.seq
      return ack.seq
    } catch (e) {
      if (WRONG_LAST_SEQUENCE.includes(apiCode(e) ?? 0)) throw new SnapshotFencedError(`another worker wrote the snapshot log ${this.subject}`)
      throw e
    }
  }

  /** Starts the tenure. **Throws** {@link SnapshotFencedError} when the log moved since its head was read. */
  async claim(owner: string): Promise<number> {
    this.claimSeq = await this.publish('claim', JSON.stringify({ owner }))
    return this.claimSeq
  }

  /** Writes one chunk; returns its sequence. */
  chunk(data: Uint8Array): Promise<number> {
    return this.publish('chunk', data)
  }

  /**
   * Writes a commit; returns its sequence. With `maxBytes` (the room in one message), a chunk list whose JSON
   * is longer is first written as `index` messages of at most `maxBytes` each, which the commit names instead.
   */
  async commit(c: SnapshotCommit, maxBytes = Number.POSITIVE_INFINITY): Promise<number> {
    let text = JSON.stringify(c)
    if (text.length > maxBytes && c.chunks.length > 0) {
      // sequences are at most 16 digits and a comma: lists of that many fit in one message each
      const per = Math.max(1, Math.floor((maxBytes - 2) / 17))
      const index: Array<number> = []
      for (let i = 0; i < c.chunks.length; i += per) index.push(await this.publish('index', JSON.stringify(c.chunks.slice(i, i + per))))
      text = JSON.stringify({ ...c, chunks: [], index })
    }
    const seq = await this.publish('commit', text)
    this.commitSeq = seq
    return seq
  }
}
