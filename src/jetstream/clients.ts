/**
 * Loads the official NATS clients (`@nats-io/transport-node`, `@nats-io/jetstream`, `@nats-io/kv`, v3) on
 * demand. They are optional peer dependencies of run-outcome: the core, the operators and the CLI load without
 * them, and only `consume` / `startConsumer` import them, with a clear message naming the packages to add when
 * they are missing.
 *
 * @module
 */

/** The optional peer packages the JetStream consumer needs, with the version range it is written for. @since 0.1.0 */
export const NATS_PACKAGES = ['@nats-io/transport-node', '@nats-io/jetstream', '@nats-io/kv'] as const

/** One of {@link NATS_PACKAGES}. @since 0.1.0 */
export type NatsPackage = (typeof NATS_PACKAGES)[number]

/** The version range of the NATS clients (the peer dependency range). @since 0.1.0 */
export const NATS_VERSION_RANGE = '^3.4.0'

/** The three client modules. @since 0.1.0 */
export interface NatsClients {
  readonly transport: typeof import('@nats-io/transport-node')
  readonly jetstream: typeof import('@nats-io/jetstream')
  readonly kv: typeof import('@nats-io/kv')
}

/**
 * The NATS client packages are not installed. `missing` names them; `message` says how to add them.
 * @since 0.1.0
 */
export class MissingNatsClientsError extends Error {
  override readonly name = 'MissingNatsClientsError' as const
  readonly missing: ReadonlyArray<NatsPackage>
  constructor(missing: ReadonlyArray<NatsPackage>) {
    super(
      `the JetStream consumer needs the NATS clients, optional peer dependencies of run-outcome that are not installed: ${missing.join(', ')}. ` +
        `Add them with: npm install ${NATS_PACKAGES.map((p) => `${p}@${NATS_VERSION_RANGE}`).join(' ')}`,
    )
    this.missing = missing
  }
}

/** Imports one package by name (injectable for tests). @since 0.1.0 */
export type PackageImporter = (name: NatsPackage) => Promise<unknown>

const defaultImporter: PackageImporter = (name) => {
  switch (name) {
    case '@nats-io/transport-node':
      return import('@nats-io/transport-node')
    case '@nats-io/jetstream':
      return import('@nats-io/jetstream')
    case '@nats-io/kv':
      return import('@nats-io/kv')
  }
}

const isNotFound = (e: unknown): boolean => {
  const code = (e as { code?: unknown } | null)?.code
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND'
}

/**
 * Imports the three NATS client packages.
 *
 * **Fails with** {@link MissingNatsClientsError} (listing every missing package) when any of them cannot be
 * found; any other import failure is passed on.
 * @since 0.1.0
 */
export const loadNatsClients = async (importer: PackageImporter = defaultImporter): Promise<NatsClients> => {
  const missing: Array<NatsPackage> = []
  const loaded: Array<unknown> = []
  for (const name of NATS_PACKAGES) {
    try {
      loaded.push(await importer(name))
    } catch (e) {
      if (!isNotFound(e)) throw e
      missing.push(name)
    }
  }
  if (missing.length > 0) throw new MissingNatsClientsError(missing)
  const [transport, jetstream, kv] = loaded
  return { transport, jetstream, kv } as NatsClients
}
