/** A real nats-server for the JetStream tests, and generated interleaved agent sessions. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { NatsConnection } from '@nats-io/transport-node'
import { binPath, repoRoot } from '../support/cli.js'
import { Rng } from '../reliability/support/mutate.js'

/** `true` when the nats-server binary is on PATH (CI installs it: .ci/run). */
export const hasNatsServer = (): boolean => {
  const r = spawnSync('nats-server', ['--version'], { encoding: 'utf8' })
  return r.error === undefined && r.status === 0
}

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0
      srv.close(() => resolve(port))
    })
  })

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

// Every nats-server process and temporary store these helpers start, so that a test file that ends without its
// cleanup (a failed start, a timeout, an assertion thrown before `finally`) leaves no server and no directory behind.
const children = new Set<ChildProcess>()
const dirs = new Set<string>()
const cleanUp = (): void => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
}
process.once('exit', cleanUp)
// vitest ends a test file's worker process with SIGTERM: clean up, then let the signal end it as it would have
process.once('SIGTERM', () => {
  cleanUp()
  process.kill(process.pid, 'SIGTERM')
})
const spawnServer = (conf: string): ChildProcess => {
  const c = spawn('nats-server', ['-c', conf], { stdio: 'ignore' })
  children.add(c)
  c.once('exit', () => children.delete(c))
  return c
}
const tempDir = (prefix: string): string => {
  const d = mkdtempSync(join(tmpdir(), prefix))
  dirs.add(d)
  return d
}
const removeDir = (d: string): void => {
  rmSync(d, { recursive: true, force: true })
  dirs.delete(d)
}

export interface NatsServer {
  readonly url: string
  readonly nc: NatsConnection
  /** The server process now (a new one after {@link NatsServer.restart}). */
  proc(): ChildProcess
  /** Kills the server with `signal` and starts it again on the same port and store (JetStream recovers its files). */
  restart(signal?: NodeJS.Signals): Promise<void>
  stop(): Promise<void>
}

/** A subject pattern the server partitions into `partitions` (the mapping of docs/scale-out.md §1). */
export interface Mapping {
  readonly pattern: string
  readonly partitions: number
}

const mappingConf = (mappings: ReadonlyArray<Mapping>): string =>
  mappings.length === 0
    ? ''
    : `mappings {\n${mappings
        .map(
          (m) =>
            `  "${m.pattern}": "${m.pattern
              .split('.')
              .flatMap((t) => (t === '*' ? [`{{partition(${m.partitions},1)}}`, '{{wildcard(1)}}'] : [t]))
              .join('.')}"`,
        )
        .join('\n')}\n}\n`

const waitExit = async (proc: ChildProcess, signal: NodeJS.Signals): Promise<void> => {
  if (proc.exitCode !== null || proc.signalCode !== null) return
  const exited = new Promise((r) => proc.once('exit', r))
  proc.kill(signal)
  await Promise.race([exited, sleep(5000)])
  if (proc.exitCode === null && proc.signalCode === null) {
    proc.kill('SIGKILL')
    await exited
  }
}

const connectTo = async (url: string): Promise<NatsConnection | undefined> => {
  const { connect } = await import('@nats-io/transport-node')
  for (let i = 0; i < 100; i++) {
    try {
      return await connect({ servers: url, noAsyncTraces: true, maxReconnectAttempts: -1, reconnectTimeWait: 100 })
    } catch {
      await sleep(100)
    }
  }
  return undefined
}

/**
 * Starts `nats-server -js` on a free loopback port with a temporary store (and the given subject mappings in
 * its configuration file), and connects to it.
 */
export const startNatsServer = async (
  mappings: ReadonlyArray<Mapping> = [{ pattern: 'agents.*.events', partitions: 2 }],
  extraConfig = '',
): Promise<NatsServer> => {
  const port = await freePort()
  const dir = tempDir('run-outcome-js-')
  const conf = join(dir, 'server.conf')
  writeFileSync(conf, `listen: 127.0.0.1:${port}\njetstream { store_dir: "${join(dir, 'store')}" }\n${extraConfig}\n${mappingConf(mappings)}`)
  const launch = (): ChildProcess => spawnServer(conf)
  let proc = launch()
  const url = `nats://127.0.0.1:${port}`
  const nc = await connectTo(url)
  if (nc === undefined) {
    await waitExit(proc, 'SIGKILL')
    removeDir(dir)
    throw new Error('nats-server did not start')
  }
  const conn = nc
  return {
    url,
    nc: conn,
    proc: () => proc,
    restart: async (signal = 'SIGKILL') => {
      await waitExit(proc, signal)
      proc = launch()
      // the test's own connection reconnects by itself; wait until JetStream answers again
      const { jetstreamManager } = await import('@nats-io/jetstream')
      for (let i = 0; i < 200; i++) {
        try {
          await (await jetstreamManager(conn, { timeout: 1000 })).getAccountInfo()
          return
        } catch {
          await sleep(100)
        }
      }
      throw new Error('nats-server did not come back')
    },
    stop: async () => {
      await conn.close().catch(() => undefined)
      await waitExit(proc, 'SIGTERM')
      removeDir(dir)
    },
  }
}

/** A JetStream cluster of three nats-server processes on loopback (routes between them), each with its store. */
export interface NatsCluster {
  /** Client URLs of the three nodes. */
  readonly urls: ReadonlyArray<string>
  /** A connection (to every node: it fails over). */
  readonly nc: NatsConnection
  /** The node processes, by index. */
  proc(i: number): ChildProcess
  /** Kills node `i` with SIGKILL. */
  kill(i: number): Promise<void>
  /** Starts node `i` again on its ports and store. */
  start(i: number): void
  stop(): Promise<void>
}

/** Starts the 3-node cluster of docs/scale-out.md §6 on free loopback ports, with the given mappings, and waits for a meta leader. */
export const startNatsCluster = async (mappings: ReadonlyArray<Mapping>): Promise<NatsCluster> => {
  const dir = tempDir('run-outcome-cluster-')
  const ports = await Promise.all([0, 1, 2].map(() => freePort()))
  const routes = await Promise.all([0, 1, 2].map(() => freePort()))
  const confs = [0, 1, 2].map((i) => {
    const conf = join(dir, `n${i + 1}.conf`)
    writeFileSync(
      conf,
      `server_name: n${i + 1}\nlisten: 127.0.0.1:${ports[i]}\njetstream { store_dir: "${join(dir, `n${i + 1}`)}" }\n` +
        `cluster {\n  name: agents\n  listen: 127.0.0.1:${routes[i]}\n  routes: [ ${routes.map((r) => `nats-route://127.0.0.1:${r}`).join(', ')} ]\n}\n${mappingConf(mappings)}`,
    )
    return conf
  })
  const procs: Array<ChildProcess> = confs.map((c) => spawnServer(c))
  const urls = ports.map((p) => `nats://127.0.0.1:${p}`)
  const { connect } = await import('@nats-io/transport-node')
  let nc: NatsConnection | undefined
  for (let i = 0; i < 100 && nc === undefined; i++) {
    try {
      nc = await connect({ servers: [...urls], noAsyncTraces: true, maxReconnectAttempts: -1, reconnectTimeWait: 100 })
    } catch {
      await sleep(100)
    }
  }
  if (nc === undefined) {
    await Promise.all(procs.map((p) => waitExit(p, 'SIGKILL')))
    removeDir(dir)
    throw new Error('the cluster did not start')
  }
  const conn = nc
  // JetStream answers once the meta group has a leader
  const { jetstreamManager } = await import('@nats-io/jetstream')
  for (let i = 0; ; i++) {
    try {
      await (await jetstreamManager(conn, { timeout: 2000 })).getAccountInfo()
      break
    } catch (e) {
      if (i > 150) {
        await conn.close().catch(() => undefined)
        await Promise.all(procs.map((p) => waitExit(p, 'SIGKILL')))
        removeDir(dir)
        throw e
      }
      await sleep(200)
    }
  }
  return {
    urls,
    nc: conn,
    proc: (i) => procs[i] as ChildProcess,
    kill: (i) => waitExit(procs[i] as ChildProcess, 'SIGKILL'),
    start: (i) => {
      procs[i] = spawnServer(confs[i] as string)
    },
    stop: async () => {
      await conn.close().catch(() => undefined)
      await Promise.all(procs.map((p) => waitExit(p, 'SIGTERM')))
      removeDir(dir)
    },
  }
}

/** A worker: the built CLI `consume`, with its stderr collected. */
export interface Worker {
  readonly proc: ChildProcess
  stderr(): string
  /** Events applied, from the last progress line (0 before any). */
  events(): number
  exited: Promise<number | null>
}

export const spawnWorker = (args: ReadonlyArray<string>): Worker => {
  const proc = spawn(process.execPath, [binPath, 'consume', ...args], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] })
  // a worker left running would reconnect for ever: killed with the test process at the latest
  children.add(proc)
  proc.once('exit', () => children.delete(proc))
  let err = ''
  proc.stderr?.setEncoding('utf8')
  proc.stderr?.on('data', (d: string) => {
    err += d
  })
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)))
  return {
    proc,
    stderr: () => err,
    events: () => {
      const all = [...err.matchAll(/ (\d+) events? \(/g)]
      const last = all[all.length - 1]
      return last === undefined ? 0 : Number(last[1])
    },
    exited,
  }
}

/** Deterministic PRNG (the reliability suite's mulberry32). */
export const prng = (seed: number): (() => number) => {
  const rng = new Rng(seed)
  return () => rng.next()
}

type Ev = Record<string, unknown>
const ev = (type: string, sessionId: string, data: unknown, time?: number): Ev => ({ type, sessionId, data, ...(time !== undefined ? { time } : {}) })

const REASONS: ReadonlyArray<Record<string, unknown>> = [
  { kind: 'completed' },
  { kind: 'completed' },
  { kind: 'completed' },
  { kind: 'max-tokens' },
  { kind: 'error', error: { message: 'provider failed' } },
  { kind: 'limit', reason: 'max_turns', limit: 3 },
  { kind: 'aborted', reason: { kind: 'user' } },
  { kind: 'something-new' },
]

/**
 * One session's native events (no `seq`, so a double application would double its usage): 1–3 runs, each a
 * user message, 1–2 turns with assistant messages carrying usage (cost sometimes missing), a tool call, at times
 * a subagent whose events carry its own sessionId, a turn end of varied kinds, then the root idle.
 */
export const sessionEvents = (sid: string, rand: () => number): Array<Ev> => {
  const out: Array<Ev> = []
  let t = 1_700_000_000_000 + Math.floor(rand() * 1e6)
  const tick = (): number => (t += 1 + Math.floor(rand() * 500))
  const runs = 1 + Math.floor(rand() * 3)
  let child = 0
  for (let r = 0; r < runs; r++) {
    out.push(ev('user/message', sid, { message: `task ${r}` }, tick()))
    const turns = 1 + Math.floor(rand() * 2)
    for (let turn = 1; turn <= turns; turn++) {
      out.push(ev('turn/start', sid, { turn }, tick()))
      if (rand() < 0.5) out.push(ev('tool/call', sid, { callId: `c${r}.${turn}`, name: 'Bash', arguments: '{}' }, tick()))
      if (rand() < 0.3) {
        const kid = `${sid}-sub${++child}`
        out.push(ev('subagent/started', sid, { parentSessionId: sid, childSessionId: kid }, tick()))
        out.push(ev('turn/start', kid, { turn: 1 }, tick()))
        out.push(
          ev(
            'assistant/message',
            kid,
            {
              turn: 1,
              step: 1,
              message: { content: [{ type: 'text', text: 'sub' }] },
              usage: { inputTokens: 7, outputTokens: 3 },
              model: 'small',
              costUsd: 0.0001,
            },
            tick(),
          ),
        )
        out.push(ev('turn/end', kid, { turn: 1, reason: { kind: 'completed' } }, tick()))
        out.push(ev('subagent/finished', sid, { parentSessionId: sid, childSessionId: kid, stopReason: 'completed' }, tick()))
      }
      const usage = { inputTokens: 10 + Math.floor(rand() * 90), outputTokens: 1 + Math.floor(rand() * 40), cacheReadTokens: Math.floor(rand() * 50) }
      const priced = rand() < 0.8
      out.push(
        ev(
          'assistant/message',
          sid,
          {
            turn,
            step: 1,
            message: { content: [{ type: 'text', text: `answer ${sid} ${r}.${turn}` }] },
            usage,
            model: 'big',
            ...(priced ? { costUsd: 0.001 } : {}),
          },
          tick(),
        ),
      )
      const reason = turn === turns ? (REASONS[Math.floor(rand() * REASONS.length)] as Ev) : { kind: 'completed' }
      out.push(ev('turn/end', sid, { turn, reason }, tick()))
    }
    out.push(ev('session/status', sid, { status: 'idle' }, tick()))
  }
  return out
}

/** Interleaves sessions like concurrent agents: each next event comes from a random session with events left. */
export const interleave = (sessions: ReadonlyArray<{ sid: string; events: ReadonlyArray<Ev> }>, rand: () => number): Array<{ sid: string; event: Ev }> => {
  const live = sessions.map((s) => ({ sid: s.sid, events: s.events, at: 0 }))
  const out: Array<{ sid: string; event: Ev }> = []
  while (live.length > 0) {
    const i = Math.floor(rand() * live.length)
    const s = live[i] as (typeof live)[number]
    out.push({ sid: s.sid, event: s.events[s.at++] as Ev })
    if (s.at >= s.events.length) live.splice(i, 1)
  }
  return out
}

/**
 * Publishes payloads in order, in chunks of `chunk` with a pause between them (live traffic), each with a
 * message id so that a chunk retried after a failure (a server restart) is stored once (the stream's duplicate
 * window). Retries a failed chunk until it is stored.
 */
export const publishLive = async (
  nc: NatsConnection,
  items: ReadonlyArray<{ subject: string; payload: string }>,
  chunk = 500,
  pauseMs = 30,
  idPrefix = 'm',
): Promise<void> => {
  const { jetstream } = await import('@nats-io/jetstream')
  const js = jetstream(nc, { timeout: 2000 })
  for (let i = 0; i < items.length; i += chunk) {
    const part = items.slice(i, i + chunk)
    for (let attempt = 0; ; attempt++) {
      // one after the other within a chunk would be slow; pipelined, the order of one connection holds
      const r = await Promise.allSettled(part.map((x, k) => js.publish(x.subject, x.payload, { msgID: `${idPrefix}-${i + k}` })))
      if (r.every((x) => x.status === 'fulfilled')) break
      if (attempt > 100) throw new Error('could not publish')
      await sleep(200)
    }
    if (pauseMs > 0) await sleep(pauseMs)
  }
}

/** Publishes payloads in order on one connection (pipelined; JetStream keeps the order of one publisher). */
export const publishAll = async (nc: NatsConnection, items: ReadonlyArray<{ subject: string; payload: string }>): Promise<void> => {
  const { jetstream } = await import('@nats-io/jetstream')
  const js = jetstream(nc)
  for (let i = 0; i < items.length; i += 500) {
    await Promise.all(items.slice(i, i + 500).map((x) => js.publish(x.subject, x.payload)))
  }
}

/** Every key → parsed JSON value of a KV bucket. */
export const readBucket = async (nc: NatsConnection, bucket: string): Promise<Map<string, unknown>> => {
  const { jetstream } = await import('@nats-io/jetstream')
  const { Kvm } = await import('@nats-io/kv')
  // a cluster that lost a node answers slower: a longer request timeout than the default 5 s
  const kv = await new Kvm(jetstream(nc, { timeout: 20_000 })).open(bucket)
  const keys: Array<string> = []
  for await (const k of await kv.keys()) keys.push(k)
  const out = new Map<string, unknown>()
  await Promise.all(
    keys.map(async (k) => {
      const e = await kv.get(k)
      if (e !== null && e.operation === 'PUT') out.set(k, e.json())
    }),
  )
  return out
}

/** Waits until `cond` holds, polling; throws with `what` after `ms`. */
export const waitFor = async (cond: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> => {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await cond()) return
    await sleep(100)
  }
  throw new Error(`timed out waiting for ${what}`)
}
