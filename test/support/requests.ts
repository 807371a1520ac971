/**
 * An independent reading of the model requests in raw logs, for checking costs: each request's model and usage
 * in our disjoint buckets, read straight from the records (not through the translators or the fold).
 *
 * - Claude Code transcripts: one request per assistant `message.id` (its last copy: Claude Code writes one record
 *   per content block), in the session file and its `<session>/subagents/*.jsonl`;
 * - Codex rollouts: one request per `token_count` whose running total changed, with its `last_token_usage`
 *   (`input_tokens` includes `cached_input_tokens`; `output_tokens` includes reasoning), under the model of the
 *   latest `turn_context`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { UsageBuckets } from '../../src/core/RunResult.js'

export interface Request {
  readonly model: string
  readonly usage: UsageBuckets
}

const records = (file: string): Array<Record<string, unknown>> =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>]
      } catch {
        return []
      }
    })

const n = (x: unknown): number => (typeof x === 'number' ? x : 0)

/** The requests of a Claude Code session file and its subagent files. */
export const claudeRequests = (sessionFile: string): Array<Request> => {
  const dir = join(sessionFile.replace(/\.jsonl$/, ''), 'subagents')
  const files = [
    sessionFile,
    ...(existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith('.jsonl'))
          .sort()
          .map((f) => join(dir, f))
      : []),
  ]
  const last = new Map<string, Request>()
  for (const f of files) {
    for (const r of records(f)) {
      if (r['type'] !== 'assistant') continue
      const m = r['message'] as Record<string, unknown>
      const u = m['usage'] as Record<string, unknown> | undefined
      if (u === undefined) continue
      last.set(String(m['id']), {
        model: String(m['model']),
        usage: {
          inputTokens: n(u['input_tokens']),
          cacheReadTokens: n(u['cache_read_input_tokens']),
          cacheWriteTokens: n(u['cache_creation_input_tokens']),
          outputTokens: n(u['output_tokens']),
          reasoningTokens: 0,
        },
      })
    }
  }
  return [...last.values()]
}

/** The requests of a Codex rollout. */
export const codexRequests = (file: string): Array<Request> => {
  const out: Array<Request> = []
  let model = 'unknown'
  let prev = ''
  for (const r of records(file)) {
    const p = r['payload'] as Record<string, unknown>
    if (r['type'] === 'turn_context' && typeof p['model'] === 'string') model = p['model']
    if (r['type'] !== 'event_msg' || p['type'] !== 'token_count' || p['info'] === null || p['info'] === undefined) continue
    const info = p['info'] as Record<string, Record<string, unknown>>
    const total = JSON.stringify(info['total_token_usage'])
    if (total === prev) continue
    prev = total
    const u = info['last_token_usage'] as Record<string, unknown>
    out.push({
      model,
      usage: {
        inputTokens: n(u['input_tokens']) - n(u['cached_input_tokens']),
        cacheReadTokens: n(u['cached_input_tokens']),
        cacheWriteTokens: 0,
        outputTokens: n(u['output_tokens']),
        reasoningTokens: n(u['reasoning_output_tokens']),
      },
    })
  }
  return out
}

/** The buckets of some requests, summed. */
export const sumUsage = (rs: ReadonlyArray<Request>): Omit<UsageBuckets, 'reasoningTokens'> =>
  rs.reduce(
    (a, r) => ({
      inputTokens: a.inputTokens + r.usage.inputTokens,
      cacheReadTokens: a.cacheReadTokens + r.usage.cacheReadTokens,
      cacheWriteTokens: a.cacheWriteTokens + r.usage.cacheWriteTokens,
      outputTokens: a.outputTokens + r.usage.outputTokens,
    }),
    { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 },
  )
