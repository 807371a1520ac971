/**
 * `run-outcome consume --server nats://HOST:PORT [options]`: one worker of the per-session fold on NATS
 * JetStream (issue 8; docs/scale-out.md). Runs until SIGTERM or SIGINT, printing progress on stderr.
 * @module
 */
import { parseArgs } from 'node:util'
import { ConsumeSetupError, consumeFormats, startConsumer, type ConsumeStats } from '../jetstream/consumer.js'
import { loadNatsClients, MissingNatsClientsError, type NatsClients } from '../jetstream/clients.js'
import { JETSTREAM_DEFAULTS } from '../jetstream/keys.js'
import { EXIT, type CliIO } from './io.js'
import { reportArgumentError } from './args.js'
import { forTerminal } from './sanitize.js'
import { fitHelp, helpWidth } from './helpText.js'

/** Help text of `consume`. @since 0.1.0 */
export const consumeHelp = (): string => `Usage: run-outcome consume --server nats://HOST:PORT [options]

Folds agent sessions from NATS JetStream, one worker per process; start several to share the work.
Each message carries one record of the session's log (--format; native: one event, SPEC §4) on
agents.<sessionId>.events, stored partitioned as agents.<p>.<sessionId>.events: give nats-server the
mapping "agents.*.events": "agents.{{partition(P,1)}}.{{wildcard(1)}}.events" (or publish the
partitioned subject yourself). When a session's run ends, its RunResult JSON is created in the results
bucket under <sessionId>.<n>. Sessions live in memory; each partition is snapshotted about every second
in the snapshots stream and acknowledged up to there, so a killed worker loses nothing and nothing is
applied twice. Workers share the partitions through leases in the state bucket and take over a silent
worker's partitions after the lease time, from the last snapshot. Missing streams and buckets are
created; existing ones are used as they are. Stops cleanly on SIGTERM or Ctrl-C. See docs/scale-out.md.

Options:
  --server URL             NATS server URL(s), comma-separated (default: $NATS_URL)
  --format NAME            the records' format: ${consumeFormats().join(', ')} (default native)
  --stream NAME            stream of the events (default ${JETSTREAM_DEFAULTS.stream})
  --subjects PATTERN       publishers' subject pattern, one '*' for the session id (default '${JETSTREAM_DEFAULTS.subjects}')
  --durable NAME           prefix of the partitions' consumers and leases (default ${JETSTREAM_DEFAULTS.durable})
  --results BUCKET         KV bucket of the results (default ${JETSTREAM_DEFAULTS.results})
  --state BUCKET           KV bucket of the leases and heartbeats (default ${JETSTREAM_DEFAULTS.state})
  --snapshots STREAM       stream of the partitions' snapshots (default ${JETSTREAM_DEFAULTS.snapshots})
  --partitions N           partitions of the sessions, at least the number of workers you will run; the
                           server's mapping uses the same N; pinned by the first worker (default ${JETSTREAM_DEFAULTS.partitions})
  --lease SECONDS          a silent worker's partitions are taken over after this (default ${JETSTREAM_DEFAULTS.leaseSeconds})
  --snapshot SECONDS       interval of a partition's snapshots (default ${JETSTREAM_DEFAULTS.snapshotSeconds})
  --ack-wait SECONDS       redelivery delay of the partitions' consumers (default ${JETSTREAM_DEFAULTS.ackWaitSeconds})
  --max-ack-pending N      unacknowledged messages per partition (default ${JETSTREAM_DEFAULTS.maxAckPending})
  --max-session-bytes N    bound of one session's checkpoint; past it the run is closed with a
                           diagnostic and the session's fold restarts (default ${JETSTREAM_DEFAULTS.maxSessionBytes})
  --replicas N             replicas of a stream or bucket created now (default 1; 3 on a cluster)
  --batch N                pulls ask for 8×N messages, refilled when 4×N are left (default ${JETSTREAM_DEFAULTS.batch})
  --progress SECONDS       progress line interval on stderr; 0 for none (default 5)
  -h, --help               show this help

Exit status: 0 stopped by a signal; 2 usage error, missing NATS client packages, server unreachable,
the connection lost, or a --format or --partitions other than the deployment's (pinned by its first worker).

Examples:
  nats-server -js -sd /tmp/js -c mapping.conf &
  run-outcome consume --server nats://127.0.0.1:4222
  run-outcome consume --format claude-code --server nats://n1:4222,nats://n2:4222 --replicas 3 --partitions 8
`

/** `1 session`, `2 sessions`. */
const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`

/** A progress line (`final`: the last, at the stop), each count with its noun in the right number. @internal */
export const formatStats = (s: ConsumeStats, final: boolean): string =>
  `run-outcome consume: ${final ? 'stopped after ' : ''}${counted(s.events, 'event')} (${s.eventsPerSecond}/s${final ? ' average' : ''}), ` +
  `${final ? '' : `partitions [${s.partitions.join(',')}] of ${s.partitionCount}, `}` +
  `${counted(s.sessions, 'session')}, ${s.openSessions} open, ${counted(s.resultsWritten, 'result')} written, ${counted(s.protocolErrors, 'protocol error')}, ` +
  `${counted(s.commits, 'snapshot')}, ${counted(s.resyncs, 'resync')}${s.restartedSessions > 0 ? `, ${counted(s.restartedSessions, 'session')} restarted (too large)` : ''}${s.skipped > 0 ? `, ${s.skipped} skipped` : ''}\n`

const number = (text: string | undefined, what: string, min: number): number | string | undefined => {
  if (text === undefined) return undefined
  const n = Number(text)
  if (text.trim() === '' || !Number.isFinite(n) || n < min)
    return `--${what} takes a number${min > 1 ? ` of at least ${min}` : min > 0 ? ' above 0' : ' (0 or more)'}`
  return n
}

/**
 * Makes the `consume` command with a given way to load the NATS clients (tests pass a loader that fails).
 * @since 0.1.0
 */
export const makeConsumeCommand =
  (load: () => Promise<NatsClients> = () => loadNatsClients()) =>
  async (argv: ReadonlyArray<string>, io: CliIO): Promise<number> => {
    const options = {
      server: { type: 'string' },
      stream: { type: 'string' },
      subjects: { type: 'string' },
      durable: { type: 'string' },
      results: { type: 'string' },
      state: { type: 'string' },
      snapshots: { type: 'string' },
      snapshot: { type: 'string' },
      'max-session-bytes': { type: 'string' },
      format: { type: 'string', default: 'native' },
      partitions: { type: 'string' },
      lease: { type: 'string' },
      'ack-wait': { type: 'string' },
      'max-ack-pending': { type: 'string' },
      replicas: { type: 'string' },
      batch: { type: 'string' },
      progress: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    } as const
    let parsed
    try {
      parsed = parseArgs({ args: [...argv], allowPositionals: false, allowNegative: true, strict: true, options })
    } catch (e) {
      reportArgumentError('consume', e, argv, options, io)
      return EXIT.usage
    }
    const v = parsed.values
    if (v.help) {
      io.stdout.write(fitHelp(consumeHelp(), helpWidth(io.stdout, io.env)))
      return EXIT.ok
    }
    const usage = (m: string): number => {
      io.stderr.write(`run-outcome consume: ${forTerminal(m)}\nTry 'run-outcome consume --help'.\n`)
      return EXIT.usage
    }
    if (!consumeFormats().includes(v.format)) {
      return usage(`--format ${String(v.format).slice(0, 40)} is not a format consume reads (one of: ${consumeFormats().join(', ')})`)
    }
    const server = v.server ?? io.env['NATS_URL']
    if (server === undefined || server.trim() === '') return usage('give the NATS server with --server nats://HOST:PORT (or set NATS_URL)')
    const nums: Record<string, number | undefined> = {}
    for (const [key, min] of [
      ['ack-wait', 0.001],
      ['snapshot', 0.01],
      ['max-session-bytes', 1024],
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
      io.stderr.write(
        `run-outcome consume: ${e instanceof MissingNatsClientsError ? e.message : `cannot load the NATS clients: ${e instanceof Error ? e.message.slice(0, 200) : 'unknown error'}`}\n`,
      )
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
          ...(v.snapshots !== undefined ? { snapshots: v.snapshots } : {}),
          format: v.format,
          ...(nums['snapshot'] !== undefined ? { snapshotMs: nums['snapshot'] * 1000 } : {}),
          ...(nums['max-session-bytes'] !== undefined ? { maxSessionBytes: nums['max-session-bytes'] } : {}),
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
            io.stderr.write(`run-outcome consume: warning: ${forTerminal(m)}\n`)
          },
        },
        clients,
      )
    } catch (e) {
      const message =
        e instanceof ConsumeSetupError || e instanceof MissingNatsClientsError
          ? e.message
          : `cannot start: ${e instanceof Error ? e.message.slice(0, 200) : 'unknown error'}`
      io.stderr.write(`run-outcome consume: ${forTerminal(message)}\n`)
      return EXIT.usage
    }
    for (const c of worker.created) io.stderr.write(`run-outcome consume: created ${forTerminal(c)}\n`)
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
      io.stderr.write(`run-outcome consume: ${forTerminal(e instanceof Error ? e.message.slice(0, 200) : 'stopped on an error')}\n`)
      return EXIT.usage
    } finally {
      for (const r of removers) r?.()
    }
  }

/** Runs `consume`; returns the exit status. Never throws. @since 0.1.0 */
export const consumeCommand = makeConsumeCommand()
