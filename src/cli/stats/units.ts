/**
 * The files `stats` reads and how they are grouped into units of work: what the command, the pool and the cache
 * need before (and without) loading the readers.
 * @module
 */
import { basename, dirname, join } from 'node:path'

/**
 * A file to read: its path, or — for a name that is not valid UTF-8, which no string opens — its bytes and the
 * label messages and tables show (`listLogPaths`; a `Buffer` reaches a worker thread as a `Uint8Array`).
 * @since 0.2.0
 */
export type UnitFile = string | { readonly path: Uint8Array; readonly label: string }

/** The name a file is shown and counted under. @since 0.2.0 */
export const fileLabel = (f: UnitFile): string => (typeof f === 'string' ? f : f.label)

/**
 * The files grouped into units of work: the files of one folder together, in their order (see
 * `readUnitRecords` in `records.ts`), except in the Codex (`sessions/YYYY/MM/DD`, `archived_sessions`) and Gemini (`chats`)
 * layouts, whose files share nothing and are read one per unit (so they spread over the workers). A Claude Code
 * project folder (`…/projects/<name>`) is one unit with the folders of that name under every other `projects` read
 * (`~/.claude/projects` and `~/.config/claude/projects`, or the roots of `CLAUDE_CONFIG_DIR`): a session copied
 * from one config folder to the other is the same session, and its records count once (K15), as ccusage counts them.
 * @since 0.2.0
 */
export const unitsOf = (files: ReadonlyArray<UnitFile>): Array<Array<UnitFile>> => {
  const units: Array<Array<UnitFile>> = []
  const byDir = new Map<string, Array<UnitFile>>()
  for (const f of files) {
    const dir = dirname(fileLabel(f))
    const parts = dir.split(/[\\/]/)
    const last = parts[parts.length - 1] ?? ''
    if (last === 'chats' || last === 'archived_sessions' || (/^\d{2}$/.test(last) && parts.includes('sessions'))) {
      units.push([f])
      continue
    }
    const key = parts[parts.length - 2] === 'projects' ? `\0projects/${last}` : dir
    let u = byDir.get(key)
    if (u === undefined) {
      u = []
      byDir.set(key, u)
      units.push(u)
    }
    u.push(f)
  }
  return units
}

/**
 * The Gemini project folder of a chat file (`<hash>/chats/session-….json` → `<hash>`; a file elsewhere: its
 * folder), by its label. @since 0.2.0
 */
export const geminiProjectDirOf = (label: string): string => {
  const dir = dirname(label)
  return basename(dir) === 'chats' ? dirname(dir) : dir
}

/** The `.project_root` file that names a Gemini chat file's project (read by `projectOf`). @since 0.2.0 */
export const projectRootFileOf = (label: string): string => join(geminiProjectDirOf(label), '.project_root')
