#!/usr/bin/env node
// Throughput of `run-outcome consume` (issue 8): events/s for one and for two workers on this machine.
//
// For each worker count, starts a fresh `nats-server -js` on a free loopback port with a temporary store,
// publishes SESSIONS interleaved sessions (EVENTS_PER_SESSION native events each, every session closing its
// runs with a root idle), spawns the built CLI (`node dist/cli/bin.js consume`) that many times, and measures
// the time from the workers' start until the durable has no pending and no unacknowledged message.
//
// Usage: npm run build && node bench/jetstream.mjs [--sessions 2000] [--events 20] [--workers 1,2] [--partitions 2] [--batch 256]
// Needs nats-server on PATH (Debian: apt-get install nats-server) and the @nats-io/* dev dependencies.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '2000' },
    events: { type: 'string', default: '20' },
    workers: { type: 'string', default: '1,2' },
    batch: { type: 'string', default: '256' },
    partitions: { type: 'string', default: '2' },
  },
})
const SESSIONS = Number(values.sessions)
const EVENTS_PER_SESSION = Math.max(5, Number(values.events))
const WORKERS = values.workers.split(',').map(Number)
const root = fileURLToPath(new URL('..', import.meta.url))
const bin = join(root, 'dist/cli/bin.js')

const { connect } = await import('@nats-io/transport-node')
const { jetstream, jetstreamManager } = await import('@nats-io/jetstream')

const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** CPU seconds (user + system) a process has used so far (Linux /proc; null elsewhere). */
const cpuSeconds = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return null
  }
}

const startServer = async () => {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'ro-bench-js-'))
  const proc = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir], { stdio: 'ignore' })
  const url = `nats://127.0.0.1:${port}`
  for (let i = 0; i < 100; i++) {
    try {
      const nc = await connect({ servers: url })
      return { url, proc, dir, nc }
    } catch {
      await sleep(100)
    }
  }
  throw new Error('nats-server did not start')
}

// A session: runs of [user/message, turn/start, (assistant/message, tool/call)…, assistant/message, turn/end, idle].
const sessionEvents = (sid) => {
  const out = []
  let turn = 0
  while (out.length < EVENTS_PER_SESSION) {
    turn++
    out.push({ type: 'user/message', sessionId: sid, data: { message: 'go' } })
    out.push({ type: 'turn/start', sessionId: sid, data: { turn } })
    const room = Math.max(0, EVENTS_PER_SESSION - out.length - 4)
    for (let i = 0; i < Math.min(room, 10); i += 2) {
      out.push({ type: 'assistant/message', sessionId: sid, data: { turn, step: i + 1, message: { content: [] }, usage: { inputTokens: 100, outputTokens: 20 }, model: 'm', costUsd: 0.001 } })
      out.push({ type: 'tool/call', sessionId: sid, data: { callId: `c${turn}.${i}`, name: 'Bash', arguments: '{}' } })
    }
    out.push({ type: 'assistant/message', sessionId: sid, data: { turn, step: 99, message: { content: [{ type: 'text', text: 'done' }] }, usage: { inputTokens: 50, outputTokens: 10 }, model: 'm', costUsd: 0.001 } })
    out.push({ type: 'turn/end', sessionId: sid, data: { turn, reason: { kind: 'completed' } } })
    out.push({ type: 'session/status', sessionId: sid, data: { status: 'idle' } })
  }
  return out
}

const publishAll = async (nc) => {
  const jsm = await jetstreamManager(nc)
  await jsm.streams.add({ name: 'AGENT_EVENTS', subjects: ['agents.*.events'] })
  const js = jetstream(nc)
  const queues = Array.from({ length: SESSIONS }, (_, i) => ({ sid: `bench-${i}`, evs: sessionEvents(`bench-${i}`), at: 0 }))
  let total = 0
  let runs = 0
  let pending = []
  let live = queues.slice()
  // round-robin over the sessions still open: interleaved like concurrent agents
  while (live.length > 0) {
    for (const q of live) {
      const ev = q.evs[q.at++]
      if (ev.type === 'session/status') runs++
      pending.push(js.publish(`agents.${q.sid}.events`, JSON.stringify(ev)))
      total++
      if (pending.length >= 2000) {
        await Promise.all(pending)
        pending = []
      }
    }
    live = live.filter((q) => q.at < q.evs.length)
  }
  await Promise.all(pending)
  return { total, runs }
}

const measure = async (workers) => {
  const { url, proc, dir, nc } = await startServer()
  const { total, runs } = await publishAll(nc)
  const jsm = await jetstreamManager(nc)
  const serverCpu0 = cpuSeconds(proc.pid)
  const t0 = performance.now()
  const procs = Array.from({ length: workers }, () =>
    spawn(process.execPath, [bin, 'consume', '--server', url, '--batch', values.batch, '--partitions', values.partitions, '--lease', '2', '--progress', process.env.BENCH_PROGRESS ?? '0'], {
      stdio: ['ignore', 'ignore', process.env.BENCH_PROGRESS ? 'inherit' : 'pipe'],
    }),
  )
  let stderr = ''
  for (const p of procs) p.stderr?.on('data', (d) => (stderr += d))
  // Every run of every session ends with a root idle, so the work is done when the results bucket holds them
  // all. (Polling consumer info instead would slow the server down: on 2.9, the info of a durable with a
  // wildcard filter counts its pending messages by scanning, holding the consumer's lock.)
  let elapsed = 0
  let cpu = { server: null, workers: [] }
  for (;;) {
    await sleep(50)
    const stored = await jsm.streams.info('KV_RUN_RESULTS').then((i) => i.state.messages, () => 0)
    if (stored >= runs) {
      elapsed = performance.now() - t0
      break
    }
    cpu = { server: cpuSeconds(proc.pid), workers: procs.map((p) => cpuSeconds(p.pid)) }
    if (performance.now() - t0 > 600_000) throw new Error(`timed out; worker stderr:\n${stderr}`)
  }
  // the last batch's acknowledgements follow its results: check them (outside the timing), polling slowly
  for (let p = 0; p < Number(values.partitions); p++) {
    for (let tries = 0; ; tries++) {
      await sleep(1000)
      const info = await jsm.consumers.info('AGENT_EVENTS', `run-outcome-${p}`)
      if (info.num_pending === 0 && info.num_ack_pending === 0) break
      if (tries === 10) {
        console.log(`note: run-outcome-${p} has ${info.num_pending} pending, ${info.num_ack_pending} unacknowledged 10 s after the last result`)
        break
      }
    }
  }
  const kvInfo = await jsm.streams.info('KV_RUN_RESULTS')
  for (const p of procs) p.kill('SIGTERM')
  await Promise.all(procs.map((p) => new Promise((r) => p.once('exit', r))))
  await nc.close()
  proc.kill('SIGTERM')
  await new Promise((r) => proc.once('exit', r))
  rmSync(dir, { recursive: true, force: true })
  const server = cpu.server !== null && serverCpu0 !== null ? (cpu.server - serverCpu0).toFixed(1) : '?'
  const workerCpu = cpu.workers.map((c) => (c === null ? '?' : c.toFixed(1))).join(' + ')
  return { workers, total, results: kvInfo.state.messages, seconds: elapsed / 1000, eventsPerSecond: Math.round(total / (elapsed / 1000)), cpu: `CPU s: server ${server}, workers ${workerCpu}` }
}

console.log(`run-outcome consume throughput: ${SESSIONS} sessions × ${EVENTS_PER_SESSION} events, ${values.partitions} partitions, batch ${values.batch}, node ${process.version}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`)
for (const w of WORKERS) {
  const r = await measure(w)
  console.log(`${r.workers} worker(s): ${r.total} events in ${r.seconds.toFixed(2)} s = ${r.eventsPerSecond} events/s (${r.results} results; ${r.cpu})`)
}
