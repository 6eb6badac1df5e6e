/**
 * The gateway manager's routes (app AGManager, admins only). The interface
 * names four operations and shows no payloads; `GET /ag-manager/actions`
 * (discoverAll) is in the real platform's route list too.
 *
 * - `GET /ag-manager/actions/:adapterId` → `{adapterId, discovered: {scripts, playbooks, modules}, tasks: [names]}`
 * - `GET /ag-manager/actions` → `{results: [that, or {adapterId, error: {status, message}}], total}`
 * - `DELETE /ag-manager/actions/:adapterId` → `{adapterId, removed, tasks}`
 * - `DELETE /ag-manager/actions` → `{results: [{adapterId, removed, tasks}], total}`
 * - `GET /ag-manager/getClusterAdapters` → `{results: [{id, type, baseUrl, instance}], total}`
 */
import Joi from 'joi';
import { answer, arrayOf, closed, INTEGER, joiParams, oneOfValues, routeHelper, STRING } from '../../../kernel/index.ts';
import type { AnswerShape, AnyRoute } from '../../../kernel/index.ts';
import type { AgManager } from './service.ts';

export const PROVENANCE = 'AGManager';
/** The application's admin role only (admins, through the `admins` group). */
const AG_MANAGER_ROLES = ['admin'];
const route = routeHelper({ provenance: PROVENANCE, shape: 'plain' });
// Adapter names are config names: anything but "/" (config/schema.ts), so spaces arrive percent-encoded.
const adapterParam = joiParams<{ adapterId: string }>(Joi.object({ adapterId: Joi.string().min(1).max(200).pattern(/^[^/]+$/).required() }));

const discovered = closed({ adapterId: STRING, discovered: closed({ scripts: INTEGER, playbooks: INTEGER, modules: INTEGER }), tasks: arrayOf(STRING) });
const failed = closed({ adapterId: STRING, error: closed({ status: INTEGER, message: STRING }) });
const removed = closed({ adapterId: STRING, removed: INTEGER, tasks: arrayOf(STRING) });
const results = (item: AnswerShape) => answer(closed({ results: arrayOf(item), total: INTEGER }));
/** The answer of the routes over every adapter: the list and its length. */
const page = <T>(list: T[]) => ({ body: { results: list, total: list.length } });
const clusterAdapter = closed({ id: STRING, type: oneOfValues('gateway'), baseUrl: STRING, instance: STRING });

export function agManagerRoutes(manager: AgManager): AnyRoute[] {
  return [
    route({
      method: 'GET',
      path: '/ag-manager/actions/:adapterId',
      name: 'discoverModules',
      roles: AG_MANAGER_ROLES,
      description: "Discover one gateway adapter's scripts, playbooks and modules as workflow tasks",
      answer: answer(discovered),
      input: { params: adapterParam },
      async handle({ params }, ctx) {
        return { body: await manager.discover(params.adapterId, ctx.logger) };
      },
    }),
    route({
      method: 'GET',
      path: '/ag-manager/actions',
      name: 'discoverAll',
      roles: AG_MANAGER_ROLES,
      description: 'Discover the actions of every enabled gateway adapter',
      answer: results({ anyOf: [discovered, failed] }),
      input: {},
      async handle(_input, ctx) {
        return page(await manager.discoverAll(ctx.logger));
      },
    }),
    route({
      method: 'DELETE',
      path: '/ag-manager/actions/:adapterId',
      name: 'undiscoverModules',
      roles: AG_MANAGER_ROLES,
      description: "Remove one gateway adapter's discovered tasks",
      answer: answer(removed),
      input: { params: adapterParam },
      async handle({ params }, ctx) {
        return { body: await manager.undiscover(params.adapterId, ctx.logger) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/ag-manager/actions',
      name: 'undiscoverAll',
      roles: AG_MANAGER_ROLES,
      description: 'Remove the discovered tasks of every gateway adapter',
      answer: results(removed),
      input: {},
      async handle(_input, ctx) {
        return page(await manager.undiscoverAll(ctx.logger));
      },
    }),
    route({
      method: 'GET',
      path: '/ag-manager/getClusterAdapters',
      name: 'getClusterAdapters',
      roles: AG_MANAGER_ROLES,
      description: 'The gateway adapters of every core instance',
      answer: results(clusterAdapter),
      input: {},
      async handle() {
        return page(await manager.clusterAdapters());
      },
    }),
  ];
}
