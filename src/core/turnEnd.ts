/**
 * The harness's `turn/end` reason → `RunEnding` table (SPEC §4, seed 002), shared by the native fold and
 * the `dsh` vocabulary. The input must already have passed the decoder's reason validation.
 *
 * @module
 */
import type { PendingItem, RunEnding, StoppedBy } from './RunEnding.js'
import { isObject } from './values.js'

const str = (u: unknown): string | undefined => (typeof u === 'string' ? u : undefined)

/** `aborted.reason.kind` → who stopped: `user`/`legacy` → caller, `parent`, `hook`, `disposed` → abandoned; protocol 2 adds `permission` and `delegation`. */
const abortedBy = (kind: string | undefined): StoppedBy => {
  switch (kind) {
    case 'parent':
      return 'parent'
    case 'hook':
      return 'hook'
    case 'disposed':
      return 'abandoned'
    case 'permission':
      return 'permission'
    case 'delegation':
      return 'delegation'
    default:
      // 'user', 'legacy' and sub-kinds the table does not name: the caller cancelled
      return 'caller'
  }
}

const cutOffKinds: Readonly<Record<string, string>> = {
  'max-tokens': 'max_tokens',
  refusal: 'refusal',
  'context-window': 'context_window',
  'content-filter': 'content_filter',
}

/**
 * Maps a `turn/end` reason `{ kind, … }` to its ending (SPEC §4 table): `completed` → answered; `max-tokens`,
 * `refusal`, `context-window`, `content-filter` → cut_off; `aborted` → stopped (by caller/parent/hook/abandoned);
 * `blocked`, `limit`, `suspended` → their kinds; `error` → failed `error`; `interrupted` → failed `interrupted`;
 * protocol 2's `cut-off` → cut_off with its `finishReason`, `failed` → failed with its fields, `unfinished` →
 * unfinished; any other kind → failed `unrecognized` with the raw kind in `raw`. Never throws.
 * @since 0.1.0
 * @category Native protocol
 */
export const endingFromTurnEndReason = (reason: Readonly<Record<string, unknown>>): RunEnding => {
  const kind = typeof reason['kind'] === 'string' ? reason['kind'] : ''
  const cut = Object.hasOwn(cutOffKinds, kind) ? cutOffKinds[kind] : undefined
  if (cut !== undefined) return { kind: 'cut_off', finishReason: cut }
  switch (kind) {
    case 'completed':
      return { kind: 'answered' }
    case 'aborted': {
      const sub = isObject(reason['reason']) ? reason['reason'] : undefined
      const text = str(sub?.['reason'])
      return { kind: 'stopped', by: abortedBy(str(sub?.['kind'])), ...(text !== undefined ? { reason: text } : {}) }
    }
    case 'blocked': {
      const guardrail = str(reason['guardrail'])
      const phase = reason['phase']
      const message = str(reason['message'])
      return {
        kind: 'blocked',
        ...(guardrail !== undefined ? { guardrail } : {}),
        ...(phase === 'input' || phase === 'output' ? { phase } : {}),
        ...(message !== undefined ? { reason: message } : {}),
      }
    }
    case 'limit': {
      const field = str(reason['field'])
      const actual = reason['actual']
      const limit = reason['limit']
      return {
        kind: 'limit',
        reason: str(reason['reason']) ?? 'limit',
        ...(field !== undefined ? { field } : {}),
        ...(typeof actual === 'number' || actual === null ? { actual } : {}),
        ...(typeof limit === 'number' ? { limit } : {}),
      }
    }
    case 'suspended': {
      const items = Array.isArray(reason['pending']) ? reason['pending'] : []
      const pending: Array<PendingItem> = []
      for (const p of items) {
        if (!isObject(p)) continue
        const toolName = str(p['toolName'])
        const r = str(p['reason'])
        pending.push({
          id: str(p['id']) ?? '',
          kind: str(p['kind']) ?? 'approval',
          ...(toolName !== undefined ? { toolName } : {}),
          ...(p['arguments'] !== undefined ? { arguments: p['arguments'] } : {}),
          ...(r !== undefined ? { reason: r } : {}),
        })
      }
      return { kind: 'suspended', pending }
    }
    case 'error': {
      const err = isObject(reason['error']) ? reason['error'] : {}
      const code = err['code']
      const name = str(err['name'])
      return {
        kind: 'failed',
        reason: 'error',
        error: {
          message: str(err['message']) ?? 'error',
          ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
          ...(name !== undefined ? { name } : {}),
        },
      }
    }
    case 'interrupted':
      return { kind: 'failed', reason: 'interrupted' }
    case 'cut-off':
      return { kind: 'cut_off', finishReason: str(reason['finishReason']) ?? 'unknown' }
    case 'failed': {
      const err = isObject(reason['error']) ? reason['error'] : undefined
      const phase = str(reason['phase'])
      const code = err?.['code']
      const name = str(err?.['name'])
      return {
        kind: 'failed',
        reason: str(reason['reason']) ?? 'error',
        ...(phase !== undefined ? { phase } : {}),
        ...(err !== undefined
          ? {
              error: {
                message: str(err['message']) ?? 'error',
                ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
                ...(name !== undefined ? { name } : {}),
              },
            }
          : {}),
        ...(reason['raw'] !== undefined ? { raw: reason['raw'] } : {}),
      }
    }
    case 'unfinished': {
      const last = str(reason['lastEventType'])
      return last !== undefined ? { kind: 'unfinished', lastEventType: last } : { kind: 'unfinished' }
    }
    default:
      return { kind: 'failed', reason: 'unrecognized', raw: kind }
  }
}
