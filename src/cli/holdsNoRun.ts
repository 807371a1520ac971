/**
 * The one test of whether a run result is the placeholder of an input that held no run.
 * @module
 */
import type { RunResult } from '../core/RunResult.js'

/**
 * Whether `r` is the placeholder of an input that held no run (SPEC §1: one `unfinished` run): never started, no
 * turn, tool call, token, model or child. `replay` and `stats` use it to tell a copied session's file (all of its
 * records read before, K15) from a run; `stats` applies the same rule to a file's one run record
 * (`stats/aggregate.ts`). Never throws.
 * @internal
 */
export const holdsNoRun = (r: RunResult): boolean => {
  const u = r.usage
  return (
    r.ending.kind === 'unfinished' &&
    r.startedAt === null &&
    r.turns === 0 &&
    r.toolCalls === 0 &&
    r.children.length === 0 &&
    Object.keys(u.byModel).length === 0 &&
    u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens + u.outputTokens + u.reasoningTokens === 0
  )
}
