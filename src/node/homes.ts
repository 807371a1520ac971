/**
 * The usual places agent CLIs keep their logs, for `run-outcome stats` and `replay` with no path:
 *
 * - Claude Code: `~/.claude/projects` and `~/.config/claude/projects` (its newer default), and the `projects`
 *   folder of every directory in `CLAUDE_CONFIG_DIR` (comma-separated; a directory that is itself named
 *   `projects` is taken as is);
 * - Codex: `$CODEX_HOME/sessions` and `$CODEX_HOME/archived_sessions` (`CODEX_HOME` defaults to `~/.codex`);
 * - Gemini CLI: the `chats` folders under `~/.gemini/tmp/<project hash>/` (the rest of that folder, `logs.json`
 *   and checkpoints, holds no sessions).
 *
 * `~` is `HOME` (then `USERPROFILE`, then the OS's home directory).
 * @module
 */
import { readdir, realpath, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join, resolve, sep } from 'node:path'

/** Which agent CLI a place belongs to. @since 0.2.0 */
export type HomeTool = 'claude-code' | 'codex' | 'gemini'

/** One usual place: its tool, the folder, and the folders to read in it (Gemini: its `chats` folders). @since 0.2.0 */
export interface LogHome {
  readonly tool: HomeTool
  /** The place as looked for (absolute path). */
  readonly path: string
  /** The folders to read under it (those that exist); empty when the place was not found. */
  readonly folders: ReadonlyArray<string>
}

type Env = Readonly<Record<string, string | undefined>>

/** The home directory the usual places are under: `HOME`, then `USERPROFILE`, then the OS's. @since 0.2.0 */
export const homeOf = (env: Env): string => {
  const h = env['HOME'] ?? env['USERPROFILE']
  return h !== undefined && h !== '' ? h : homedir()
}

/**
 * The places to look in, in order (absolute paths, duplicates removed), whether or not they exist.
 * @example candidateHomes({ HOME: '/home/me' }).map((h) => h.path) // => ['/home/me/.claude/projects', '/home/me/.config/claude/projects', '/home/me/.codex/sessions', '/home/me/.codex/archived_sessions', '/home/me/.gemini/tmp']
 * @since 0.2.0
 */
export const candidateHomes = (env: Env): Array<{ readonly tool: HomeTool; readonly path: string }> => {
  const home = homeOf(env)
  const out: Array<{ tool: HomeTool; path: string }> = []
  const add = (tool: HomeTool, p: string): void => {
    const abs = resolve(p)
    if (!out.some((x) => x.path === abs)) out.push({ tool, path: abs })
  }
  add('claude-code', join(home, '.claude', 'projects'))
  add('claude-code', join(home, '.config', 'claude', 'projects'))
  for (const d of (env['CLAUDE_CONFIG_DIR'] ?? '').split(',')) {
    const dir = d.trim()
    if (dir === '') continue
    add('claude-code', dir.replace(/[\\/]+$/, '').endsWith(`${sep}projects`) || dir.replace(/[\\/]+$/, '').endsWith('/projects') ? dir : join(dir, 'projects'))
  }
  const codex = env['CODEX_HOME'] !== undefined && env['CODEX_HOME'] !== '' ? env['CODEX_HOME'] : join(home, '.codex')
  add('codex', join(codex, 'sessions'))
  add('codex', join(codex, 'archived_sessions'))
  add('gemini', join(home, '.gemini', 'tmp'))
  return out
}

const isDir = async (p: string): Promise<boolean> => {
  try {
    return (await stat(p)).isDirectory()
  } catch {
    return false
  }
}

/**
 * Every usual place with the folders found in it (see the module doc). A place that is a symbolic link to another
 * place already listed is read once. Never rejects.
 * @since 0.2.0
 */
export const findLogHomes = async (env: Env): Promise<Array<LogHome>> => {
  const seen = new Set<string>()
  const out: Array<LogHome> = []
  for (const c of candidateHomes(env)) {
    if (!(await isDir(c.path))) {
      out.push({ ...c, folders: [] })
      continue
    }
    const real = await realpath(c.path).catch(() => c.path)
    if (seen.has(real)) continue
    seen.add(real)
    if (c.tool !== 'gemini') {
      out.push({ ...c, folders: [c.path] })
      continue
    }
    const folders: Array<string> = []
    let names: Array<string> = []
    try {
      names = (await readdir(c.path, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name)
    } catch {
      names = []
    }
    for (const n of names.sort()) {
      const chats = join(c.path, n, 'chats')
      if (await isDir(chats)) folders.push(chats)
    }
    out.push({ ...c, folders })
  }
  return out
}

/**
 * `p` with the home directory written `~` (for messages).
 * @example tilde('/home/me/.codex/sessions', '/home/me') // => '~/.codex/sessions'
 * @since 0.2.0
 */
export const tilde = (p: string, home: string): string => {
  if (home === '' || home === sep) return p
  const h = home.replace(/[\\/]+$/, '')
  return p === h ? '~' : p.startsWith(`${h}${sep}`) || p.startsWith(`${h}/`) ? `~${p.slice(h.length)}` : p
}
