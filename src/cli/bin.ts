#!/usr/bin/env node
/**
 * The `run-outcome` executable: runs `main` against the real process.
 * @module
 */
import { main } from './main.js'

const io = {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  onSignal: (signal: 'SIGINT' | 'SIGTERM', handler: () => void) => {
    process.on(signal, handler)
    return () => {
      process.off(signal, handler)
    }
  },
}

process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  // a closed pipe (`| head`) ends the output quietly
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0)
})

main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code
  },
  () => {
    process.exitCode = 2
  },
)
