#!/usr/bin/env node
/**
 * The `run-outcome` executable: runs `main` against the real process.
 * @module
 */
import type { CliIO } from './io.js'
import { main } from './main.js'

// A reader that closes the pipe early (`| head`) ends our output, not the run: writes after EPIPE are dropped
// and the exit status still says how the runs ended.
let stdoutClosed = false
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') stdoutClosed = true
})
const stdout = {
  write: (s: string): boolean => (stdoutClosed ? true : process.stdout.write(s)),
  get isTTY(): boolean {
    return process.stdout.isTTY === true
  },
  get columns(): number {
    return process.stdout.columns ?? 80
  },
}

const io: CliIO = {
  stdin: process.stdin,
  stdout,
  stderr: process.stderr,
  env: process.env,
  onSignal: (signal: 'SIGINT' | 'SIGTERM', handler: () => void) => {
    process.on(signal, handler)
    return () => {
      process.off(signal, handler)
    }
  },
}

main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code
  },
  () => {
    process.exitCode = 2
  },
)
