/**
 * Finding log files under a directory, for `replay DIR` and `stats`.
 * @module
 */
import { readdir, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

const LOG_EXTENSIONS = ['.jsonl', '.ndjson', '.json', '.log', '.txt']

/** `true` for a file name replay reads from a directory: `.jsonl`, `.ndjson`, `.json`, `.log`, `.txt`, and their `.gz`. @since 0.1.0 */
export const isLogFileName = (name: string): boolean => {
  const n = name.toLowerCase().endsWith('.gz') ? name.toLowerCase().slice(0, -3) : name.toLowerCase()
  return LOG_EXTENSIONS.some((e) => n.endsWith(e))
}

const exists = async (p: string): Promise<boolean> => {
  try {
    await stat(p)
    return true
  } catch {
    return false
  }
}

/**
 * `true` for a Claude Code subagent transcript `<dir>/<session>/subagents/<file>.jsonl` whose parent
 * `<dir>/<session>.jsonl` exists: it is read with its parent session (SPEC §1), not on its own.
 * @since 0.1.0
 */
export const isClaudeSubagentFile = async (path: string): Promise<boolean> => {
  const sub = dirname(path)
  if (basename(sub) !== 'subagents') return false
  const sessionDir = dirname(sub)
  return exists(`${sessionDir}.jsonl`)
}

/**
 * Every log file under `dir`, recursively, in sorted order (`.git` and `node_modules` skipped), without Claude
 * Code subagent files that belong to a parent session. Unreadable directories are reported to `onSkip`.
 * @since 0.1.0
 */
export const listLogFiles = async (dir: string, onSkip: (path: string, why: string) => void = () => {}): Promise<Array<string>> => {
  const out: Array<string> = []
  const walk = async (d: string): Promise<void> => {
    let entries
    try {
      entries = await readdir(d, { withFileTypes: true })
    } catch {
      onSkip(d, 'cannot read the directory')
      return
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const e of entries) {
      const p = join(d, e.name)
      if (e.isDirectory()) {
        if (e.name === '.git' || e.name === 'node_modules') continue
        await walk(p)
      } else if (e.isFile() && isLogFileName(e.name)) {
        if (await isClaudeSubagentFile(p)) continue
        out.push(p)
      }
    }
  }
  await walk(dir)
  return out
}
