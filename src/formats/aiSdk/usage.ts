/**
 * Token usage as the Vercel AI SDK and the raw provider streams it wraps report it, turned into the disjoint
 * buckets of SPEC §3 (input not served from cache, cache reads, cache writes, output including reasoning).
 *
 * Sources: `ai@5` `LanguageModelUsage` (`inputTokens` includes `cachedInputTokens`; `outputTokens` includes
 * `reasoningTokens`), `ai@6` (adds `inputTokenDetails{noCacheTokens,cacheReadTokens,cacheWriteTokens}` and
 * `outputTokenDetails{textTokens,reasoningTokens}`), `ai@4` (`promptTokens`, `completionTokens`), the
 * Anthropic Messages stream (`input_tokens` etc. already disjoint) and the OpenAI Responses / Chat
 * Completions streams (`input_tokens` / `prompt_tokens` include `cached_tokens`).
 *
 * @module
 */
import type { UsageInput } from '../../core/RunResult.js'
import { isObject, type Obj } from '../json.js'

/** A usage read from a record: the buckets (tokens), and flags for the reader's diagnostics. @internal */
export interface UsageRead {
  readonly usage: UsageInput
  /** A count had a type other than number (it was ignored). */
  readonly badType: boolean
  /** The cached count exceeded the input count, so the input was read as already excluding the cache. */
  readonly cacheExceedsInput: boolean
}

/** Usage buckets being filled in (a writable `UsageInput`). */
type Writable = { -readonly [K in keyof UsageInput]: UsageInput[K] }

class Counts {
  badType = false
  num(o: Obj | undefined, k: string): number | undefined {
    if (o === undefined) return undefined
    const v = o[k]
    if (typeof v === 'number') return v
    if (v !== undefined && v !== null) this.badType = true
    return undefined
  }
}

const put = (u: Writable, k: keyof UsageInput, v: number | undefined): void => {
  if (v !== undefined) u[k] = v
}

const clampSub = (a: number, b: number): number => Math.max(a - b, 0)

/**
 * Writes `inputTokens` for an input count that includes the cached tokens: the input less the cached part.
 * When the cached count exceeds the input, the input is read as already excluding it: written as given, and
 * `true` is returned (the caller flags `cacheExceedsInput`).
 */
const putUncachedInput = (out: Writable, input: number | undefined, cached: number | undefined): boolean => {
  if (input !== undefined && cached !== undefined && cached > input) {
    put(out, 'inputTokens', input)
    return true
  }
  put(out, 'inputTokens', input === undefined ? undefined : clampSub(input, cached ?? 0))
  return false
}

/**
 * An AI SDK usage object (`finish-step.usage`, `finish.totalUsage`; v4, v5 or v6 shape) in disjoint buckets.
 * v6 (any `*TokenDetails` object present): input = `noCacheTokens`, else `inputTokens − cacheRead − cacheWrite`.
 * v5: input = `inputTokens − cachedInputTokens` (when the cached count exceeds the input count the input is
 * taken as already excluding it, flagged). Output is `outputTokens` (reasoning included), reasoning copied.
 * @internal
 */
export const readAiSdkUsage = (u: Obj): UsageRead => {
  const c = new Counts()
  const out: Writable = {}
  let cacheExceedsInput = false
  const inDetails = isObject(u['inputTokenDetails']) ? u['inputTokenDetails'] : undefined
  const outDetails = isObject(u['outputTokenDetails']) ? u['outputTokenDetails'] : undefined
  let inputTotal = c.num(u, 'inputTokens')
  let output = c.num(u, 'outputTokens')
  if (inputTotal === undefined && output === undefined) {
    // ai@4: promptTokens / completionTokens (no cache split)
    inputTotal = c.num(u, 'promptTokens')
    output = c.num(u, 'completionTokens')
  }
  const legacyCached = c.num(u, 'cachedInputTokens')
  if (inDetails !== undefined || outDetails !== undefined) {
    const cacheRead = c.num(inDetails, 'cacheReadTokens') ?? legacyCached
    const cacheWrite = c.num(inDetails, 'cacheWriteTokens')
    const noCache = c.num(inDetails, 'noCacheTokens')
    put(out, 'inputTokens', noCache ?? (inputTotal === undefined ? undefined : clampSub(inputTotal, (cacheRead ?? 0) + (cacheWrite ?? 0))))
    put(out, 'cacheReadTokens', cacheRead)
    put(out, 'cacheWriteTokens', cacheWrite)
    if (output === undefined) {
      const textT = c.num(outDetails, 'textTokens')
      const reasonT = c.num(outDetails, 'reasoningTokens')
      if (textT !== undefined || reasonT !== undefined) output = (textT ?? 0) + (reasonT ?? 0)
    }
    put(out, 'outputTokens', output)
    put(out, 'reasoningTokens', c.num(outDetails, 'reasoningTokens') ?? c.num(u, 'reasoningTokens'))
  } else {
    cacheExceedsInput = putUncachedInput(out, inputTotal, legacyCached)
    put(out, 'cacheReadTokens', legacyCached)
    put(out, 'outputTokens', output)
    put(out, 'reasoningTokens', c.num(u, 'reasoningTokens'))
  }
  return { usage: out, badType: c.badType, cacheExceedsInput }
}

/**
 * Anthropic Messages stream usage (`message_start.message.usage`, `message_delta.usage`): already disjoint,
 * copied. `prev` is the usage read so far for the same message; a later record's counts replace it field by
 * field (the `message_delta` counts are cumulative).
 * @internal
 */
export const readAnthropicUsage = (u: Obj, prev: UsageInput | undefined): UsageRead => {
  const c = new Counts()
  const out: Writable = { ...prev }
  put(out, 'inputTokens', c.num(u, 'input_tokens'))
  put(out, 'cacheReadTokens', c.num(u, 'cache_read_input_tokens'))
  put(out, 'cacheWriteTokens', c.num(u, 'cache_creation_input_tokens'))
  put(out, 'outputTokens', c.num(u, 'output_tokens'))
  return { usage: out, badType: c.badType, cacheExceedsInput: false }
}

/**
 * OpenAI usage: Responses (`input_tokens`, `input_tokens_details.cached_tokens`, `output_tokens`,
 * `output_tokens_details.reasoning_tokens`) or Chat/Completions (`prompt_tokens`, `prompt_tokens_details`,
 * `completion_tokens`, `completion_tokens_details`). The input count includes the cached tokens: subtracted.
 * @internal
 */
export const readOpenAiUsage = (u: Obj): UsageRead => {
  const c = new Counts()
  const out: Writable = {}
  const responses = 'input_tokens' in u || 'output_tokens' in u
  const input = c.num(u, responses ? 'input_tokens' : 'prompt_tokens')
  const inD = u[responses ? 'input_tokens_details' : 'prompt_tokens_details']
  const outD = u[responses ? 'output_tokens_details' : 'completion_tokens_details']
  const cached = c.num(isObject(inD) ? inD : undefined, 'cached_tokens')
  const cacheExceedsInput = putUncachedInput(out, input, cached)
  put(out, 'cacheReadTokens', cached)
  put(out, 'outputTokens', c.num(u, responses ? 'output_tokens' : 'completion_tokens'))
  put(out, 'reasoningTokens', c.num(isObject(outD) ? outD : undefined, 'reasoning_tokens'))
  return { usage: out, badType: c.badType, cacheExceedsInput }
}
