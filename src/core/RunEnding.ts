/**
 * How a run ended: the closed `RunEnding` union of SPEC §2, discriminated by `kind`.
 *
 * The eight kinds unify the seed systems' vocabularies (deputy's `RunEnding`, the harness's `turn/end`
 * reasons, llm4s' `AgentStatus`, swiftide's `StopReason`) and the real tools' terminal records. A host can
 * `switch` on `kind` exhaustively, or use {@link matchEnding}. Only `answered` counts as success unless a
 * policy widens it ({@link isSuccess}).
 *
 * @module
 */
import type { Eq } from 'fp-ts/lib/Eq.js'

/** Who stopped a run (SPEC §2 `stopped.by`); other strings may come from a seed vocabulary. @since 0.1.0 @category Endings */
export type StoppedBy = 'caller' | 'hook' | 'permission' | 'parent' | 'delegation' | 'abandoned' | (string & { readonly __stoppedBy?: never })

/**
 * One item a suspended run waits on (SPEC §2 `suspended.pending[]`).
 * `kind` is `approval`, `question` or another system's own word; `arguments` is the tool call's
 * arguments as the source gave them (parsed JSON when the source gave JSON text that parses).
 * @since 0.1.0
 * @category Endings
 */
export interface PendingItem {
  readonly id: string
  readonly kind: 'approval' | 'question' | (string & { readonly __pendingKind?: never })
  readonly toolName?: string
  readonly arguments?: unknown
  readonly reason?: string
}

/** The error that ended a failed run: a message, and the code or class name when the source gave one. @since 0.1.0 @category Endings */
export interface EndingError {
  readonly message: string
  readonly code?: string | number
  readonly name?: string
}

/** `answered`: the model finished its answer (a stop tool with a payload counts too). @since 0.1.0 @category Endings */
export interface Answered {
  readonly kind: 'answered'
}
/**
 * `cut_off`: the provider cut the answer short; `finishReason` is `max_tokens`, `context_window`, `content_filter`, `refusal` or the provider's own string. @since 0.1.0
 * @category Endings
 */
export interface CutOff {
  readonly kind: 'cut_off'
  readonly finishReason: string
}
/** `limit`: a configured limit was reached. `actual` is `null` when the figure is unknown (deputy's `cost_unavailable`). @since 0.1.0 @category Endings */
export interface Limit {
  readonly kind: 'limit'
  readonly reason: string
  readonly field?: string
  readonly actual?: number | null
  readonly limit?: number
}
/** `stopped`: someone or something stopped the run; `by` credits the stopper whatever `reason` says. @since 0.1.0 @category Endings */
export interface Stopped {
  readonly kind: 'stopped'
  readonly by: StoppedBy
  readonly reason?: string
}
/** `suspended`: waiting for a person; resumable. @since 0.1.0 @category Endings */
export interface Suspended {
  readonly kind: 'suspended'
  readonly pending: ReadonlyArray<PendingItem>
}
/** `blocked`: a guardrail or policy refused the turn. @since 0.1.0 @category Endings */
export interface Blocked {
  readonly kind: 'blocked'
  readonly guardrail?: string
  readonly phase?: 'input' | 'output'
  readonly reason?: string
}
/**
 * `failed`: an error ended the run. `reason` is `error`, `provider_error`, `agent_failed`, `unrecognized`, …; `raw` keeps an unrecognised value. @since 0.1.0
 * @category Endings
 */
export interface Failed {
  readonly kind: 'failed'
  readonly reason: string
  readonly phase?: string
  readonly error?: EndingError
  readonly raw?: unknown
}
/** `unfinished`: the stream or log ended with no terminal event (truncated, crashed, still running). @since 0.1.0 @category Endings */
export interface Unfinished {
  readonly kind: 'unfinished'
  readonly lastEventType?: string
}

/**
 * How a run ended (SPEC §2). Closed union discriminated by `kind`.
 * @since 0.1.0
 * @category Endings
 */
export type RunEnding = Answered | CutOff | Limit | Stopped | Suspended | Blocked | Failed | Unfinished

/** Every `RunEnding['kind']`, in SPEC §2's order. @since 0.1.0 @category Endings */
export const endingKinds = ['answered', 'cut_off', 'limit', 'stopped', 'suspended', 'blocked', 'failed', 'unfinished'] as const satisfies ReadonlyArray<
  RunEnding['kind']
>

/** A `RunEnding` kind. @since 0.1.0 @category Endings */
export type EndingKind = RunEnding['kind']

/** Type guard for an ending kind name (for CLI flags such as `--accept cut_off`). @since 0.1.0 @category Endings */
export const isEndingKind = (u: unknown): u is EndingKind => typeof u === 'string' && (endingKinds as ReadonlyArray<string>).includes(u)

/**
 * A success policy: the ending kinds that count as success besides `answered` (SPEC §2 rule 5).
 * @since 0.1.0
 * @category Endings
 */
export interface SuccessPolicy {
  readonly accept?: ReadonlyArray<EndingKind>
}

/**
 * `true` for `answered`, and for any kind the policy accepts (e.g. `{ accept: ['cut_off'] }`).
 * Truncation, limits, stops and unfinished runs are not success by default (SPEC §2 rule 5, deputy's
 * `result_is_success`, the harness's headless exit status).
 * @since 0.1.0
 * @category Endings
 */
export const isSuccess = (ending: RunEnding, policy?: SuccessPolicy): boolean => ending.kind === 'answered' || (policy?.accept?.includes(ending.kind) ?? false)

/** Handlers for {@link matchEnding}, one per kind. @since 0.1.0 @category Endings */
export interface EndingHandlers<A> {
  readonly answered: (e: Answered) => A
  readonly cut_off: (e: CutOff) => A
  readonly limit: (e: Limit) => A
  readonly stopped: (e: Stopped) => A
  readonly suspended: (e: Suspended) => A
  readonly blocked: (e: Blocked) => A
  readonly failed: (e: Failed) => A
  readonly unfinished: (e: Unfinished) => A
}

/**
 * Exhaustive pattern match on a `RunEnding`: the compiler requires a handler for every kind.
 * @example matchEnding(e, { answered: () => 'ok', cut_off: (c) => c.finishReason, … })
 * @since 0.1.0
 * @category Endings
 */
export const matchEnding = <A>(ending: RunEnding, handlers: EndingHandlers<A>): A => {
  switch (ending.kind) {
    case 'answered':
      return handlers.answered(ending)
    case 'cut_off':
      return handlers.cut_off(ending)
    case 'limit':
      return handlers.limit(ending)
    case 'stopped':
      return handlers.stopped(ending)
    case 'suspended':
      return handlers.suspended(ending)
    case 'blocked':
      return handlers.blocked(ending)
    case 'failed':
      return handlers.failed(ending)
    case 'unfinished':
      return handlers.unfinished(ending)
  }
}

const RESPONSE_KEPT: EndingHandlers<boolean> = {
  answered: () => true,
  cut_off: () => true,
  limit: () => false,
  stopped: () => false,
  suspended: () => false,
  blocked: () => false,
  failed: () => false,
  unfinished: () => false,
}

/**
 * Whether a run that ended this way keeps its final text as `RunResult.response` (SPEC §3): `answered` and
 * `cut_off` do (a cut-off answer is still the model's text, and its ending says it was cut); every other kind
 * has `response: null`, so the partial text of a stopped, limited, suspended, blocked, failed or unfinished run
 * is never presented as an answer (SPEC §2 rule 2; K2, K10, K18). The one place this rule is decided: the fold
 * and the checks of the tests ask here.
 * @example keepsResponse({ kind: 'cut_off', finishReason: 'max_tokens' }) // => true
 * @example keepsResponse({ kind: 'stopped', by: 'caller' }) // => false
 * @since 0.3.0
 */
export const keepsResponse = (ending: RunEnding): boolean => matchEnding(ending, RESPONSE_KEPT)

/**
 * Structural equality of JSON-like values (plain objects, arrays, primitives). Own enumerable keys only;
 * `undefined`-valued keys count as absent. Iterative, so deeply nested `raw` values cannot overflow the stack.
 * @internal
 */
export const jsonEqual = (a: unknown, b: unknown): boolean => {
  const stack: Array<[unknown, unknown]> = [[a, b]]
  while (stack.length > 0) {
    const [x, y] = stack.pop() as [unknown, unknown]
    if (Object.is(x, y)) continue
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false
    if (Array.isArray(x) !== Array.isArray(y)) return false
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) return false
      for (let i = 0; i < x.length; i++) stack.push([x[i], y[i]])
      continue
    }
    const xo = x as Record<string, unknown>
    const yo = y as Record<string, unknown>
    const xk = Object.keys(xo).filter((k) => xo[k] !== undefined)
    const yk = Object.keys(yo).filter((k) => yo[k] !== undefined)
    if (xk.length !== yk.length) return false
    for (const k of xk) {
      if (!Object.hasOwn(yo, k)) return false
      stack.push([xo[k], yo[k]])
    }
  }
  return true
}

/**
 * fp-ts `Eq` for `RunEnding`: value equality, field by field (an absent field equals an `undefined` one).
 * @since 0.1.0
 * @category Endings
 */
export const EqRunEnding: Eq<RunEnding> = { equals: (x, y) => jsonEqual(x, y) }
