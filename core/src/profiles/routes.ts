/**
 * `/profiles` routes (provenance Profiles, plain surface), as the real
 * platform names and answers them; docs/profiles.md has every shape. Writes
 * answer `{status: "OK", message, data?}`. A single-object `alarmProps`
 * accepted before 2022.1 adds an HTTP `Warning` header to the answer.
 */
import Joi from 'joi';
import { answer, arrayOf, BOOLEAN, closed, INTEGER, joiBody, joiParams, oneOfValues, open, routeHelper, STRING } from '../../../kernel/index.ts';
import type { AnyRoute, RouteContext } from '../../../kernel/index.ts';
import { PROFILE_ID, profileSchema } from './document.ts';
import type { ProfileService, Written } from './service.ts';

export const PROVENANCE = 'Profiles';
const PROFILE_READ_ROLES = ['admin', 'apiread', 'support'];
const PROFILE_WRITE_ROLES = ['admin'];
const route = routeHelper({ provenance: PROVENANCE, shape: 'plain' });
/** A profile's properties are the operator's configuration: only its id and the common texts are typed. */
const PROFILE = open({ id: STRING, description: STRING, type: STRING }, ['id']);
const ENTRY = closed({ metadata: closed({ isActive: BOOLEAN, activeSync: BOOLEAN }), profile: PROFILE });
const written = answer(closed({ status: oneOfValues('OK'), message: STRING, data: PROFILE }));

type IdParams = { id: string };
type Properties = { properties: Record<string, unknown> };

const idParam = joiParams<IdParams>(Joi.object({ id: Joi.string().min(1).max(200).pattern(PROFILE_ID).required() }));
const propertiesBody = joiBody<Properties>(Joi.object({ properties: profileSchema.required() }));
// An exported profile imports as it is; `{properties: {...}}` as in create is read too.
const importBody = joiBody<Properties | Record<string, unknown>>(Joi.alternatives().try(Joi.object({ properties: profileSchema.required() }), profileSchema.min(1)));

/**
 * A write's answer, `{status, message, data}` with the profile written, and the service's deprecation
 * warning, if any, as the HTTP Warning of RFC 9111 (code 299, "miscellaneous persistent warning").
 */
function wrote(ctx: RouteContext, result: Written, message: string): { body: { status: 'OK'; message: string; data: unknown } } {
  if (result.warning) ctx.koa.set('Warning', `299 - ${JSON.stringify(result.warning)}`);
  return { body: { status: 'OK', message, data: result.profile } };
}

export function profileRoutes(profiles: ProfileService): AnyRoute[] {
  return [
    route({
      method: 'GET',
      path: '/profiles',
      name: 'getProfiles',
      roles: PROFILE_READ_ROLES,
      description: 'Every profile as {results: [{metadata: {isActive, activeSync}, profile}], total}',
      answer: answer(closed({ results: arrayOf(ENTRY), total: INTEGER })),
      input: {},
      async handle() {
        return { body: await profiles.list() };
      },
    }),
    route({
      method: 'POST',
      path: '/profiles/import',
      name: 'importProfile',
      roles: PROFILE_WRITE_ROLES,
      description: 'Add a profile from an exported one (bare, or as {properties}); answers {status, message, data}',
      answer: written,
      input: { body: importBody },
      async handle({ body }, ctx) {
        const wrapped = body['properties'] !== undefined && Object.keys(body).length === 1;
        const written = await profiles.create((wrapped ? body['properties'] : body) as Record<string, unknown>, wrapped ? 'body.properties' : 'body');
        return wrote(ctx, written, `Profile ${written.profile.id} imported`);
      },
    }),
    route({
      method: 'POST',
      path: '/profiles',
      name: 'createProfile',
      roles: PROFILE_WRITE_ROLES,
      description: 'Create a profile from {properties: {id, ...}}; answers {status, message, data}',
      answer: written,
      input: { body: propertiesBody },
      async handle({ body }, ctx) {
        const written = await profiles.create(body.properties, 'body.properties');
        return wrote(ctx, written, `Profile ${written.profile.id} created`);
      },
    }),
    route({
      method: 'GET',
      path: '/profiles/:id/export',
      name: 'exportProfile',
      roles: PROFILE_READ_ROLES,
      description: 'One profile, bare, in the form import takes',
      answer: answer(PROFILE),
      input: { params: idParam },
      async handle({ params }) {
        return { body: await profiles.export(params.id) };
      },
    }),
    route({
      method: 'GET',
      path: '/profiles/:id',
      name: 'getProfile',
      roles: PROFILE_READ_ROLES,
      description: 'One profile as {metadata: {isActive, activeSync}, profile}',
      answer: answer(ENTRY),
      input: { params: idParam },
      async handle({ params }) {
        return { body: await profiles.get(params.id) };
      },
    }),
    route({
      method: 'PUT',
      path: '/profiles/:id',
      name: 'updateProfile',
      roles: PROFILE_WRITE_ROLES,
      description: 'Replace the sections given in {properties}; answers {status, message, data}',
      answer: written,
      input: { params: idParam, body: propertiesBody },
      async handle({ params, body }, ctx) {
        return wrote(ctx, await profiles.update(params.id, body.properties), `Profile ${params.id} updated`);
      },
    }),
    route({
      method: 'DELETE',
      path: '/profiles/:id',
      name: 'deleteProfile',
      roles: PROFILE_WRITE_ROLES,
      description: 'Delete a profile other than the active one; answers {status, message, data}',
      answer: written,
      input: { params: idParam },
      async handle({ params }) {
        const deleted = await profiles.delete(params.id);
        return { body: { status: 'OK', message: `Profile ${params.id} deleted`, data: deleted } };
      },
    }),
    route({
      method: 'PUT',
      path: '/profiles/:id/active',
      name: 'switchActiveProfile',
      roles: PROFILE_WRITE_ROLES,
      description: 'Make this profile the active one; answers {status, message}',
      answer: answer(closed({ status: oneOfValues('OK'), message: STRING })),
      input: { params: idParam },
      async handle({ params }) {
        await profiles.activate(params.id);
        return { body: { status: 'OK', message: `Profile ${params.id} is now the active profile` } };
      },
    }),
  ];
}
