/**
 * What the Claude Code transcript translator reads of a record (`transcript.ts`, `shared.ts`), as a skim
 * (`src/formats/skim/skim.ts`): the envelope's flags and ids, the message's model, id, usage, stop reason and error holders,
 * and of each content block its type, text, ids, tool name and error flag. Left out (never read as UTF-8): thinking and
 * its signature, tool results' content (kept only for a result that says `is_error`, whose text can become a
 * child's error message), tool calls' input (kept only for the tools that ask the person, whose input becomes a
 * pending item's arguments), `toolUseResult` beyond its `status` and `agentId`, images, and every envelope field
 * the translator never reads (cwd, git branch, version, …).
 *
 * Only transcripts are skimmed: stream-json records, and the first record (which decides the shape), are parsed
 * whole.
 *
 * @module
 * @internal
 */
import { compileSkim, type CompiledSkim, type SkimSpec } from '../skim/skim.js'
import { INTERACTIVE_TOOLS } from './shared.js'

/** Keys of an object that may hold a provider error in place of a message (K25, `providerErrorOf`). */
const ERROR_HOLDER: SkimSpec = { __type: true, message: true, Message: true }

/** A content block (assistant or user message; an array of them, or a string, is kept the same way). */
const BLOCK: SkimSpec = {
  type: true,
  text: true,
  id: true,
  name: true,
  tool_use_id: true,
  is_error: true,
  input: { when: 'name', in: [...INTERACTIVE_TOOLS.keys()], keep: true },
  content: { when: 'is_error', in: [true], keep: true },
}

const MESSAGE: SkimSpec = {
  content: BLOCK,
  model: true,
  id: true,
  usage: true,
  stop_reason: true,
  Output: ERROR_HOLDER,
  output: ERROR_HOLDER,
  __type: true,
  message: true,
  Message: true,
}

/** The transcript record's fields the translator reads. @internal */
export const TRANSCRIPT_SKIM: CompiledSkim = compileSkim({
  type: true,
  sessionId: true,
  timestamp: true,
  uuid: true,
  requestId: true,
  message: MESSAGE,
  isSidechain: true,
  agentId: true,
  isMeta: true,
  isCompactSummary: true,
  isVisibleInTranscriptOnly: true,
  isApiErrorMessage: true,
  error: true,
  toolUseResult: { status: true, agentId: true },
  attachment: { type: true, maxTurns: true, max_turns: true, turnCount: true, turn_count: true },
  subtype: true,
  preventedContinuation: true,
  stopReason: true,
})
