/**
 * run-outcome: how did this agent run end, and what did it produce?
 *
 * The package root re-exports the public API by area. Each area owns its own section below.
 * @module
 */

// --- core: endings and results ---
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
} from './core/RunResult.js'
export {
  ProtocolError,
  isProtocolError,
  type ProtocolErrorKind,
  type ProtocolErrorJSON,
  type ProtocolErrorFields,
} from './core/ProtocolError.js'

// --- core: native protocol ---
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
} from './core/events.js'
export {
  type FoldState,
  type FoldOptions,
  type NativeRunState,
  type SeqMemory,
  type CostEstimator,
  SEQ_WINDOW,
  initialState,
  step,
  currentResult,
  hasOpenRun,
  foldEvents,
  foldRuns,
} from './core/fold.js'
export { resumeFold } from './core/resumeFold.js'
export { endingFromTurnEndReason } from './core/turnEnd.js'
export {
  RunEndingCodec,
  RunDraftCodec,
  FoldStateCodec,
  encodeFoldState,
  decodeFoldState,
} from './core/FoldStateCodec.js'

// --- core: the pipeline (any format's records → native events → the one fold) ---
export type { Translator, TranslatorOptions, Emit } from './core/translator.js'
export { Pipeline, pipelineStateCodec, type PipelineState, type PipelineOptions } from './core/pipeline.js'
export { PROTOCOL_VERSION } from './core/events.js'
export { foldRecords, runsFrom, eventsOf, RecordFolder, FormatError, SNIFF_RECORDS, type RecordOptions } from './formats/records.js'

// --- operators ---
export { decodeEvents, toSessionEvents, scanRun, reduceRun, runResults, type RunOperatorOptions } from './operators/index.js'

// --- formats and replay ---
export type { FormatModule, LineReader, ReaderFactory, ReaderOptions } from './formats/types.js'
export { QUIET_MS } from './formats/types.js'
export { formats, formatByName, detectLines, detectDocument } from './formats/index.js'
export { nativeFormat, nativeReader } from './formats/native.js'
export {
  claudeCodeFormat,
  createClaudeCodeReader,
  sniffClaudeCodeLines,
  sniffClaudeCodeDocument,
  type ClaudeCodeLineReader,
  type ClaudeCodeReaderOptions,
} from './formats/claudeCode.js'
export { codexFormat, codexReader } from './formats/codex.js'
export { geminiFormat, geminiReader, readGeminiDocument } from './formats/gemini.js'
export { aiSdkFormat, aiSdkReader, readAiSdkDocument } from './formats/aiSdk.js'
export { openaiAgentsFormat, openaiAgentsReader, readOpenAiAgentsDocument } from './formats/openaiAgents.js'
export { acpFormat, acpReader, endingOfStopReason as acpEndingOfStopReason } from './formats/acp.js'
export { subagentFilesOf, attachSubagents } from './node/claudeSubagents.js'
export { listLogFiles, isLogFileName } from './node/files.js'
export {
  estimateCost,
  priceOf,
  decodePriceTable,
  PriceTable,
  ModelPrice,
} from './core/prices.js'
export {
  replayFile,
  replayStream,
  ReplayError,
  MAX_DOCUMENT_BYTES,
  type ReplayOptions,
  type ReplayOutcome,
  type ReplayErrorCode,
} from './node/replay.js'

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
