/**
 * What `replay` and `stats` say of the usual places when those that are there hold no log: the ones that are not.
 * @module
 */
import { tilde, type LogHome } from '../node/homes.js'
import { forTerminal } from './sanitize.js'

/**
 * `(not there: ~/.codex/sessions, ~/.gemini/tmp)` and a newline, for the usual places of `homes` with no folder
 * (paths under `home` shown with `~`, controls made visible), or `''` when every one is there.
 * @since 0.3.0
 */
export const notThereLine = (homes: ReadonlyArray<LogHome>, home: string): string => {
  const absent = homes.filter((h) => h.folders.length === 0).map((h) => forTerminal(tilde(h.path, home)))
  return absent.length > 0 ? `(not there: ${absent.join(', ')})\n` : ''
}
