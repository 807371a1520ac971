/**
 * `run-outcome consume --server nats://HOST:PORT [options]`: one worker of the per-session fold on NATS
 * JetStream (issue 8; docs/scale-out.md). Runs until SIGTERM or SIGINT, printing progress on stderr.
 * @module
 */
import { parseArgs } from 'node:util'
import { ConsumeSetupError, startConsumer, type ConsumeStats } from '../jetstream/consumer.js'
import { loadNatsClients, MissingNatsClientsError, type NatsClients } from '../jetstream/clients.js'
import { JETSTREAM_DEFAULTS } from '../jetstream/keys.js'
import { EXIT, type CliIO } from './io.js'

/** Help text of `consume`. @since 0.1.0 */
export const consumeHelp = (): string => `Usage: run-outcome consume --server nats://HOST:PORT [options]

Folds agent sessions from NATS JetStream, one worker per process; start several to share the work.
Each message on agents.<sessionId>.events carries one native event (SPEC §4). When a session's run
ends (root idle), its RunResult JSON is put in the results bucket under <sessionId>.<n>. Each session's
fold state is checkpointed in the state bucket; a message is acknowledged only once its effect is stored,
so a killed worker loses nothing and nothing is applied twice. Sessions are hashed into partitions, one
durable each (<durable>-<p>); workers share the partitions through leases in the state bucket, and take
over a silent worker's partitions after the lease time. Missing stream, buckets and durables are
created; existing ones are used as they are. Stops cleanly on SIGTERM or Ctrl-C. See docs/scale-out.md.

Options:
  --server URL           NATS server URL(s), comma-separated (default: $NATS_URL)
  --stream NAME          stream of the events (default ${JETSTREAM_DEFAULTS.stream})
  --subjects PATTERN     subject pattern, one '*' for the session id (default '${JETSTREAM_DEFAULTS.subjects}')
  --durable NAME         prefix of the partitions' durables (default ${JETSTREAM_DEFAULTS.durable}: ${JETSTREAM_DEFAULTS.durable}-0, …)
  --results BUCKET       KV bucket of the results (default ${JETSTREAM_DEFAULTS.results})
  --state BUCKET         KV bucket of the checkpoints (default ${JETSTREAM_DEFAULTS.state})
  --format native        the event format (only native: its fold state is checkpointable)
  --partitions N         partitions of the sessions, at least the number of workers you will run;
                         pinned by the first worker, every worker must use the same (default ${JETSTREAM_DEFAULTS.partitions})
  --lease SECONDS        a silent worker's partitions are taken over after this (default ${JETSTREAM_DEFAULTS.leaseSeconds})
  --ack-wait SECONDS     redelivery delay of unacknowledged messages, for durables created now (default ${JETSTREAM_DEFAULTS.ackWaitSeconds})
  --max-ack-pending N    unacknowledged messages per durable, for durables created now (default ${JETSTREAM_DEFAULTS.maxAckPending})
  --replicas N           replicas of a stream or bucket created now (default 1)
  --batch N              messages folded per batch (default ${JETSTREAM_DEFAULTS.batch})
  --progress SECONDS     progress line interval on stderr; 0 for none (default 5)
  -h, --help             show this help

Exit status: 0 stopped by a signal; 2 usage error, missing NATS client packages, server unreachable,
or the connection lost.

Examples:
  nats-server -js -sd /tmp/js &
  run-outcome consume --server nats://127.0.0.1:4222
  run-outcome consume --server nats://n1:4222,nats://n2:4222 --replicas 3 --partitions 8
`

const formatStats = (s: ConsumeStats, final: boolean): string =>
  `run-outcome consume: ${final ? 'stopped after ' : ''}${s.events} events (${s.eventsPerSecond}/s${final ? ' average' : ''}), ` +
  `${final ? '' : `partitions [${s.partitions.join(',')}] of ${s.partitionCount}, `}` +
  `${s.openSessions} open sessions, ${s.resultsWritten} results written, ${s.protocolErrors} protocol errors, ` +
  `${s.duplicates} duplicates skipped, ${s.streamReads} stream reads, ${s.conflicts} conflicts, ${s.retried} retried\n`

const number = (text: string | undefined, what: string, min: number): number | string | undefined => {
  if (text === undefined) return undefined
  const n = Number(text)
  if (text.trim() === '' || !Number.isFinite(n) || n < min) return `--${what} takes a number${min > 0 ? ' above 0' : ' (0 or more)'}`
  return n
}

/**
 * Makes the `consume` command with a given way to load the NATS clients (tests pass a loader that fails).
 * @since 0.1.0
 */
export const makeConsumeCommand =
  (load: () => Promise<NatsClients> = () => loadNatsClients()) =>
  async (argv: ReadonlyArray<string>, io: CliIO): Promise<number> => {
    let parsed
    try {
      parsed = parseArgs({
        args: [...argv],
        allowPositionals: false,
        strict: true,
        options: {
          server: { type: 'string' },
          stream: { type: 'string' },
          subjects: { type: 'string' },
          durable: { type: 'string' },
          results: { type: 'string' },
          state: { type: 'string' },
          format: { type: 'string', default: 'native' },
          partitions: { type: 'string' },
          lease: { type: 'string' },
          'ack-wait': { type: 'string' },
          'max-ack-pending': { type: 'string' },
          replicas: { type: 'string' },
          batch: { type: 'string' },
          progress: { type: 'string' },
          help: { type: 'boolean', short: 'h', default: false },
        },
      })
    } catch (e) {
      io.stderr.write(`run-outcome consume: ${e instanceof Error ? e.message : 'bad arguments'}\nTry 'run-outcome consume --help'.\n`)
      return EXIT.usage
    }
    const v = parsed.values
    if (v.help) {
      io.stdout.write(consumeHelp())
      return EXIT.ok
    }
    const usage = (m: string): number => {
      io.stderr.write(`run-outcome consume: ${m}\nTry 'run-outcome consume --help'.\n`)
      return EXIT.usage
    }
    if (v.format !== 'native') {
      return usage(
        `--format ${String(v.format).slice(0, 40)} is not supported: consume checkpoints the native fold's state after each event, and only the native format's state is serializable; convert vendor logs with replay instead`,
      )
    }
    const server = v.server ?? io.env['NATS_URL']
    if (server === undefined || server.trim() === '') return usage('give the NATS server with --server nats://HOST:PORT (or set NATS_URL)')
    const nums: Record<string, number | undefined> = {}
    for (const [key, min] of [
      ['ack-wait', 0.001],
      ['partitions', 1],
      ['lease', 0.3],
      ['max-ack-pending', 1],
      ['replicas', 1],
      ['batch', 1],
      ['progress', 0],
    ] as const) {
      const n = number(v[key], key, min)
      if (typeof n === 'string') return usage(n)
      nums[key] = n
    }
    let clients: NatsClients
    try {
      clients = await load()
    } catch (e) {
      io.stderr.write(`run-outcome consume: ${e instanceof MissingNatsClientsError ? e.message : `cannot load the NATS clients: ${e instanceof Error ? e.message.slice(0, 200) : 'unknown error'}`}\n`)
      return EXIT.usage
    }
    const progressSeconds = nums['progress'] ?? 5
    let lastWarning = ''
    let worker
    try {
      worker = await startConsumer(
        {
          servers: server,
          ...(v.stream !== undefined ? { stream: v.stream } : {}),
          ...(v.subjects !== undefined ? { subjects: v.subjects } : {}),
          ...(v.durable !== undefined ? { durable: v.durable } : {}),
          ...(v.results !== undefined ? { results: v.results } : {}),
          ...(v.state !== undefined ? { state: v.state } : {}),
          ...(nums['ack-wait'] !== undefined ? { ackWaitMs: nums['ack-wait'] * 1000 } : {}),
          ...(nums['partitions'] !== undefined ? { partitions: nums['partitions'] } : {}),
          ...(nums['lease'] !== undefined ? { leaseMs: nums['lease'] * 1000 } : {}),
          ...(nums['max-ack-pending'] !== undefined ? { maxAckPending: nums['max-ack-pending'] } : {}),
          ...(nums['replicas'] !== undefined ? { replicas: nums['replicas'] } : {}),
          ...(nums['batch'] !== undefined ? { batch: nums['batch'] } : {}),
          progressIntervalMs: progressSeconds * 1000,
          onProgress: (s, final) => io.stderr.write(formatStats(s, final)),
          onWarning: (m) => {
            if (m === lastWarning) return
            lastWarning = m
            io.stderr.write(`run-outcome consume: warning: ${m}\n`)
          },
        },
        clients,
      )
    } catch (e) {
      const message = e instanceof ConsumeSetupError || e instanceof MissingNatsClientsError ? e.message : `cannot start: ${e instanceof Error ? e.message.slice(0, 200) : 'unknown error'}`
      io.stderr.write(`run-outcome consume: ${message}\n`)
      return EXIT.usage
    }
    for (const c of worker.created) io.stderr.write(`run-outcome consume: created ${c}\n`)
    io.stderr.write(`run-outcome consume: worker ${worker.id} consuming; SIGTERM or Ctrl-C stops\n`)
    const w = worker
    let signalled = false
    const removers = (['SIGTERM', 'SIGINT'] as const).map((sig) =>
      io.onSignal?.(sig, () => {
        if (signalled) return
        signalled = true
        void w.stop()
      }),
    )
    try {
      await w.done
      return EXIT.ok
    } catch (e) {
      await w.stop().catch(() => undefined)
      io.stderr.write(`run-outcome consume: ${e instanceof Error ? e.message.slice(0, 200) : 'stopped on an error'}\n`)
      return EXIT.usage
    } finally {
      for (const r of removers) r?.()
    }
  }

/** Runs `consume`; returns the exit status. Never throws. @since 0.1.0 */
export const consumeCommand = makeConsumeCommand()
