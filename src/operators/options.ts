/**
 * Options shared by the run operators, and the small helpers they share.
 * @module
 */
import { catchError, EMPTY, type Observable } from 'rxjs'
import { currentResult, streamFailedResult, type FoldState } from '../core/fold.js'
import type { RunResult, FormatName } from '../core/RunResult.js'
import { RecordFolder } from '../formats/records.js'

/** Options of `reduceRun()` and `runResults()`; `scanRun()` takes its `format` and `messageId`. @since 0.1.0 @category Operators */
export interface RunOperatorOptions {
  /**
   * The format of the values: `native` events (the default, decoded and validated as SPEC §4 says), any
   * `--format` name (`claude-code`, `codex`, `gemini`, `ai-sdk`, `openai-agents`, `acp`), or `auto` (detected
   * from the first values). With a format, values are that format's records — the objects its SDK yields, or
   * lines of its log as strings — translated into native events first (SPEC §6).
   */
  readonly format?: FormatName | 'auto'
  /** Seed 002's owned interval: open at the receipt that inserted this message id, close at the root idle. */
  readonly messageId?: string
  /**
   * `reduceRun()` and `runResults()` only (`scanRun()` takes `format` and `messageId`, and passes a source error
   * on: every state before it was emitted). What a source error does: `'error'` (default) passes it on
   * untouched; `'fail'` ends the open run as `failed { reason: 'error', phase: 'stream' }` with the error's
   * message, emits it, and completes. A run whose ending record arrived before the error (a Claude Code
   * `result`, a Codex `turn.completed`) is no open run: it is emitted as it ended, never as failed.
   * A `ProtocolError` from the input itself is always an error notification.
   */
  readonly sourceError?: 'error' | 'fail'
}

const messageOf = (e: unknown): string => {
  if (e instanceof Error) return e.message
  return typeof e === 'string' ? e : 'the source stream failed'
}

/** The open run, ended as `failed` in phase `stream` by a source error. @internal */
export const failedByStream = (s: FoldState, error: unknown): RunResult => {
  const name = error instanceof Error ? error.name : undefined
  return streamFailedResult(s, { message: messageOf(error), ...(name !== undefined ? { name } : {}) })
}

/**
 * The source as the run operators read it: with `sourceError: 'fail'`, a source error completes the input
 * and is kept in `streamError.error` (as `{ value }`) for the operator to end the open run with; otherwise the
 * source unchanged, so its error passes on.
 * @internal
 */
export const catchSourceError = (
  source: Observable<unknown>,
  options: RunOperatorOptions,
): { readonly input: Observable<unknown>; readonly streamError: { error: { readonly value: unknown } | undefined } } => {
  const streamError: { error: { readonly value: unknown } | undefined } = { error: undefined }
  if (options.sourceError !== 'fail') return { input: source, streamError }
  const input = source.pipe(
    catchError((value: unknown) => {
      streamError.error = { value }
      return EMPTY
    }),
  )
  return { input, streamError }
}

/**
 * The record folder of an operator whose values are a format's records, or `undefined` for native events (the
 * operators' own decode path). `live`: runs are handed out at their root idle (`runResults`, `scanRun`); else as
 * a replay would (`reduceRun`, which emits only at the end).
 * @internal
 */
export const recordFolderOf = (options: RunOperatorOptions, live: boolean): RecordFolder | undefined =>
  options.format === undefined
    ? undefined
    : new RecordFolder({
        format: options.format,
        ...(live ? { live: true } : {}),
        ...(options.messageId !== undefined ? { messageId: options.messageId } : {}),
      })

/** @internal */
export { currentResult }
