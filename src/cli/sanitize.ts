/**
 * The one sanitiser for text that reaches a terminal: every string the CLI writes that came from input (model
 * names, file names, tool names, error messages, response excerpts, diagnostics) goes through {@link forTerminal}
 * (one line) before it is written, and JSON output through {@link escapeC1} — so a log cannot move the cursor,
 * set the window title, write the clipboard (OSC 52), open links (OSC 8) or reorder text (bidi controls).
 *
 * Controls are shown, not dropped: `\x1b` becomes `\x1b` as text, so what was there stays visible.
 *
 * @module
 */

// C0 controls, DEL, C1 controls, the bidi embedding/override/isolate controls, line/paragraph separators
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters this module exists to neutralise
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

const shown = (c: string): string => {
  const code = c.charCodeAt(0)
  if (c === '\n') return '\\n'
  if (c === '\r') return '\\r'
  if (c === '\t') return ' '
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/**
 * `s` made safe for one line of a terminal: every control character (C0, DEL, C1), bidi control and line
 * separator is written as a visible escape (`\x1b`, `\n`, `\u202e`; a tab as a space). Never throws.
 * @since 0.2.0
 */
export const forTerminal = (s: string): string => s.replace(UNSAFE, shown)

// what JSON.stringify leaves raw of UNSAFE: DEL, C1 controls, bidi controls, line/paragraph separators
const C1 = /[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
const HAS_C1 = /[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

/**
 * JSON text with the characters `JSON.stringify` leaves raw but a terminal interprets (DEL, C1 controls, the bidi
 * marks, embeddings, overrides and isolates U+200E/F, U+202A–202E, U+2066–2069, and U+2028/2029) written as `\u`
 * escapes: the same JSON value, safe to print. (C0 controls are escaped by JSON itself.) Such characters occur only
 * inside JSON strings, where `\u` escapes stand for them.
 * @since 0.2.0
 */
export const escapeC1 = (json: string): string => (HAS_C1.test(json) ? json.replace(C1, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : json)
