/**
 * Where the gateway manager learns which adapter instances exist: the two
 * calls it needs of the adapter registry of core/src/adapters/ (configured
 * adapters merged with the `adapters` collection), which is what the core
 * passes; kept as an interface so tests or another source can stand in.
 */
import type { AdapterConfig } from '../../../config/schema.ts';
import { BadRequestError, NotFoundError } from '../../../kernel/index.ts';

export interface AdapterSource {
  find(name: string): Promise<Readonly<AdapterConfig> | null>;
  list(): Promise<ReadonlyArray<Readonly<AdapterConfig>>>;
}

/** The gateway adapter named `adapterId`: 404 when none is, 400 when it is another type or (unless allowed) disabled. */
export async function findAutomationGatewayAdapter(source: AdapterSource, adapterId: string, options: { allowDisabled?: boolean } = {}): Promise<Readonly<AdapterConfig>> {
  const adapter = await source.find(adapterId);
  if (!adapter) throw new NotFoundError(`No adapter "${adapterId}" exists`);
  if (adapter.type !== 'gateway') throw new BadRequestError(`Adapter "${adapterId}" is of type ${adapter.type}, not an automation gateway`);
  if (!adapter.enabled && !options.allowDisabled) throw new BadRequestError(`Adapter "${adapterId}" is disabled`);
  return adapter;
}
