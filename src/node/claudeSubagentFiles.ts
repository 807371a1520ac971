/**
 * Where a Claude Code session's subagent files are: `<project>/<session>/subagents/<agent-id>.jsonl` beside
 * `<project>/<session>.jsonl` (formats.md §C1). Finding them only (file system calls, no reader), so that what
 * looks for them without reading them — the `stats` cache's key — loads nothing more; `claudeSubagents.ts` folds
 * them into their parent runs.
 *
 * @module
 */
import { type Dirent, readdirSync, statSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** The name of a session (or subagent) file: `.jsonl`, or `.jsonl.gz`. @since 0.2.0 */
export const SESSION_EXT = /\.jsonl(?:\.gz)?$/

/**
 * The subagent files of a Claude Code session file: the `.jsonl` (and `.jsonl.gz`) files in
 * `<dir>/<session>/subagents/` for `sessionFile` = `<dir>/<session>.jsonl`, as full paths in name order.
 * Resolves to `[]` when that folder does not exist. **Rejects with** the file system's error when the folder
 * exists but cannot be listed.
 * @example await subagentFilesOf('~/.claude/projects/p/abc.jsonl') // => ['~/.claude/projects/p/abc/subagents/agent-1.jsonl']
 * @since 0.1.0
 */
export const subagentFilesOf = async (sessionFile: string): Promise<Array<string>> => {
  const dir = subagentDirOf(sessionFile)
  if (dir === undefined) return []
  try {
    return subagentNames(dir, await readdir(dir, { withFileTypes: true }))
  } catch (e) {
    return noFolder(e)
  }
}

/**
 * {@link subagentFilesOf} with a synchronous listing: for a reader that reads each file's bytes synchronously
 * (`stats`' workers), where one failed `opendir` costs microseconds and a round trip through the thread pool a
 * good part of a millisecond. Same result; **throws** where that rejects.
 * @since 0.2.0
 */
export const subagentFilesOfSync = (sessionFile: string): Array<string> => {
  const dir = subagentDirOf(sessionFile)
  // most sessions have no session folder: asked without an exception (an ENOENT error costs more than the call)
  if (dir === undefined || statSync(dirname(dir), { throwIfNoEntry: false }) === undefined) return []
  try {
    return subagentNames(dir, readdirSync(dir, { withFileTypes: true }))
  } catch (e) {
    return noFolder(e)
  }
}

/**
 * Whether a session file has subagent files: {@link subagentFilesOfSync} with a folder that cannot be listed
 * counting as none. Never throws. (`replay`, `events`' readers, `replayFile`, `replayRuns` and `stats` ask this
 * before reading a file, synchronously: a `stat` costs microseconds, a listing through the thread pool a good part
 * of a millisecond per file.)
 * @since 0.2.0
 */
export const hasSubagentFilesSync = (sessionFile: string): boolean => {
  try {
    return subagentFilesOfSync(sessionFile).length > 0
  } catch {
    return false
  }
}

/**
 * The entries of a session's subagent folder that are named like subagent files but are left out of
 * {@link subagentFilesOfSync} (a FIFO, a socket, a device, a folder, or a link to one), as full paths in name
 * order, so that a caller replaying the session by name can say so (a folder replay notes them from its own
 * listing). `[]` when the folder is missing or cannot be listed. Never throws.
 * @since 0.2.0
 */
export const skippedSubagentEntriesSync = (sessionFile: string): Array<string> => {
  const dir = subagentDirOf(sessionFile)
  if (dir === undefined || statSync(dirname(dir), { throwIfNoEntry: false }) === undefined) return []
  try {
    const entries = readdirSync(dir, { withFileTypes: true })
    const kept = new Set(subagentNames(dir, entries))
    return entries
      .filter((e) => SESSION_EXT.test(e.name))
      .map((e) => join(dir, e.name))
      .filter((p) => !kept.has(p))
      .sort()
  } catch {
    return []
  }
}

/**
 * `<dir>/<session>/subagents` of a session file, or `undefined` for a name that names no session folder (`.jsonl`,
 * `..jsonl`: `..` would reach outside).
 * @since 0.2.0
 */
export const subagentDirOf = (sessionFile: string): string | undefined => {
  const session = basename(sessionFile).replace(SESSION_EXT, '')
  // a session file named `.jsonl`, `..jsonl` or `...jsonl` names no session folder: `..` would reach outside
  if (session === '' || session === '.' || session === '..' || !SESSION_EXT.test(basename(sessionFile))) return undefined
  return join(dirname(sessionFile), session, 'subagents')
}

/**
 * The subagent files among a folder's entries, as full paths in name order: regular files, and links to regular
 * files (one that leads nowhere stays, and becomes a diagnostic when it is read). A link to a FIFO, a socket, a
 * device or a folder is left out as those entries themselves are: opening a FIFO waits for a writer, and a read
 * of the session would wait with it.
 */
const subagentNames = (dir: string, entries: ReadonlyArray<Dirent>): Array<string> =>
  entries
    .filter((e) => SESSION_EXT.test(e.name) && (e.isFile() || (e.isSymbolicLink() && linkToFile(join(dir, e.name)))))
    .map((e) => e.name)
    .sort()
    .map((n) => join(dir, n))

/** Whether a link leads to a regular file, or nowhere (a link to something else is no subagent file). */
const linkToFile = (path: string): boolean => {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? true
  } catch {
    // a loop, or a folder on the way that cannot be searched: read, and noted as unreadable
    return true
  }
}

/** A folder that is not there lists nothing; any other error is thrown on. */
const noFolder = (e: unknown): Array<string> => {
  const code = (e as { code?: unknown }).code
  if (code === 'ENOENT' || code === 'ENOTDIR') return []
  throw e
}
