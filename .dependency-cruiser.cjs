/**
 * The dependency rules of run-outcome, checked by `npm run deps` (dependency-cruiser over src/).
 *
 * The layers, inner to outer: core (the events, the fold, the pipeline; pure, no I/O, no RxJS) ←
 * vocabularies and formats (translators: pure functions of records) ← operators (RxJS) ← node, jetstream
 * and cli (files, processes, NATS). An arrow only points inwards, so the inner layers bundle for a browser
 * (`run-outcome/core`, test/package/browser.test.ts) and can be tested without the outer ones.
 *
 * Parser: swc. TypeScript 7 (the project's compiler) has no JavaScript API that dependency-cruiser can load,
 * so `@swc/core` reads the sources; it sees type-only imports too, so a rule holds for `import type` as well.
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */
const NODE_BUILTIN = { dependencyTypes: ['core'] }
const OUTER = (...layers) => ({ path: `^src/(${layers.join('|')})/` })

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes two modules one: neither can be read, tested or loaded alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-no-rxjs',
      severity: 'error',
      comment: 'src/core is the fold and its protocol; RxJS belongs to src/operators (SPEC: the fold is a plain function).',
      from: { path: '^src/core/' },
      to: { path: '(^|/)node_modules/rxjs/' },
    },
    {
      name: 'core-no-node',
      severity: 'error',
      comment: 'src/core runs anywhere (browser, worker, edge): no node: module.',
      from: { path: '^src/core/' },
      to: NODE_BUILTIN,
    },
    {
      name: 'core-no-outer-layer',
      severity: 'error',
      comment: 'src/core knows no format, operator, CLI, file system or NATS: they depend on it, not the reverse.',
      from: { path: '^src/core/' },
      to: OUTER('formats', 'operators', 'cli', 'node', 'jetstream', 'vocabularies'),
    },
    {
      name: 'formats-no-outer-layer',
      severity: 'error',
      comment: 'A translator is a pure function of records: no CLI, file system or NATS.',
      from: { path: '^src/formats/' },
      to: OUTER('cli', 'node', 'jetstream', 'operators'),
    },
    {
      name: 'formats-no-node',
      severity: 'error',
      comment: 'Translators bundle for the browser: no node: module.',
      from: { path: '^src/formats/' },
      to: NODE_BUILTIN,
    },
    {
      name: 'vocabularies-pure',
      severity: 'error',
      comment: 'The seed vocabularies are tables over the ending type: no I/O and no outer layer.',
      from: { path: '^src/vocabularies/' },
      to: { path: '^src/(formats|operators|cli|node|jetstream)/' },
    },
    {
      name: 'vocabularies-no-node',
      severity: 'error',
      comment: 'The vocabularies bundle for the browser: no node: module.',
      from: { path: '^src/vocabularies/' },
      to: NODE_BUILTIN,
    },
    {
      name: 'operators-no-cli-node',
      severity: 'error',
      comment: 'The operators are the RxJS face of the fold; the CLI and the file readers use them, not the reverse.',
      from: { path: '^src/operators/' },
      to: OUTER('cli', 'node', 'jetstream'),
    },
    {
      name: 'rxjs-only-in-operators',
      severity: 'error',
      comment: 'RxJS is loaded only by a call that needs it (issue 15): src/operators is the one importer of rxjs.',
      from: { path: '^src/', pathNot: '^src/operators/' },
      to: { path: '(^|/)node_modules/rxjs/' },
    },
    {
      name: 'cli-node-no-operators',
      severity: 'error',
      comment: 'The CLI and the file readers never load the operators (so never rxjs): test/package/lazyImports.test.ts.',
      from: { path: '^src/(cli|node)/' },
      to: { path: '^src/operators/' },
    },
    {
      name: 'library-no-cli',
      severity: 'error',
      comment: 'Only the CLI imports the CLI.',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'src-no-tests',
      severity: 'error',
      comment: 'The package never imports its tests, benches or examples.',
      from: { path: '^src/' },
      to: { path: '^(test|bench|examples)/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves (a typo, or a dependency missing from package.json).',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-dev-dependency-in-src',
      severity: 'error',
      comment:
        'What src/ imports at run time is a dependency or a peer dependency; a dev dependency is missing for consumers. ' +
        'The NATS clients are optional peers, loaded on use by src/jetstream.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['npm-peer', 'type-only'] },
    },
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    // Sources import `./x.js` for `./x.ts` (NodeNext); dependency-cruiser resolves them to the .ts file.
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'default', 'node'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
}
