/**
 * Search and read routes of the operations manager: `GET /jobs`, `GET /tasks`,
 * `GET /jobs/:id` (also written `/job/:id`) and `GET /tasks/:id`.
 */
import Joi from 'joi';
import { answer, arrayOf, jobs, joiObjectId, joiParams, parseReadOptions, parseSearch, tasks } from '../../../kernel/index.ts';
import type { AnyRoute, DocType, SearchLimits } from '../../../kernel/index.ts';
import { JOB_PART, PAGE_METADATA, TASK_PART } from './answers.ts';
import { OM_READ_ROLES, omRoute } from './route.ts';
import { pageJson } from './search-page-json.ts';
import type { SearchService } from './search-service.ts';

const SEARCH_MESSAGE = 'Successfully retrieved items';

const objectIdParam = Joi.object({
  id: joiObjectId('a job id').required(),
});
const uuidParam = Joi.object({
  id: Joi.string().guid().lowercase().required().messages({ 'string.guid': 'must be a task id (a UUID)' }),
});

export function searchRoutes(service: SearchService, limits: SearchLimits): AnyRoute[] {
  const searchRoute = (type: DocType, name: string) =>
    omRoute({
      method: 'GET',
      path: `/operations-manager/${type.name}`,
      name,
      roles: OM_READ_ROLES,
      description: `Search ${type.name} with the query-parameter search language`,
      answer: answer(arrayOf(type === jobs ? JOB_PART : TASK_PART)),
      answerMetadata: answer(PAGE_METADATA),
      input: { query: { validate: (qs) => parseSearch(type, qs, limits) } },
      async handle({ query }, ctx) {
        const page = await service.search(query, ctx.caller!);
        if ('json' in page) {
          return { json: pageJson(SEARCH_MESSAGE, page.json, page.metadata) };
        }
        return { body: { message: SEARCH_MESSAGE, data: page.docs, metadata: page.metadata } };
      },
    });

  const readRoute = (type: DocType, path: string, name: string) =>
    omRoute({
      method: 'GET',
      path,
      name,
      roles: OM_READ_ROLES,
      description: `Read one ${type.name === 'jobs' ? 'job' : 'task'} with optional projection and dereference`,
      answer: answer(type === jobs ? JOB_PART : TASK_PART),
      input: {
        params: joiParams<{ id: string }>(type === jobs ? objectIdParam : uuidParam),
        query: { validate: (qs) => parseReadOptions(type, qs, limits) },
      },
      async handle({ params, query }, ctx) {
        const doc = await service.read(type, params.id, query, ctx.caller!);
        return { body: { message: 'Successfully retrieved item', data: doc, metadata: {} } };
      },
    });

  return [
    searchRoute(jobs, 'getJobs'),
    searchRoute(tasks, 'getTasks'),
    readRoute(jobs, '/operations-manager/jobs/:id', 'getJob'),
    // The interface writes the singular form for output and shallow reads.
    readRoute(jobs, '/operations-manager/job/:id', 'getJob'),
    readRoute(tasks, '/operations-manager/tasks/:id', 'getTask'),
  ];
}
