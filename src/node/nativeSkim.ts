/**
 * Loads the native skim kernel (`native/skim.c`, built by `npm run build` into
 * `dist/native/skim-<platform>-<arch>.node`) and installs it for the skim reader (`src/formats/skim/skim.ts`).
 *
 * The kernel is a Node-API addon (ABI-stable across Node versions): where it was built for this platform and
 * architecture it is loaded; anywhere else (no C compiler at build time, another platform, a load error) the
 * reader parses every line whole in JavaScript, with the same results. `RUN_OUTCOME_NATIVE=0` in the environment
 * keeps it unloaded.
 *
 * @module
 * @internal
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { type SkimKernel, useSkimKernel } from '../formats/skim/skim.js'

/** The addon's file name for this process's platform and architecture. */
export const NATIVE_SKIM_FILE = `skim-${process.platform}-${process.arch}.node`

/**
 * Where the addon may sit, relative to this module as tsc or esbuild placed it: dist/node/ and dist/bundle/ and
 * dist/cli/ (one level under dist), dist/cli/stats/ (the worker bundle, two levels), and src/node/ (tests run the
 * sources; the build's copy is in dist).
 */
const CANDIDATES = [`../native/${NATIVE_SKIM_FILE}`, `../../native/${NATIVE_SKIM_FILE}`, `../../dist/native/${NATIVE_SKIM_FILE}`]

let loaded: SkimKernel | null | undefined

const isKernel = (m: unknown): m is SkimKernel =>
  typeof m === 'object' && m !== null && typeof (m as SkimKernel).compile === 'function' && typeof (m as SkimKernel).skim === 'function'

/**
 * The native kernel, loaded and installed on first call (later calls return the same), or `null` when there is
 * none for this platform, it fails to load, or `RUN_OUTCOME_NATIVE=0`. Never throws.
 */
export const nativeSkim = (): SkimKernel | null => {
  if (loaded !== undefined) return loaded
  loaded = null
  if (process.env['RUN_OUTCOME_NATIVE'] === '0') return loaded
  const require = createRequire(import.meta.url)
  for (const rel of CANDIDATES) {
    const path = fileURLToPath(new URL(rel, import.meta.url))
    if (!existsSync(path)) continue
    try {
      const m: unknown = require(path)
      if (isKernel(m)) {
        loaded = m
        break
      }
    } catch {
      // built for another Node-API or libc: the JavaScript path answers
    }
  }
  useSkimKernel(loaded)
  return loaded
}
