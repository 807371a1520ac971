/**
 * Finding log files under a directory, for `replay DIR` and `stats`.
 *
 * The walk never loses a file silently: symbolic links to files and folders are followed (a folder reached
 * twice — a link loop, or a second link to it — is read once, with a note); a broken link or an unreadable
 * folder is reported to `onSkip`, and so is a FIFO, socket or device with a log's name (read alone, it is read;
 * in a folder it could wait for a writer or never end). File names that are not valid UTF-8 are read through `Buffer` paths
 * ({@link listLogPaths}; {@link listLogFiles}, which returns strings, reports them instead). With a shared
 * `seen` set, a file reached through overlapping inputs (`d` and `./d`, a folder and its parent) is listed once.
 *
 * @module
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { basename, dirname, join, relative, isAbsolute, sep } from 'node:path'

const LOG_EXTENSIONS = ['.jsonl', '.ndjson', '.json', '.log', '.txt']

/** `true` for a file name replay reads from a directory: `.jsonl`, `.ndjson`, `.json`, `.log`, `.txt`, and their `.gz`. @since 0.1.0 @category Replay */
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

/** `true` when `p` lies inside the folder `root` (or is it). */
const isInside = (root: string, p: string): boolean => {
  const r = relative(root, p)
  return r === '' || (!r.startsWith(`..${sep}`) && r !== '..' && !isAbsolute(r))
}

/** The parent session file `<dir>/<session>.jsonl` of a subagent transcript `<dir>/<session>/subagents/<file>`, else `undefined`. */
const parentSessionOf = (path: string): string | undefined => {
  const sub = dirname(path)
  return basename(sub) === 'subagents' ? `${dirname(sub)}.jsonl` : undefined
}

/** `true` when `session` is one of `inputs` or lies inside one of them (a folder). */
const namedIn = (session: string, inputs: ReadonlyArray<string> | undefined): boolean => inputs?.some((i) => i !== '-' && isInside(i, session)) === true

/**
 * `true` for a Claude Code subagent transcript `<dir>/<session>/subagents/<file>.jsonl` whose parent
 * `<dir>/<session>.jsonl` exists: it is read with its parent session (SPEC §1), not on its own. With `root`
 * (the folder being listed), only when that parent session file lies inside `root` too, or is one of `inputs`
 * or inside one of them (the other paths named with it: `replay proj/*` names both `s.jsonl` and `s/`) — a
 * `subagents` folder (or a session folder) given without its session is read file by file.
 * @since 0.1.0
 */
export const isClaudeSubagentFile = async (path: string, root?: string, inputs?: ReadonlyArray<string>): Promise<boolean> => {
  const session = parentSessionOf(path)
  if (session === undefined) return false
  if (root !== undefined && !isInside(root, session) && !namedIn(session, inputs)) return false
  return exists(session)
}

/**
 * {@link isClaudeSubagentFile} with a synchronous look at the session file, and why: its session lies inside
 * `root` (`'inside'`), or is named with it (`'named'`); `undefined` when it is read on its own.
 */
const subagentFileSync = (path: string, root: string, inputs: ReadonlyArray<string> | undefined): 'inside' | 'named' | undefined => {
  const session = parentSessionOf(path)
  if (session === undefined) return undefined
  const why = isInside(root, session) ? 'inside' : namedIn(session, inputs) ? 'named' : undefined
  return why !== undefined && existsSync(session) ? why : undefined
}

/**
 * `true` for a subagent transcript named by itself (a file argument) whose parent session file exists and is
 * also named, or lies inside a folder that is (`inputs`: every path given): the parent's replay reads it as its
 * child, so read on its own too it would count twice.
 * @since 0.3.0
 */
export const isReadWithNamedSession = (path: string, inputs: ReadonlyArray<string>): boolean => {
  const session = parentSessionOf(path)
  return session !== undefined && namedIn(session, inputs) && existsSync(session)
}

/** How long the synchronous listing runs before it lets the event loop turn (milliseconds). */
const BREATHE_MS = 5

/** A log file found by {@link listLogPaths}: the path to open, and its name as text (for messages and `source.file`). @since 0.2.0 */
export interface LogPath {
  /** A string, or a `Buffer` when the name is not valid UTF-8 (open it as it is). */
  readonly path: string | Buffer
  /**
   * The path as text: the same string, or the `Buffer` decoded with each byte that is not part of valid UTF-8
   * written `\xNN` (so two names that differ only there keep different labels). Not for opening.
   */
  readonly label: string
}

/** Why a path is reported to `onSkip` by {@link listLogPaths} / {@link listLogFiles} (the words of the note). @since 0.2.0 */
export const SKIPPED = {
  unreadableFolder: 'cannot read the directory',
  folderAgain: 'the same folder as one already read (a symbolic link loop or a second link to it)',
  brokenLink: 'a symbolic link to nothing readable',
  unreadableFile: 'cannot read the file',
  notUtf8: 'its name is not valid UTF-8 (not read)',
  notRegular: 'not a regular file (a FIFO, socket or device; name it by itself to read it)',
} as const

/** Why a file reached a second time (through `d` and `./d`, a folder and its parent, a second link) is not read again. @since 0.2.0 */
export const ALREADY_READ = 'already read (the same file through another path)'

/** Options of {@link listLogPaths}. @since 0.2.0 */
export interface ListOptions {
  /**
   * Files (`dev:ino`) already listed, shared across calls: a file reached again (through `d` and `./d`, a folder
   * and its parent, a second link) is left out, and counted in `onDuplicate`.
   */
  readonly seen?: Set<string>
  /** Receives each file left out because it was already listed. */
  readonly onDuplicate?: (label: string) => void
  /**
   * Every path named with this one (files and folders): a subagent transcript whose parent session is among them,
   * or inside one of them, is left out too — the parent reads it (see {@link isClaudeSubagentFile}).
   */
  readonly inputs?: ReadonlyArray<string>
  /** Receives each subagent transcript left out because its session is named too (`inputs`). */
  readonly onReadWithSession?: (label: string) => void
}

/** Why a subagent transcript named (or listed) with its session is not read on its own. @since 0.3.0 */
export const READ_WITH_SESSION = 'read with its session, which is named too (a subagent transcript)'

/** The name as a string when it is valid UTF-8 (it then opens by that string), else `undefined`. */
const utf8 = (b: Buffer): string | undefined => {
  const s = b.toString('utf8')
  return Buffer.from(s).equals(b) ? s : undefined
}

const strict = new TextDecoder('utf-8', { fatal: true })

/** A name's bytes as text: valid UTF-8 decoded, every other byte written `\xNN`. */
const labelOf = (b: Buffer): string => {
  let out = ''
  let i = 0
  next: while (i < b.length) {
    for (let n = 1; n <= 4 && i + n <= b.length; n++) {
      try {
        out += strict.decode(b.subarray(i, i + n))
        i += n
        continue next
      } catch {
        // not (yet) a whole character
      }
    }
    out += `\\x${(b[i] as number).toString(16).padStart(2, '0')}`
    i++
  }
  return out
}

/** `d/name`: a string (as `path.join` writes it) while both parts are valid UTF-8, else a `Buffer`. */
const child = (d: string | Buffer, name: Buffer): string | Buffer => {
  const n = utf8(name)
  if (typeof d === 'string' && n !== undefined) return join(d, n)
  const dir = typeof d === 'string' ? Buffer.from(d) : d
  return dir.length > 0 && dir[dir.length - 1] === 0x2f ? Buffer.concat([dir, name]) : Buffer.concat([dir, Buffer.from('/'), name])
}

/**
 * Every log file under `dir`, recursively, in sorted order (`.git` and `node_modules` skipped), without Claude
 * Code subagent files that belong to a parent session inside `dir` or named with it (`options.inputs`), following symbolic links (each folder read
 * once). Unreadable folders, broken links, a folder reached a second time and a log's name on something that
 * is not a regular file (a FIFO) are reported to `onSkip`. Paths whose name is not valid UTF-8 are `Buffer`s. Never rejects.
 * @since 0.2.0
 */
export const listLogPaths = async (dir: string, onSkip: (path: string, why: string) => void = () => {}, options: ListOptions = {}): Promise<Array<LogPath>> => {
  const out: Array<LogPath> = []
  const seenFiles = options.seen ?? new Set<string>()
  const seenDirs = new Set<string>()
  // the listing is synchronous (one thread-pool round trip per file cost more than the call: ~0.1 ms each on a
  // folder of thousands of transcripts), with a turn of the event loop every few milliseconds, so that a signal
  // or a closed pipe is still heard while a large tree is listed
  let turn = Date.now()
  const breathe = async (): Promise<void> => {
    if (Date.now() - turn < BREATHE_MS) return
    await new Promise<void>((resolve) => setImmediate(resolve))
    turn = Date.now()
  }
  const walk = async (d: string | Buffer, label: string): Promise<void> => {
    await breathe()
    let id: string
    try {
      const st = statSync(d)
      id = `${st.dev}:${st.ino}`
    } catch {
      onSkip(label, SKIPPED.unreadableFolder)
      return
    }
    if (seenDirs.has(id)) {
      onSkip(label, SKIPPED.folderAgain)
      return
    }
    seenDirs.add(id)
    let entries
    try {
      entries = readdirSync(d, { withFileTypes: true, encoding: 'buffer' })
    } catch {
      onSkip(label, SKIPPED.unreadableFolder)
      return
    }
    entries.sort((a, b) => Buffer.compare(a.name, b.name))
    for (const e of entries) {
      const p = child(d, e.name)
      const name = e.name.toString('utf8')
      const text = typeof p === 'string' ? p : undefined
      const pLabel = typeof p === 'string' ? p : labelOf(p)
      let isDir = e.isDirectory()
      let isFile = e.isFile()
      if (e.isSymbolicLink()) {
        try {
          const st = statSync(p)
          isDir = st.isDirectory()
          isFile = st.isFile()
        } catch {
          onSkip(pLabel, SKIPPED.brokenLink)
          continue
        }
      }
      if (isDir) {
        if (name === '.git' || name === 'node_modules') continue
        await walk(p, pLabel)
      } else if (isFile && isLogFileName(name)) {
        const withSession = text !== undefined ? subagentFileSync(text, dir, options.inputs) : undefined
        if (withSession === 'named') options.onReadWithSession?.(pLabel)
        if (withSession !== undefined) continue
        await breathe()
        try {
          const st = statSync(p)
          const fid = `${st.dev}:${st.ino}`
          if (seenFiles.has(fid)) {
            options.onDuplicate?.(pLabel)
            continue
          }
          seenFiles.add(fid)
        } catch {
          onSkip(pLabel, SKIPPED.unreadableFile)
          continue
        }
        out.push({ path: text ?? p, label: pLabel })
      } else if (!isFile && isLogFileName(name)) {
        // a FIFO would wait for a writer and a device might never end: named, they are read; in a folder, said
        onSkip(pLabel, SKIPPED.notRegular)
      }
    }
  }
  await walk(dir, dir)
  return out
}

/**
 * Every log file under `dir` as {@link listLogPaths} finds them, as strings: a file whose name is not valid
 * UTF-8 cannot be opened by a string path, so it is reported to `onSkip` (read it with `listLogPaths`), never
 * dropped silently. Unreadable directories are reported to `onSkip`. Never rejects.
 * @since 0.1.0
 * @category Replay
 */
export const listLogFiles = async (dir: string, onSkip: (path: string, why: string) => void = () => {}, options: ListOptions = {}): Promise<Array<string>> => {
  const out: Array<string> = []
  for (const f of await listLogPaths(dir, onSkip, options)) {
    if (typeof f.path === 'string') out.push(f.path)
    else onSkip(f.label, SKIPPED.notUtf8)
  }
  return out
}
