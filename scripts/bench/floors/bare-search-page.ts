/**
 * The floor of a search page, `GET /operations-manager/jobs?<query>`: the
 * core's session lookup, the query parsed by the kernel's own parser and
 * answered by the same store file, and the same bytes out (the page, its
 * exact total and the paging figures). No visibility rules, dereferences,
 * answer checks, metrics or logging.
 */
import { jobs as jobType } from '../../../kernel/search/fields.ts';
import { parseSearch } from '../../../kernel/search/parse-search.ts';
import { openCoreStore, shown } from './store.ts';
import { liveSession, refuse, sendJson, serveFloor } from './serve.ts';

const { store, limits } = await openCoreStore();
const jobs = store.collection('jobs');

serveFloor('bare search page', (req, res) => {
  void (async () => {
    if (!(await liveSession(store, req))) return refuse(res, 401);
    const query = parseSearch(jobType, req.url!.split('?')[1] ?? '', limits);
    const page = await jobs.search(query);
    const { skip, limit } = query;
    const metadata = { skip, limit, nextPageSkip: skip + limit < page.total ? skip + limit : null, previousPageSkip: skip > 0 ? Math.max(0, skip - limit) : null, total: page.total, currentPageSize: page.docs.length };
    sendJson(res, 200, JSON.stringify({ message: 'Successfully retrieved items', data: page.docs.map((d) => shown(jobType, d)), metadata }));
  })().catch(() => refuse(res, 500));
});
