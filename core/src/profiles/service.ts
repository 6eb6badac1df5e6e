/**
 * Platform profiles in the store (`iap_profiles`): list, read, create,
 * update, delete, import, export and the switch of the active one. The
 * active profile is the one document flagged `isActive`; every core sharing
 * the store reads the same flag, so the switch holds for all of them.
 */
import { BadRequestError, ConflictError, DuplicateKeyError, repository } from '../../../kernel/index.ts';
import type { Doc, Logger, Repository, Store } from '../../../kernel/index.ts';
import { PROFILES } from '../store/collections.ts';
import type { PlainDoc } from '../store/collections.ts';
import { applyAlarmPropsRule, migratedAlarmProps, profileView, toDoc } from './document.ts';
import type { Profile } from './document.ts';

/** More profiles than any installation keeps; the list is answered whole. */
const MAX_PROFILES = 1000;

export interface ProfileEntry {
  readonly metadata: { readonly isActive: boolean; readonly activeSync: boolean };
  readonly profile: Profile;
}

export interface Written {
  readonly profile: Profile;
  /** The alarmProps deprecation warning, when a single object was accepted. */
  readonly warning: string | null;
}

export interface ProfileDeps {
  readonly store: Store;
  readonly logger: Logger;
  /** `platform.release`: decides the alarmProps rule. */
  readonly release: string;
}

function entry(doc: Doc): ProfileEntry {
  // activeSync: the flag lives in the shared store, so every core runs the active profile.
  return { metadata: { isActive: doc['isActive'] === true, activeSync: true }, profile: profileView(doc) };
}

export class ProfileService {
  private readonly profiles: Repository<PlainDoc>;

  constructor(private readonly deps: ProfileDeps) {
    this.profiles = repository(deps.store, PROFILES);
  }

  private async all(): Promise<PlainDoc[]> {
    const page = await this.profiles.search({ where: null, sort: [], skip: 0, limit: MAX_PROFILES });
    return page.docs.sort((a, b) => String(a['_id']).localeCompare(String(b['_id'])));
  }

  async list(): Promise<{ results: ProfileEntry[]; total: number }> {
    const docs = await this.all();
    return { results: docs.map(entry), total: docs.length };
  }

  private find(id: string): Promise<PlainDoc> {
    return this.profiles.get(id);
  }

  async get(id: string): Promise<ProfileEntry> {
    return entry(await this.find(id));
  }

  async export(id: string): Promise<Profile> {
    return profileView(await this.find(id));
  }

  /** A new profile; the first one in an empty store becomes the active one. */
  async create(input: Record<string, unknown>, parameter: string): Promise<Written> {
    if (typeof input['id'] !== 'string') throw new BadRequestError(`${parameter}.id is required: it names the profile`, [{ parameter: `${parameter}.id`, message: 'is required' }]);
    const { profile, warning } = this.checked(input as Profile, parameter);
    const first = (await this.profiles.collection.count(null)) === 0;
    try {
      // The store's refusal, not the repository's: the conflict names the caller's parameter, which differs by route.
      await this.profiles.collection.insertOne(toDoc(profile, first));
    } catch (err) {
      if (err instanceof DuplicateKeyError) throw new ConflictError(`A profile with id ${profile.id} already exists`, [{ parameter: `${parameter}.id`, message: 'is already used by another profile' }]);
      throw err;
    }
    return { profile, warning };
  }

  /** Replaces the sections given; `id` cannot change. */
  async update(id: string, changes: Record<string, unknown>): Promise<Written> {
    if (changes['id'] !== undefined && changes['id'] !== id) {
      throw new BadRequestError(`A profile's id cannot change (profile ${id})`, [{ parameter: 'body.properties.id', message: `must be ${id} or left out` }]);
    }
    const stored = await this.find(id);
    const { profile, warning } = this.checked({ ...profileView(stored), ...changes, id }, 'body.properties');
    await this.profiles.replace(toDoc(profile, stored['isActive'] === true));
    return { profile, warning };
  }

  async delete(id: string): Promise<Profile> {
    const stored = await this.find(id);
    if (stored['isActive'] === true) throw new BadRequestError(`Profile ${id} is the active profile and cannot be deleted; switch to another one first (PUT /profiles/<id>/active)`);
    await this.profiles.delete(id);
    return profileView(stored);
  }

  /** Makes `id` the active profile and clears the flag of the one before, in one batch. */
  async activate(id: string): Promise<void> {
    const chosen = await this.find(id);
    const before = (await this.all()).filter((d) => d['isActive'] === true && d['_id'] !== id);
    await this.deps.store.batch([
      { op: 'replace', collection: PROFILES.name, doc: { ...chosen, isActive: true } },
      ...before.map((d) => ({ op: 'replace' as const, collection: PROFILES.name, doc: { ...d, isActive: false } })),
    ]);
  }

  private checked(profile: Profile, parameter: string): Written {
    const outcome = applyAlarmPropsRule(profile, this.deps.release, parameter);
    if (outcome.warning) this.deps.logger.warn(`profile ${profile.id}: ${outcome.warning}`, { profile: profile.id, deprecated: 'alarmProps as a single object' });
    return outcome;
  }

  /** At start: single-object alarmProps already stored become arrays, as the real platform migrates them. */
  async migrate(): Promise<number> {
    let migrated = 0;
    for (const doc of await this.all()) {
      const fixed = migratedAlarmProps(doc);
      if (!fixed) continue;
      await this.profiles.collection.replaceOne(fixed);
      migrated += 1;
      this.deps.logger.warn(`profile ${String(doc['_id'])}: alarmProps migrated from a single object to an array`, { profile: doc['_id'] });
    }
    return migrated;
  }
}
