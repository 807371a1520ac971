/** `watch` run in-process with its stderr a terminal of a given width, so the status line is drawn. */
import { main } from '../../src/cli/main.js'

/**
 * Runs `run-outcome watch …argv` on `input`, then holds the input open for `pauseMs` (a paused input is when the
 * status line is drawn), with stderr a TTY `columns` wide. Resolves with the exit status and all of stderr.
 */
export const watchOnTty = async (argv: ReadonlyArray<string>, input: string, columns: number, pauseMs = 500): Promise<{ code: number; stderr: string }> => {
  let stderr = ''
  const stdin = (async function* () {
    yield Buffer.from(input)
    await new Promise((r) => setTimeout(r, pauseMs))
  })()
  const code = await main(['watch', ...argv], {
    stdin,
    stdout: { write: () => true },
    stderr: {
      write: (s: string) => {
        stderr += s
      },
      isTTY: true,
      columns,
    },
    env: { NO_COLOR: '1' },
  })
  return { code, stderr }
}
