/**
 * `run-outcome/core`: everything that runs without Node — the endings and results, the native protocol and its
 * one fold, the fold-state codec, the translator pipeline and every format's translator (through
 * `formats`/`formatByName` and `foldRecords`/`runsFrom`), the RxJS operators, the seed vocabularies and the
 * price helpers.
 *
 * Nothing reachable from this entry imports a `node:` module or touches a Node global, so it bundles for a
 * browser, a worker or an edge runtime (test/package/browser.test.ts bundles it with esbuild
 * `--platform=browser` and runs the bundle in a context without Node's globals). What needs Node — the
 * **Replay** category (`replayRuns`, `replayFile`, `replayStream`, `listLogFiles`) and the CLI — is in the
 * package root (`run-outcome`), which re-exports this module whole (`export *`), so this list is the library's
 * one vocabulary; each export's docstring carries its `@category`. `run-outcome/replay` is the Replay category
 * without the operators (it loads no RxJS); NATS JetStream is `run-outcome/jetstream`.
 * test/types/exports.test.ts lists every export of the four entries. The dependency rules that keep this
 * entry Node-free are in .dependency-cruiser.cjs (`npm run deps`).
 *
 * @module
 * @since 0.3.0
 */

// --- endings and results ---
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
  EqRunEnding,
} from './core/RunEnding.js'
export {
  type RunResult,
  type Usage,
  type UsageBuckets,
  type ModelUsage,
  type Cost,
  type Diagnostic,
  type ChildResult,
  type PermissionDenial,
  type RunSource,
  type FormatName,
  MAX_DIAGNOSTICS,
  NO_MODEL,
} from './core/RunResult.js'
export { ProtocolError, isProtocolError, type ProtocolErrorKind, type ProtocolErrorJSON, type ProtocolErrorFields } from './core/ProtocolError.js'

// --- the native protocol and the fold ---
export { decodeEvent } from './core/decodeEvent.js'
export {
  type SessionEvent,
  type IgnoredEvent,
  type EventEnvelope,
  type KnownEventType,
  type NativeUsage,
  dataCodecs,
  reasonCodecs,
  isKnownEventType,
  PROTOCOL_VERSION,
} from './core/events.js'
export {
  type FoldState,
  type FoldOptions,
  type CostEstimator,
  initialState,
  step,
  currentResult,
  hasOpenRun,
  foldEvents,
  foldRuns,
} from './core/fold.js'
export { resumeFold } from './core/resumeFold.js'
export { endingFromTurnEndReason } from './core/turnEnd.js'
export { RunEndingCodec, FoldStateCodec, encodeFoldState, decodeFoldState } from './core/FoldStateCodec.js'

// --- the pipeline: any format's records → native events → the one fold ---
export type { Translator, TranslatorOptions, Emit } from './core/translator.js'
export { Pipeline, pipelineStateCodec, type PipelineState, type PipelineOptions } from './core/pipeline.js'
export { foldRecords, runsFrom, eventsOf, RecordFolder, FormatError, SNIFF_RECORDS, type RecordOptions } from './formats/records.js'
export type { FormatModule, LineReader, ReaderFactory, ReaderOptions } from './formats/types.js'
export { QUIET_MS } from './formats/types.js'
export { formats, formatByName, detectLines, detectDocument } from './formats/index.js'

// --- operators ---
export { decodeEvents, toSessionEvents, scanRun, reduceRun, runResults, type RunOperatorOptions } from './operators/index.js'

// --- prices ---
export { estimateCost, priceOf, priceTableEstimator, decodePriceTable, PriceTable, ModelPrice } from './core/prices.js'

// --- vocabularies ---
export {
  endingFrom,
  endingFromEither,
  endingTo,
  structuredOutputFrom,
  vocabularySystems,
  isVocabularySystem,
  acpStopReasons,
  type VocabularySystem,
  type VocabularyValues,
  type DeputyStop,
  type DshTurnEndReason,
  type DshAbortReason,
  type DshPendingItem,
  type DshOtherReason,
  type Llm4sStatus,
  type Llm4sPendingInterrupt,
  type SwiftideStopReason,
  type SwiftideToolCall,
  type SwiftideOtherVariant,
  type AcpStopReason,
} from './vocabularies/index.js'
