/**
 * Names taken from input (a record type, an error code, a model or tool name) made safe to echo in a diagnostic
 * or to keep in a result: the one helper every format and the fold use.
 * @module
 * @internal
 */

/** The most characters of an input name the library echoes. @internal */
export const MAX_NAME_CHARS = 60

// C0 controls, DEL and C1 controls: never echoed (a terminal or a log viewer would act on them)
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g

/**
 * `s` cut and cleaned for a diagnostic or a result field: itself when it has at most 60 characters, else its
 * first 57 followed by `...` (60 in all; a surrogate pair is never split), with every control character (C0, DEL,
 * C1) replaced by `?`, so a hostile input never puts more than 60 characters, or a terminal escape, into a
 * result. Never throws.
 * @example safeName('tool\u001b[31m') // => 'tool?[31m'
 * @internal
 */
export const safeName = (s: string): string => {
  let cut = s
  if (s.length > MAX_NAME_CHARS) {
    const end = MAX_NAME_CHARS - 3
    const high = s.charCodeAt(end - 1)
    cut = `${s.slice(0, high >= 0xd800 && high <= 0xdbff ? end - 1 : end)}...`
  }
  return cut.replace(CONTROL, '?')
}

/** {@link safeName} in double quotes, the way diagnostics quote a name: `"type"`. @internal */
export const quoteName = (s: string): string => `"${safeName(s)}"`
