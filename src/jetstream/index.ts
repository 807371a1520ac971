/**
 * `run-outcome/jetstream`: the per-session fold on NATS JetStream at platform speed (issues 8 and 17).
 *
 * Records of many agent sessions flow through one stream, partitioned on the subject
 * (`agents.<p>.<sessionId>.events`, one record of the deployment's format per message); any number of
 * workers started with {@link startConsumer} (or `run-outcome consume`) share the partitions, fold each
 * session in memory with the live pipeline of its format, snapshot each partition about every second in a
 * compare-and-set log, and create each closed run's `RunResult` once in a KV bucket under `<sessionId>.<n>`.
 * Nothing is lost or counted twice when a worker dies; docs/scale-out.md has the design, its limits and
 * measured throughput.
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
  consumeFormats,
  ConsumeSetupError,
  type ConsumeOptions,
  type ConsumeStats,
  type RunningConsumer,
} from './consumer.js'
export { SessionFold, decodeCheckpoint, sessionCheckpointCodec, type SessionCheckpoint, type OnClosed } from './checkpoint.js'
export {
  readSnapshotHead,
  readSnapshotLines,
  sliceText,
  SnapshotWriter,
  SnapshotFencedError,
  type SnapshotCommit,
  type SnapshotHead,
} from './snapshot.js'
export {
  JETSTREAM_DEFAULTS,
  sessionTokenIndex,
  sessionFromSubject,
  subjectForSession,
  partitionedPattern,
  partitionFilter,
  partitionedSubjectFor,
  parsePartitionedSubject,
  serverMapping,
  snapshotSubject,
  tenureConsumer,
  sessionKey,
  sessionIdOfKey,
  resultKey,
  isValidName,
} from './keys.js'
export { partitionOf, leaseKey, workersKey, configKey, rebalance, StalenessTracker, type PartitionView } from './partitions.js'
export {
  loadNatsClients,
  MissingNatsClientsError,
  NATS_PACKAGES,
  NATS_VERSION_RANGE,
  type NatsClients,
  type NatsPackage,
  type PackageImporter,
} from './clients.js'
