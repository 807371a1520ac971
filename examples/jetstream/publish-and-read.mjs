#!/usr/bin/env node
/**
 * Publishes one log's records to a `run-outcome consume` deployment with the default names, then prints the
 * runs the workers stored for its session: what a publisher and a reader of the results do (docs/scale-out.md §1).
 *
 * Usage: node examples/jetstream/publish-and-read.mjs nats://127.0.0.1:4222 SESSION_ID LOG.jsonl
 *   (needs the NATS clients: npm install @nats-io/transport-node @nats-io/jetstream @nats-io/kv)
 *
 * Each line of the log is one message on `agents.<SESSION_ID>.events`; the server's mapping puts it on its
 * partition. A run's result is created under `<sessionKey>.<n>` (n = 1, 2, …) once the run is over, so the script
 * waits until no new result has come for 2 s (30 s at most) and prints one line per run: key, ending, cost.
 */
import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { jetstream } from '@nats-io/jetstream'
import { Kvm } from '@nats-io/kv'
import { connect } from '@nats-io/transport-node'
import { JETSTREAM_DEFAULTS, resultKey, sessionKey, subjectForSession } from 'run-outcome/jetstream'

const [server, sessionId, log] = process.argv.slice(2)
if (log === undefined) {
  console.error('usage: publish-and-read.mjs NATS_URL SESSION_ID LOG.jsonl')
  process.exit(2)
}
const nc = await connect({ servers: server })
const js = jetstream(nc)
const subject = subjectForSession(JETSTREAM_DEFAULTS.subjects, sessionId)
let records = 0
for await (const line of createInterface({ input: createReadStream(log), crlfDelay: Number.POSITIVE_INFINITY })) {
  if (line.trim() === '') continue
  // acknowledged publishing: the record is stored once the call returns
  try {
    await js.publish(subject, line)
  } catch (e) {
    // no stream captures the subject: the server answers "no responders", which the client 3.x reports as
    // JetStreamNotEnabled ("jetstream is not enabled")
    console.error(`cannot publish on ${subject}: ${e.message}; is the mapping of docs/scale-out.md §1 in place, and a worker started once?`)
    await nc.close()
    process.exit(1)
  }
  records++
}
console.error(`published ${records} records on ${subject}`)

const kv = await new Kvm(js).open(JETSTREAM_DEFAULTS.results)
const runs = []
const started = Date.now()
let lastNew = Date.now()
while (Date.now() - lastNew < 2000 && Date.now() - started < 30_000) {
  // the results of a session are its keys <sessionKey>.1, .2, …, each created once
  const entry = await kv.get(resultKey(sessionId, runs.length + 1))
  if (entry !== null && entry.operation === 'PUT') {
    runs.push({ key: entry.key, result: entry.json() })
    lastNew = Date.now()
  } else await new Promise((r) => setTimeout(r, 100))
}
for (const { key, result } of runs) {
  const cost = result.cost.totalUsd === null ? 'cost unknown' : `$${result.cost.totalUsd.toFixed(4)}`
  console.log(`${key}  ${result.ending.kind}  ${cost}`)
}
console.error(`${runs.length} run(s) stored for ${sessionId} (keys ${sessionKey(sessionId)}.<n>)`)
await nc.close()
