/**
 * A platform profile as the real platform keeps it: `id` (its name) and the
 * `*Props` sections (uiProps, authenticationProps, expressProps, alarmProps,
 * ...), stored in `iap_profiles` with `_id` = `id` and the `isActive` flag.
 * Sections this core does not read are kept as given.
 *
 * `alarmProps` follows the interface's deprecation: an array of alarm
 * locations; a single object was deprecated in 2021.1 and removed in 2022.1
 * (docs/profiles.md, "alarmProps").
 */
import Joi from 'joi';
import { compareReleases, ValidationError } from '../../../kernel/index.ts';
import type { Doc, Keyed } from '../../../kernel/index.ts';

export type Profile = Record<string, unknown> & { id: string };

export const ALARM_PROPS_DEPRECATED = '2021.1';
export const ALARM_PROPS_REMOVED = '2022.1';

/** Profile ids name a path segment, as the real platform's `^[^/]+$`. */
export const PROFILE_ID = /^[^/]+$/;

const objectOrArrayOfObjects = Joi.alternatives().try(Joi.array().items(Joi.object().unknown(true)).max(100), Joi.object().unknown(true));

/** What a profile must look like; every other section is an object kept as given. */
export const profileSchema = Joi.object({
  id: Joi.string().min(1).max(200).pattern(PROFILE_ID).messages({ 'string.pattern.base': 'must not contain "/"' }),
  description: Joi.string().allow('').max(10_000),
  type: Joi.string().max(200),
  services: Joi.array().items(Joi.string().min(1).max(200)).max(1000),
  alarmProps: objectOrArrayOfObjects,
})
  .pattern(/Props$/, Joi.object().unknown(true))
  .pattern(/^(?!_id$|isActive$|_rev$)/, Joi.any())
  .unknown(false);

export interface AlarmPropsOutcome {
  readonly profile: Profile;
  /** Set when a single object was accepted and wrapped: the text of the HTTP Warning and the log line. */
  readonly warning: string | null;
}

function isSingleObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Applies the alarmProps rule of `release` to a profile being written: an
 * array passes; a single object is wrapped into an array, with a warning
 * from 2021.1, and refused with a 400 naming the fix from 2022.1.
 */
export function applyAlarmPropsRule(profile: Profile, release: string, parameter: string): AlarmPropsOutcome {
  const alarmProps = profile['alarmProps'];
  if (!isSingleObject(alarmProps)) return { profile, warning: null };
  if (compareReleases(release, ALARM_PROPS_REMOVED) >= 0) {
    throw new ValidationError(
      `alarmProps must be an array: a single object was deprecated in ${ALARM_PROPS_DEPRECATED} and removed in ${ALARM_PROPS_REMOVED} (this platform is ${release}); wrap it in an array, "alarmProps": [{...}], one object per alarm location`,
      [{ parameter: `${parameter}.alarmProps`, message: 'must be an array of alarm locations; wrap the single object in an array' }],
    );
  }
  const wrapped: Profile = { ...profile, alarmProps: [alarmProps] };
  if (compareReleases(release, ALARM_PROPS_DEPRECATED) < 0) return { profile: wrapped, warning: null };
  return {
    profile: wrapped,
    warning: `alarmProps as a single object is deprecated since ${ALARM_PROPS_DEPRECATED} and removed in ${ALARM_PROPS_REMOVED}; it was stored wrapped in an array: send "alarmProps": [{...}]`,
  };
}

/** A stored document whose alarmProps is still a single object, migrated to an array; null when nothing needs doing. */
export function migratedAlarmProps(doc: Doc): Doc | null {
  const alarmProps = doc['alarmProps'];
  return isSingleObject(alarmProps) ? { ...doc, alarmProps: [alarmProps] } : null;
}

export function toDoc(profile: Profile, isActive: boolean): Doc & Keyed {
  return { ...profile, _id: profile.id, isActive };
}

/** The profile as answers show it: without the store's `_id`, the active flag (shown in metadata) and the revision. */
export function profileView(doc: Doc): Profile {
  const { _id, isActive: _active, _rev: _r, ...rest } = doc;
  return { ...rest, id: String(rest['id'] ?? _id) } as Profile;
}
