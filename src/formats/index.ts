/**
 * The registry of input formats (`--format` names) and format detection.
 * @module
 */
import { acpFormat } from './acp.js'
import { aiSdkFormat } from './aiSdk.js'
import { claudeCodeFormat } from './claudeCode.js'
import { codexFormat } from './codex.js'
import { geminiFormat } from './gemini.js'
import { nativeFormat } from './native.js'
import { openaiAgentsFormat } from './openaiAgents.js'
import type { FormatModule } from './types.js'

/** Every format module, in detection priority order (earlier wins a tie). @since 0.1.0 @category Formats */
export const formats: ReadonlyArray<FormatModule> = [
  nativeFormat,
  claudeCodeFormat,
  codexFormat,
  openaiAgentsFormat,
  geminiFormat,
  aiSdkFormat,
  acpFormat,
  // formats: add each module here (one line per module)
]

/** The module of a `--format` name, or `undefined`. @since 0.1.0 @category Formats */
export const formatByName = (name: string): FormatModule | undefined => formats.find((f) => f.name === name)

/**
 * The format with the highest score above 0 (the earlier one in {@link formats} on a tie), or `undefined`.
 * Scores are at most 1 (test/formats/detection.prop.test.ts holds every sniffer to it), so a format that scores 1
 * cannot be beaten by a later one: the formats after it are not asked (a folder of one tool's logs is detected by
 * two or three sniffers per file instead of seven).
 */
const bestFormat = (scoreOf: (f: FormatModule) => number): FormatModule | undefined => {
  let best: FormatModule | undefined
  let bestScore = 0
  for (const f of formats) {
    const s = scoreOf(f)
    if (s > bestScore) {
      best = f
      bestScore = s
      if (s >= 1) break
    }
  }
  return best
}

/** The best line-based format for the first parsed lines, or `undefined` when none scores above 0. @since 0.1.0 @category Formats */
export const detectLines = (values: ReadonlyArray<unknown>): FormatModule | undefined => bestFormat((f) => f.sniffLines?.(values) ?? 0)

/** The best document format for a parsed JSON document, or `undefined`. @since 0.1.0 @category Formats */
export const detectDocument = (doc: unknown): FormatModule | undefined => bestFormat((f) => f.sniffDocument?.(doc) ?? 0)
