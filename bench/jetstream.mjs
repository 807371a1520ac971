#!/usr/bin/env node
// `npm run bench:jetstream`: the engine floor and `run-outcome consume` for 1 and 2 workers, in one run, on the
// same pre-published messages (issue 17; docs/scale-out.md §5).
//
// Starts a fresh `nats-server -js` on a free loopback port with a temporary store and the partition mapping
// `agents.*.events → agents.{{partition(P,1)}}.{{wildcard(1)}}.events`, publishes SESSIONS interleaved native
// sessions of EVENTS events each (every run closed by a root idle), then measures, each from its own start
// until every message is consumed:
//   floor   — this process pulls every partition (one durable each, fetch BATCH, AckPolicy.All, one ack per
//             batch) and does nothing with the messages: what the engine allows on this machine;
//   consume — the built CLI (`node dist/cli/run-outcome.js consume`) as 1, then 2 worker processes, on the same stream
//             with fresh consumers, buckets and snapshots; timed from the workers' ready line until the results
//             bucket holds every run (the workers then commit and acknowledge, checked outside the timing).
// Each measured --repeat times (default 3), interleaved; the median is printed with the range. For each: events/s,
// CPU µs per event of the client (worker) and of the server, and the ratio to the floor.
// Then the takeover: two workers, one killed with SIGKILL, time until the survivor holds every partition.
//
// Usage: npm run build && npm run bench:jetstream -- [--sessions 2000] [--events 100] [--partitions 4] [--batch 256] [--workers 1,2] [--repeat 3] [--no-takeover]
// Needs nats-server on PATH (Debian: apt-get install nats-server) and the @nats-io/* dev dependencies.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '2000' },
    events: { type: 'string', default: '100' },
    workers: { type: 'string', default: '1,2' },
    batch: { type: 'string', default: '256' },
    partitions: { type: 'string', default: '4' },
    'no-takeover': { type: 'boolean', default: false },
    repeat: { type: 'string', default: '3' },
  },
})
const SESSIONS = Number(values.sessions)
const EVENTS = Math.max(6, Number(values.events))
const P = Number(values.partitions)
const BATCH = Number(values.batch)
const WORKERS = values.workers.split(',').map(Number)
const REPEAT = Math.max(1, Number(values.repeat))
const root = fileURLToPath(new URL('..', import.meta.url))
const bin = process.env.RUN_OUTCOME_BIN ?? join(root, 'dist/cli/run-outcome.js')

const { connect } = await import('@nats-io/transport-node')
const { jetstream, jetstreamManager, AckPolicy, DeliverPolicy } = await import('@nats-io/jetstream')

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
const TICK = 100 // clock ticks per second in /proc (USER_HZ)
/** CPU seconds (user + system) a process has used so far (Linux /proc). */
const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / TICK
}
const selfCpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}

// ---- the server ----
const port = await freePort()
const dir = mkdtempSync(join(tmpdir(), 'ro-bench-js-'))
writeFileSync(
  join(dir, 'server.conf'),
  `listen: 127.0.0.1:${port}\njetstream { store_dir: "${join(dir, 'store')}" }\nmappings { "agents.*.events": "agents.{{partition(${P},1)}}.{{wildcard(1)}}.events" }\n`,
)
const server = spawn('nats-server', ['-c', join(dir, 'server.conf')], { stdio: 'ignore' })
// whatever happens (an error, Ctrl-C), no server, worker or store is left behind
const children = new Set([server])
const spawnChild = (args) => {
  const p = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  children.add(p)
  p.once('exit', () => children.delete(p))
  return p
}
process.once('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130))
const url = `nats://127.0.0.1:${port}`
let nc
for (let i = 0; i < 100 && nc === undefined; i++) {
  try {
    nc = await connect({ servers: url, noAsyncTraces: true })
  } catch {
    await sleep(100)
  }
}
if (nc === undefined) throw new Error('nats-server did not start')
const jsm = await jetstreamManager(nc)
const js = jetstream(nc)

// ---- the messages ----
// A session: runs of [user/message, turn/start, (assistant/message, tool/call)×10, assistant/message, turn/end,
// idle] (25 events, the shape of the earlier bench), the last one cut to make EVENTS in all and closed by its idle.
const sessionEvents = (sid) => {
  const out = []
  for (let turn = 1; out.length < EVENTS; turn++) {
    out.push({ type: 'user/message', sessionId: sid, data: { message: 'go' } })
    out.push({ type: 'turn/start', sessionId: sid, data: { turn } })
    for (let i = 0; i < 10; i++) {
      out.push({
        type: 'assistant/message',
        sessionId: sid,
        data: { turn, step: i + 1, message: { content: [] }, usage: { inputTokens: 100, outputTokens: 20 }, model: 'm', costUsd: 0.001 },
      })
      out.push({ type: 'tool/call', sessionId: sid, data: { callId: `c${turn}.${i}`, name: 'Bash', arguments: '{}' } })
    }
    out.push({
      type: 'assistant/message',
      sessionId: sid,
      data: {
        turn,
        step: 99,
        message: { content: [{ type: 'text', text: 'done' }] },
        usage: { inputTokens: 50, outputTokens: 10 },
        model: 'm',
        costUsd: 0.001,
      },
    })
    out.push({ type: 'turn/end', sessionId: sid, data: { turn, reason: { kind: 'completed' } } })
    out.push({ type: 'session/status', sessionId: sid, data: { status: 'idle' } })
  }
  const cut = out.slice(0, EVENTS)
  if (cut[cut.length - 1].type !== 'session/status') cut[cut.length - 1] = { type: 'session/status', sessionId: sid, data: { status: 'idle' } }
  return cut
}
await jsm.streams.add({ name: 'AGENT_EVENTS', subjects: ['agents.*.*.events'] })
const queues = Array.from({ length: SESSIONS }, (_, i) => ({ sid: `bench-${i}`, evs: sessionEvents(`bench-${i}`), at: 0 }))
let TOTAL = 0
let RUNS = 0
{
  const t0 = performance.now()
  let pending = []
  let live = queues.slice()
  // round-robin over the sessions still open: interleaved like concurrent agents
  while (live.length > 0) {
    for (const q of live) {
      const ev = q.evs[q.at++]
      if (ev.type === 'session/status') RUNS++
      pending.push(js.publish(`agents.${q.sid}.events`, JSON.stringify(ev)))
      TOTAL++
      if (pending.length >= 2000) {
        await Promise.all(pending)
        pending = []
      }
    }
    live = live.filter((q) => q.at < q.evs.length)
  }
  await Promise.all(pending)
  console.log(
    `run-outcome JetStream bench: ${SESSIONS} sessions × ${EVENTS} native events = ${TOTAL} events, ${RUNS} runs, ${P} partitions, batch ${BATCH}; ` +
      `published in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  )
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, node ${process.version}, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  )
}

// ---- the floor: fetch + ack-all, no work ----
const floor = async (rep) => {
  const consumers = []
  for (let p = 0; p < P; p++) {
    await jsm.consumers.add('AGENT_EVENTS', {
      durable_name: `floor-${rep}-${p}`,
      ack_policy: AckPolicy.All,
      max_ack_pending: 100_000,
      deliver_policy: DeliverPolicy.All,
      filter_subject: `agents.${p}.*.events`,
    })
    consumers.push(await js.consumers.get('AGENT_EVENTS', `floor-${rep}-${p}`))
  }
  let seen = 0
  let end = 0
  const c0 = selfCpu()
  const s0 = cpuSeconds(server.pid)
  const t0 = performance.now()
  let c1 = 0
  let s1 = 0
  await Promise.all(
    consumers.map(async (c) => {
      while (end === 0) {
        const batch = await c.fetch({ max_messages: BATCH, expires: 2000 })
        let last
        for await (const m of batch) {
          last = m
          if (++seen === TOTAL) {
            end = performance.now()
            c1 = selfCpu()
            s1 = cpuSeconds(server.pid)
            m.ack()
            break
          }
        }
        last?.ack()
        if (end !== 0) break
      }
    }),
  )
  for (let p = 0; p < P; p++) await jsm.consumers.delete('AGENT_EVENTS', `floor-${rep}-${p}`)
  const seconds = (end - t0) / 1000
  return { rate: TOTAL / seconds, seconds, client: ((c1 - c0) * 1e6) / TOTAL, server: ((s1 - s0) * 1e6) / TOTAL }
}

const resultsStored = (bucket) =>
  jsm.streams.info(`KV_${bucket}`).then(
    (i) => i.state.messages,
    () => 0,
  )

/** Spawns `consume` workers on fresh names; returns when every run is stored (timed) and everything acknowledged. */
const consume = async (workers, tag) => {
  const names = ['--durable', `bench${tag}`, '--results', `RESULTS${tag}`, '--state', `STATE${tag}`, '--snapshots', `SNAPSHOTS${tag}`]
  const args = [bin, 'consume', '--server', url, '--partitions', String(P), '--batch', String(BATCH), ...names, '--progress', '0']
  const procs = Array.from({ length: workers }, () => spawnChild(args))
  const stderr = procs.map(() => '')
  const ready = procs.map(
    (p, i) =>
      new Promise((resolve, reject) => {
        p.stderr.setEncoding('utf8')
        p.stderr.on('data', (d) => {
          stderr[i] += d
          if (/consuming; SIGTERM/.test(stderr[i])) resolve()
        })
        p.once('exit', (code) => reject(new Error(`worker exited ${code}: ${stderr[i]}`)))
      }),
  )
  const spawnedAt = performance.now()
  // timed from the first worker's ready line (its setup done: topology, leases, consumers)
  await Promise.race(ready)
  const t0 = performance.now()
  const w0 = procs.map((p) => cpuSeconds(p.pid))
  const s0 = cpuSeconds(server.pid)
  let end = 0
  let w1 = w0
  let s1 = s0
  for (;;) {
    await sleep(20)
    const stored = await resultsStored(`RESULTS${tag}`)
    if (stored >= RUNS) {
      end = performance.now()
      w1 = procs.map((p) => cpuSeconds(p.pid))
      s1 = cpuSeconds(server.pid)
      break
    }
    if (performance.now() - t0 > 300_000) throw new Error(`timed out; workers said:\n${stderr.join('\n')}`)
  }
  // outside the timing: the last snapshots acknowledge everything
  let acked = false
  for (let tries = 0; tries < 50 && !acked; tries++) {
    await sleep(200)
    let pending = 0
    for await (const ci of jsm.consumers.list('AGENT_EVENTS')) {
      if (ci.name.startsWith(`bench${tag}-`)) pending += ci.num_pending + ci.num_ack_pending
    }
    acked = pending === 0
  }
  const stored = await resultsStored(`RESULTS${tag}`)
  for (const p of procs) p.kill('SIGTERM')
  await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode === null ? p.once('exit', r) : r()))))
  // the workers' last lines: snapshots written, consumers recreated (a resync is a pull that failed or stalled)
  let snapshots = 0
  let resyncs = 0
  for (const e of stderr) {
    const m = /(\d+) snapshots?, (\d+) resyncs?/.exec(
      e
        .split('\n')
        .filter((l) => l.includes('stopped after'))
        .pop() ?? '',
    )
    if (m !== null) {
      snapshots += Number(m[1])
      resyncs += Number(m[2])
    }
  }
  // what the workers warned about (a resync says why), printed so a slow run can be read
  const warnings = stderr.flatMap((e, i) =>
    e
      .split('\n')
      .filter((l) => l.includes('warning:'))
      .map((l) => `  worker ${i + 1}: ${l.replace('run-outcome consume: ', '')}`),
  )
  if (warnings.length > 0)
    console.log(`consume, ${workers} worker${workers === 1 ? '' : 's'} (${tag}): ${((end - t0) / 1000).toFixed(2)} s\n${warnings.slice(0, 8).join('\n')}`)
  const seconds = (end - t0) / 1000
  const worker = ((w1.reduce((a, b) => a + b, 0) - w0.reduce((a, b) => a + b, 0)) * 1e6) / TOTAL
  return { rate: TOTAL / seconds, seconds, fromSpawn: (end - spawnedAt) / 1000, worker, server: ((s1 - s0) * 1e6) / TOTAL, stored, acked, snapshots, resyncs }
}

const takeover = async () => {
  const names = ['--durable', 'take', '--results', 'RESULTS_TAKE', '--state', 'STATE_TAKE', '--snapshots', 'SNAPSHOTS_TAKE']
  // the documented defaults (lease 2 s), progress every 0.1 s to see the partitions held
  const args = [bin, 'consume', '--server', url, '--partitions', String(P), ...names, '--progress', '0.1']
  const spawnWorker = () => {
    const p = spawnChild(args)
    p.err = ''
    p.stderr.setEncoding('utf8')
    p.stderr.on('data', (d) => (p.err += d))
    return p
  }
  const lastHeld = (p) => {
    const all = [...p.err.matchAll(/partitions \[([0-9,]*)\] of/g)]
    const last = all[all.length - 1]
    return last === undefined ? [] : last[1].split(',').filter((x) => x !== '')
  }
  const a = spawnWorker()
  const b = spawnWorker()
  const until = async (cond, ms) => {
    const end = performance.now() + ms
    while (performance.now() < end) {
      if (cond()) return true
      await sleep(10)
    }
    return false
  }
  await until(() => lastHeld(a).length > 0 && lastHeld(b).length > 0 && lastHeld(a).length + lastHeld(b).length === P, 60_000)
  await sleep(1500)
  const t0 = performance.now()
  a.kill('SIGKILL')
  const seen = b.err.length
  const ok = await until(() => {
    const all = [...b.err.slice(seen).matchAll(/partitions \[([0-9,]*)\] of/g)]
    const last = all[all.length - 1]
    return last !== undefined && last[1].split(',').length === P
  }, 30_000)
  const seconds = (performance.now() - t0) / 1000
  b.kill('SIGTERM')
  await new Promise((r) => (b.exitCode === null ? b.once('exit', r) : r()))
  return ok ? seconds : null
}

// each measurement REPEAT times, interleaved (floor, 1 worker, 2 workers, floor, …), so that a busy moment of
// the machine does not favour one of them; the median is reported, the range beside it
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const range = (xs) => (xs.length > 1 ? ` [${Math.round(Math.min(...xs) / 1000)}k–${Math.round(Math.max(...xs) / 1000)}k]` : '')
const floors = []
const runs = new Map(WORKERS.map((w) => [w, []]))
let tag = 0
for (let rep = 0; rep < REPEAT; rep++) {
  floors.push(await floor(rep))
  for (const w of WORKERS) runs.get(w).push(await consume(w, `_${++tag}`))
}
const f = floors.find((x) => x.rate === median(floors.map((y) => y.rate)))
console.log(
  `engine floor (fetch ${BATCH} + ack-all, no work): ${Math.round(f.rate)} events/s${range(floors.map((x) => x.rate))}; CPU per event: client ${f.client.toFixed(1)} µs, server ${f.server.toFixed(1)} µs`,
)
for (const w of WORKERS) {
  const all = runs.get(w)
  const r = all.find((x) => x.rate === median(all.map((y) => y.rate)))
  console.log(
    `consume, ${w} worker${w === 1 ? '' : 's'}: ${Math.round(r.rate)} events/s${range(all.map((x) => x.rate))} (${(r.rate / f.rate).toFixed(2)} × floor; ${r.seconds.toFixed(2)} s, ${r.fromSpawn.toFixed(2)} s from spawn); ` +
      `CPU per event: worker${w === 1 ? '' : 's'} ${r.worker.toFixed(1)} µs, server ${r.server.toFixed(1)} µs; ${r.stored}/${RUNS} results${all.every((x) => x.acked) ? ', all acknowledged' : ', NOT all acknowledged'}; ` +
      `${r.snapshots} snapshots, ${all.reduce((a, x) => a + x.resyncs, 0)} resyncs in ${all.length} runs`,
  )
}
if (!values['no-takeover']) {
  const s = await takeover()
  console.log(
    s === null
      ? 'takeover after SIGKILL: not within 30 s'
      : `takeover after a SIGKILL (lease 2 s, the default): the survivor held every partition after ${s.toFixed(2)} s`,
  )
}
await nc.close()
server.kill('SIGTERM')
await new Promise((r) => server.once('exit', r))
rmSync(dir, { recursive: true, force: true })
