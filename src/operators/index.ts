/** RxJS operators over native events (SPEC §6), one per file. @module */
export { decodeEvents } from './decodeEvents.js'
export { scanRun } from './scanRun.js'
export { reduceRun } from './reduceRun.js'
export { runResults } from './runResults.js'
export type { RunOperatorOptions } from './options.js'
export { toSessionEvents } from './toSessionEvents.js'
