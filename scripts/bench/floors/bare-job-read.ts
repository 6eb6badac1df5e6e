/**
 * The floor of `GET /operations-manager/jobs/:id`: the core's session lookup
 * for the bearer token, one read of the job by id from the same store file,
 * and the same bytes out. Nothing else.
 */
import { jobs as jobType } from '../../../kernel/search/fields.ts';
import { openCoreStore, shown } from './store.ts';
import { liveSession, refuse, sendJson, serveFloor } from './serve.ts';

const { store } = await openCoreStore();
const jobs = store.collection('jobs');
const PREFIX = '/operations-manager/jobs/';

serveFloor('bare job read', (req, res) => {
  void (async () => {
    if (!(await liveSession(store, req))) return refuse(res, 401);
    const job = req.url!.startsWith(PREFIX) ? await jobs.findById(decodeURIComponent(req.url!.slice(PREFIX.length))) : null;
    if (job === null) return refuse(res, 404);
    sendJson(res, 200, JSON.stringify({ message: 'Successfully retrieved item', data: shown(jobType, job), metadata: {} }));
  })().catch(() => refuse(res, 500));
});
