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

// --- operators ---

// --- formats and replay ---

// --- vocabularies ---
