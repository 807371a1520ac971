/** Run counts of the reliability suite, read from the environment and printed once per file. */
import { numRuns } from '../../support/arbitraries.js'

/** fast-check runs per property: `FC_NUM_RUNS` (default 100; CI sets 1000). */
export const FC_RUNS = numRuns()

/** Prints a figure line (`reliability: …`) that CI logs show and docs/reliability.md quotes. */
export const figure = (what: string): void => {
  console.log(`reliability: ${what}`)
}
