/**
 * `run-outcome/replay`: the **Replay** category alone (Node: files and streams), with what a caller needs to read
 * the results — the ending helpers (`isSuccess`, `matchEnding`, `endingKinds`, `isEndingKind`), `ProtocolError`,
 * `formatByName` and the result types — and to replay as the CLI does: `SeenRecords` (the files of one input share
 * it, so a resumed Claude Code session's copied records count once) and `bundledEstimator` (the CLI's cost
 * estimates from the bundled genai-prices data, for `ReplayOptions.estimate`).
 *
 * The same values as the package root (each is the root's binding, so `instanceof ProtocolError` holds across
 * the two), but importing this entry never loads RxJS or the operators: a script or a CLI that only replays
 * logs starts ~115 ms sooner (95 ms against 212 ms in `npm run bench`, which prints both import times) and holds
 * ~6 MB less (the root loads the whole vocabulary, operators included). io-ts and fp-ts still load: every format's state codec is built from
 * them. test/types/exports.test.ts lists this entry's exports, and test/package/lazyImports.test.ts checks that
 * importing it loads no RxJS module.
 *
 * @module
 * @since 0.3.0
 */
export {
  replayFile,
  replayRuns,
  type ReplayRunsOptions,
  replayStream,
  ReplayError,
  MAX_DOCUMENT_BYTES,
  type ReplayOptions,
  type ReplayOutcome,
  type ReplayErrorCode,
} from './node/replay.js'
export { listLogFiles, isLogFileName } from './node/files.js'
export { SeenRecords, SEEN_CAP } from './formats/claudeCode/seen.js'
export { bundledEstimator, type BundledEstimatorOptions } from './prices/genaiPrices.js'

// --- reading the results ---
export {
  type RunEnding,
  type Answered,
  type CutOff,
  type Limit,
  type Stopped,
  type Suspended,
  type Blocked,
  type Failed,
  type Unfinished,
  type StoppedBy,
  type PendingItem,
  type EndingError,
  type EndingKind,
  type SuccessPolicy,
  type EndingHandlers,
  endingKinds,
  isEndingKind,
  isSuccess,
  matchEnding,
} from './core/RunEnding.js'
export type {
  RunResult,
  Usage,
  UsageBuckets,
  ModelUsage,
  Cost,
  Diagnostic,
  ChildResult,
  PermissionDenial,
  RunSource,
  FormatName,
} from './core/RunResult.js'
export { ProtocolError, isProtocolError, type ProtocolErrorKind, type ProtocolErrorJSON, type ProtocolErrorFields } from './core/ProtocolError.js'
export type { CostEstimator } from './core/fold.js'
export { formatByName } from './formats/index.js'
