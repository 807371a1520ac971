/**
 * The names `--format` takes, in the order of `formats` (`formats/index.ts`), for help texts and option checks
 * that must not load every translator to spell their names (a `stats` report answered from its cache reads no
 * log). `test/formats/names.test.ts` holds it equal to `formats.map((f) => f.name)`.
 * @module
 * @internal
 */

/** Every format's name, as `formats` lists them. @internal */
export const FORMAT_NAMES: ReadonlyArray<string> = ['native', 'claude-code', 'codex', 'openai-agents', 'gemini', 'ai-sdk', 'acp']
