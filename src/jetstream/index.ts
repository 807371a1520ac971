/**
 * `run-outcome/jetstream`: the per-session fold on NATS JetStream (issue 8).
 *
 * Events of many agent sessions flow through one stream (`agents.<sessionId>.events`, one native event per
 * message); any number of workers started with {@link startConsumer} (or `run-outcome consume`) fold each
 * session with the `runResults()` semantics, checkpoint the fold state per session in a KV bucket, and put each
 * closed run's `RunResult` in another bucket under `<sessionId>.<n>`. Nothing is lost or counted twice when a
 * worker dies; docs/scale-out.md has the design, its limits and measured throughput.
 *
 * The NATS clients (`@nats-io/transport-node`, `@nats-io/jetstream`, `@nats-io/kv`, ^3.4.0) are optional peer
 * dependencies, imported only when a consumer starts ({@link loadNatsClients}).
 *
 * @example
 * import { startConsumer } from 'run-outcome/jetstream'
 * const worker = await startConsumer({ servers: 'nats://127.0.0.1:4222', onProgress: (s) => console.error(s) })
 * process.on('SIGTERM', () => void worker.stop())
 * await worker.done
 * @module
 */
export {
  startConsumer,
  ConsumeSetupError,
  type ConsumeOptions,
  type ConsumeStats,
  type RunningConsumer,
} from './consumer.js'
export {
  applyMessage,
  newCheckpoint,
  cloneCheckpoint,
  encodeCheckpoint,
  decodeCheckpoint,
  SessionCheckpointCodec,
  type SessionCheckpoint,
  type Applied,
} from './checkpoint.js'
export {
  JETSTREAM_DEFAULTS,
  sessionTokenIndex,
  sessionFromSubject,
  subjectForSession,
  sessionKey,
  sessionIdOfKey,
  resultKey,
  isValidName,
} from './keys.js'
export { partitionOf, partitionDurable, leaseKey, workersKey, configKey, rebalance, StalenessTracker, type PartitionView } from './partitions.js'
export {
  loadNatsClients,
  MissingNatsClientsError,
  NATS_PACKAGES,
  NATS_VERSION_RANGE,
  type NatsClients,
  type NatsPackage,
  type PackageImporter,
} from './clients.js'
