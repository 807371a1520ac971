/**
 * run-outcome: how did this agent run end, and what did it produce?
 *
 * The package root is the one vocabulary of the library, by category (each export's docstring carries its
 * `@category`):
 *
 * - **Endings** and **Results**: the `RunEnding` union, `RunResult` and what it holds; **Errors**: `ProtocolError`.
 * - **Native protocol**: the native `SessionEvent`s and their codecs (docs/SPEC.md §4).
 * - **Fold**: the one fold from native events to results, and its state codec (`encodeFoldState`, `resumeFold`).
 * - **Pipeline**: any format's records → native events → the fold (`Pipeline`, `foldRecords`, `runsFrom`).
 * - **Formats**: `formats`, `formatByName`, `FormatModule` and format detection.
 * - **Operators**: the RxJS operators.
 * - **Vocabularies**: other systems' ending vocabularies; **Prices**: cost from a price table.
 * - **Replay**: reading recorded logs from files and streams (Node only): `replayRuns` (streaming), `replayFile`.
 *
 * Everything but **Replay** is the browser-safe entry `run-outcome/core`, listed once in src/browser.ts and
 * re-exported here as the same values; this module adds **Replay**. Per-format readers, sniffers and the fold's
 * internals are not part of the API: reach a format through `formatByName`. test/types/exports.test.ts lists
 * every export of each entry, so each change to this surface is deliberate (and goes in CHANGELOG.md).
 * @module
 */

// --- everything that runs without Node (run-outcome/core) ---
export * from './browser.js'

// --- replay (Node: files and streams): the run-outcome/replay entry, whose other exports are the same bindings as
// those of run-outcome/core above (one declaration each, so the two `export *` agree) ---
export * from './replay.js'
