/**
 * What the Codex rollout translator reads of a record (`rollout.ts`, `shared.ts`), as a skim (`src/formats/skim/skim.ts`):
 * the record's type and time, and of its payload the type, ids, model, reason, duration, the last agent message,
 * errors, the token count's `total_token_usage` and the text parts of assistant messages. Left out (never read as UTF-8):
 * tool call arguments and outputs, reasoning (and its encrypted content), user and developer messages' content,
 * session instructions, `last_token_usage` and rate limits, compaction summaries.
 *
 * Only rollouts are skimmed: `codex exec --json` records, and the first record (which decides the shape), are
 * parsed whole.
 *
 * @module
 * @internal
 */
import { compileSkim, type CompiledSkim, type SkimSpec } from '../skim/skim.js'

/** A part of a message's content (`output_text` / `text`), or the content when it is a string. */
const PART: SkimSpec = { type: true, text: true }

/** The rollout record's fields the translator reads. @internal */
export const ROLLOUT_SKIM: CompiledSkim = compileSkim({
  type: true,
  timestamp: true,
  payload: {
    type: true,
    role: true,
    id: true,
    call_id: true,
    name: true,
    turn_id: true,
    model: true,
    reason: true,
    duration_ms: true,
    started_at: true,
    forked_from_id: true,
    timestamp: true,
    last_agent_message: true,
    error: true,
    codex_error_info: true,
    thread_settings: { model: true },
    info: { total_token_usage: true },
    item: { type: true, content: { when: 'type', in: ['AgentMessage'], keep: PART } },
    message: { when: 'type', in: ['agent_message', 'error'], keep: true },
    content: { when: 'role', in: ['assistant'], keep: PART },
  },
})
