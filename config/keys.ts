// Every config key, declared once: its dotted path, environment variable,
// default, rules and description. The joi schema, the defaults, ENV_VARS, the
// AppConfig type and the table in config/README.md are all made from this
// (declare.ts, schema.ts, readme.ts); after changing it, run
// `node --import tsx config/readme.ts` (test/config/readme.test.ts fails until you do).
import Joi from 'joi';
import { checkDeclaration, key } from './declare.ts';
import { LOG_LEVELS, adapterEntry, bodySize, brownoutEntry, count, httpUrl, listenHost, port, serveUntilValue, whole } from './rules.ts';
import type { AdapterConfig, Brownout, LogLevel } from './rules.ts';

const NSO_LAB: AdapterConfig = { name: 'NSO Lab 1', type: 'nso', baseUrl: 'http://127.0.0.1:8080', credentials: { username: 'admin', password: 'admin' }, timeoutMs: 10000, tls: { rejectUnauthorized: true, ca: null }, enabled: true };

export const CONFIG_KEYS = {
  port: key<number>({ env: 'PORT', default: 3000, example: 4000, schema: port(), description: 'Port of the gateway (0–65535; 0 picks a free port).' }),
  host: key<string>({
    env: 'GATEWAY_HOST', default: '0.0.0.0', example: '127.0.0.1', schema: listenHost(),
    description: 'Address the gateway listens on: an IP address (`0.0.0.0` or `::` for every interface, `127.0.0.1` for this machine only) or a host name (docs/deployment.md, "Listen addresses"). Not `HOST`, which some shells set to the machine\'s name.',
  }),
  'core.port': key<number>({ env: 'CORE_PORT', default: 3001, example: 4001, schema: port(), description: 'Port of the core service.' }),
  'core.host': key<string | null>({
    env: 'CORE_HOST', default: null, example: '127.0.0.1', schema: listenHost().allow(null),
    description: 'Address the core listens on. `null`: every interface when started alone (`npm run start:core`), loopback (`127.0.0.1`) under `npm start`, where the gateway is its front door.',
  }),
  'core.url': key<string>({
    env: 'CORE_URL', default: 'http://127.0.0.1:3001', example: 'http://core.internal:9000', schema: httpUrl(),
    description: 'Where the gateway finds its upstream: the core, or a real Itential Platform (`https://platform:3443`), with a base path when a reverse proxy serves it under one (`https://proxy/iap`); every upstream call is made under it (docs/real-platform.md). When only `core.port` is changed and `core.url` is left at its default, it follows the port (`http://127.0.0.1:<core.port>`).',
  }),
  'core.caFile': key<string | null>({
    env: 'CORE_CA_FILE', default: null, example: '/etc/iap-gateway/platform-ca.pem', schema: Joi.string().min(1).allow(null),
    description: 'PEM bundle of certificate authorities the gateway trusts for an `https` `core.url`, beside the runtime\'s default ones (a private CA in front of the platform). A file that is missing, unreadable or holds no valid certificate stops the gateway at start (docs/real-platform.md).',
  }),
  'core.tlsVerify': key<boolean>({
    env: 'CORE_TLS_VERIFY', default: true, example: false, schema: Joi.boolean(),
    description: '`false` accepts any certificate from an `https` `core.url`: anyone on the way can then read callers\' credentials. Warned about at every start; for trying things out only.',
  }),
  dataDir: key<string>({ env: 'DATA_DIR', default: './data', example: '/var/lib/iap', schema: Joi.string(), description: 'Directory of the embedded SQLite store; resolved to an absolute path against the working directory.' }),
  mongoUrl: key<string | null>({
    env: 'MONGO_URL', default: null, example: 'mongodb://db.internal:27017/iap',
    // The driver accepts host lists ("a:1,b:2") that joi's URI rule rejects, so
    // only the scheme is checked here and the driver reports the rest.
    schema: Joi.string().pattern(/^mongodb(\+srv)?:\/\/\S+$/).allow(null).messages({ 'string.pattern.base': 'must be a mongodb:// or mongodb+srv:// URL' }),
    description: '`mongodb://` or `mongodb+srv://` URL of a replica set (one member is enough; a standalone server is refused, see docs/deployment.md). `null` uses the embedded SQLite store.',
  }),
  'gateway.mongoUrl': key<string | null>({
    env: 'GATEWAY_MONGO_URL', default: null, example: 'mongodb://db.internal:27017/iap-gateway',
    schema: Joi.string().pattern(/^mongodb(\+srv)?:\/\/\S+$/).allow(null).messages({ 'string.pattern.base': 'must be a mongodb:// or mongodb+srv:// URL' }),
    description: "MongoDB URL of the gateway's own audit store (a replica set, as `mongoUrl`); `null` keeps it in `gateway.sqlite` under `dataDir`. The gateway never reads `mongoUrl`, which is the core's: in front of a real platform its audit never lands in the platform's database. Give several gateways the same one to report on all their calls; with our own core upstream it may be `mongoUrl`'s (docs/real-platform.md, \"The audit store\").",
  }),
  'platform.release': key<string>({
    env: 'PLATFORM_RELEASE', default: '2022.1', example: '2023.1',
    schema: Joi.string().pattern(/^\d{4}\.\d+$/).messages({ 'string.pattern.base': 'must be a release like 2022.1 (year.number)' }),
    description: "Release the platform claims to be (`YYYY.N`). Drives the gateway's removal schedule; reported as `YYYY.N.0` by `GET /health/server`.",
  }),
  'admin.username': key<string>({ env: 'ADMIN_USERNAME', default: 'admin', example: 'root', schema: Joi.string(), description: 'Account created on first start with an empty store.' }),
  'admin.password': key<string | null>({ env: 'ADMIN_PASSWORD', default: null, example: 'correct horse', schema: Joi.string().allow(null), description: 'Its password; `null` generates one and prints it once.' }),
  'gateway.timeoutMs': key<number>({ env: 'GATEWAY_TIMEOUT_MS', default: 30000, example: 60000, schema: count(), description: 'Longest the gateway waits for the core before answering 504 (pass-through) or the legacy error.' }),
  'gateway.upstreamPageMax': key<number>({
    env: 'GATEWAY_UPSTREAM_PAGE_MAX', default: 100, example: 25, schema: whole(1, 100_000),
    description: "Largest page (1 to 100000) the gateway asks its upstream for when a legacy read needs more records than one page (a legacy `limit` of 0, a whole list): it reads page after page, each starting where the upstream's `nextPageSkip` says or after the records it received, until the upstream's `total`. A smaller cap upstream only costs more pages; but our core refuses a `limit` above its `search.maxLimit`, so in front of it keep this at most that. The default is the page ipctl reads the platform's lists with (docs/real-platform.md).",
  }),
  'gateway.legacyMaxRecords': key<number>({
    env: 'GATEWAY_LEGACY_MAX_RECORDS', default: 10_000, example: 50_000, schema: whole(1, 10_000_000),
    description: "Most records one legacy read answers when it reads page after page (a legacy `limit` of 0 or above one page, a whole list). The legacy platform answered every match at once; the gateway holds such an answer whole, so past this many it answers the legacy error naming the count instead, and the caller pages with `skip` and `limit` or narrows the query. Each 10,000 jobs hold about 50-200 MB of the gateway's memory while the answer is built.",
  }),
  'gateway.legacyMaxMb': key<number>({
    env: 'GATEWAY_LEGACY_MAX_MB', default: 128, example: 512, schema: whole(16, 4096),
    description: "Most MiB one legacy call reads from its upstream, over every page and call it makes. A rewritten call holds what it reads until it answers, and neither a real platform nor a page of large records bounds that, so past this the gateway stops reading and answers the legacy error naming the bound; the caller pages with `skip` and `limit` or narrows the query. At least 16, so one record of the largest size a store keeps always fits.",
  }),
  'gateway.brownouts': key<Brownout[]>({
    default: [], schema: Joi.array().items(brownoutEntry()),
    description: 'Brownout windows: `[{"operations": ["cancelJob"] or ["*"], "from": ISO date, "until": ISO date}]`; inside one, a deprecated operation already answers 410 as if removed, so clients find out early.',
  }),
  'gateway.serveUntil.all': key<string | null>({
    env: 'GATEWAY_SERVE_UNTIL', default: null, example: '2024.1', schema: serveUntilValue().allow(null),
    description: "Until when the gateway keeps serving the legacy operations the schedule has removed, by rewriting them: a release (`2024.1`, compared with `platform.release`; the release calendar must date it) or an ISO date (`2024-06-30`, compared with the clock). `Sunset` shows it; from then on they answer 410. Never shortens an operation's serving. `null`: each operation's removal release (docs/gateway.md, \"Serving policy\").",
  }),
  'gateway.serveUntil.operations': key<Record<string, string>>({
    default: {}, schema: Joi.object().pattern(Joi.string(), serveUntilValue()),
    description: 'The same per operation, keyed by the mapping table\'s entry id: `{"workflow-engine.getJob": "2024.2"}`; wins over `gateway.serveUntil.all`. An unknown id, an operation name, a malformed value or one before the removal release stops the gateway at start.',
  }),
  adapters: key<AdapterConfig[]>({
    env: 'ADAPTERS', envForm: 'json', default: [], example: [NSO_LAB], schema: Joi.array().items(adapterEntry()).unique('name'),
    description: 'Adapter instances: `[{"name", "type": "nso"|"gateway", "baseUrl", "credentials": {"username", "password"} or {"token"}, "timeoutMs", "tls": {"rejectUnauthorized", "ca"}, "enabled"}]`. `name` is the relay\'s `adapterId`; secrets may be `$VAULT_<path>/<key>`.',
  }),
  'workflowEngine.processTasksOnStart': key<boolean>({
    env: 'PROCESS_TASKS_ON_START', default: true, example: false, schema: Joi.boolean(),
    description: "On start, run again the automatic tasks of running jobs that a stopped core left unfinished; `false` leaves such jobs untouched (replaces the workflow engine's old `activate` property).",
  }),
  'workflowEngine.maxTaskRunsPerJob': key<number>({
    env: 'ENGINE_MAX_TASK_RUNS_PER_JOB', default: 10000, example: 50000, schema: count().max(10_000_000),
    description: 'Task runs one job may make in its whole life, loops and retries included; the run that would exceed it does not start and the job goes to `error` with `job exceeded workflowEngine.maxTaskRunsPerJob (N)`. See `docs/lifecycle.md`.',
  }),
  'workflowEngine.maxIterationsListed': key<number>({
    env: 'ENGINE_MAX_ITERATIONS_LISTED', default: 100, example: 20, schema: count().max(100_000),
    description: "Iteration ids a job lists per task in `tasks[key].iterations` (the latest ones); older ones are counted in `tasks[key].iterationsOmitted`, and their task documents stay searchable. Keeps a looping job's document small.",
  }),
  'workflowEngine.maxChildJobDepth': key<number>({
    env: 'ENGINE_MAX_CHILD_JOB_DEPTH', default: 16, example: 4, schema: count().max(1000),
    description: 'How deep child jobs nest (a root job is depth 0, its children depth 1); a `childJob` that would start a deeper one puts its job in `error` with `job exceeded workflowEngine.maxChildJobDepth (N)`. Stops recursion without a base case.',
  }),
  'workflowEngine.maxJobsPerTree': key<number>({
    env: 'ENGINE_MAX_JOBS_PER_TREE', default: 10000, example: 500, schema: count().max(10_000_000),
    description: 'Jobs a root job and all its descendants may number (the root included); a `childJob` that would start more starts none and puts its job in `error` with `job exceeded workflowEngine.maxJobsPerTree (N)`. Stops recursion that fans out (each job starting several copies of itself), which the depth alone would let grow to millions of jobs.',
  }),
  'workflowEngine.maxJobBytes': key<number>({
    env: 'ENGINE_MAX_JOB_BYTES', default: 8388608, example: 1048576, schema: whole(65_536, 16_000_000),
    description: "Largest a job's document may grow, in bytes of JSON (65536 to 16000000; MongoDB refuses documents over 16 MB). A change that would make it larger (variables grown by a loop, a huge task output) is not committed: the job, as it was, goes to `error` with `job exceeded workflowEngine.maxJobBytes (N)`, and its running tasks with it.",
  }),
  'scheduler.pollMs': key<number>({
    env: 'SCHEDULER_POLL_MS', default: 5000, example: 1000, schema: whole(10, 3_600_000),
    description: 'How often, in milliseconds (10 to 3600000), each core looks for due automation-catalog schedules. Cores sharing a store claim each due automation atomically, so it runs once.',
  }),
  'stalls.thresholdMs': key<number>({
    env: 'STALL_THRESHOLD_MS', default: 200, example: 500, schema: whole(50, 600_000),
    description: 'The core and the gateway each log a warning, `event loop stalled for N ms during <method> <path>`, with the request id, when their event loop is blocked longer than this many milliseconds (50 to 600000), and count it. See `RELIABILITY.md`, "Stalls: the sandbox and the detector".',
  }),
  'metrics.enabled': key<boolean>({
    env: 'METRICS_ENABLED', default: true, example: false, schema: Joi.boolean(),
    description: 'Collect Prometheus metrics and serve `GET /metrics` on both services (docs/metrics.md); `false` serves it as 404 and costs nothing on the request path.',
  }),
  'sqlite.checkpointMs': key<number>({
    env: 'SQLITE_CHECKPOINT_MS', default: 50, example: 0, schema: whole(0, 60_000),
    description: "The embedded store's WAL is checkpointed (its pages copied back into `iap.sqlite`, then fsynced) by a thread of its own with its own connection, this often (0 to 60000 ms), so no commit on the event loop runs a checkpoint; the WAL stays bounded by what is written between two checkpoints. `0` leaves checkpoints to SQLite, inside the commit that fills the WAL past 1,000 pages (docs/archive.md, \"How small the batches are\"). The gateway's `gateway.sqlite` is checkpointed by its audit writer thread either way (docs/audit.md).",
  }),
  'sqlite.searchThread': key<boolean>({
    env: 'SQLITE_SEARCH_THREAD', default: true, example: false, schema: Joi.boolean(),
    description: "Callers' job and task searches on the embedded store run on a thread of their own with its own read-only connection, so a search that reads every row (a sort on a field without an index) holds up other searches, not the core's requests, job starts or `/health/live` (docs/search.md, \"Searches off the event loop\"). Past 64 searches waiting for it, the next is answered 503. `false` runs them on the event loop.",
  }),
  'retention.jobDays': key<number>({
    env: 'RETENTION_JOB_DAYS', default: 0, example: 30, schema: whole(0),
    description: 'Days a finished job (`complete`, `canceled`) and its tasks stay in the store after it ended; then the core archives them to `DATA_DIR/archive/` (docs/archive.md). `0` keeps everything.',
  }),
  'retention.auditDays': key<number>({ env: 'RETENTION_AUDIT_DAYS', default: 0, example: 365, schema: whole(0), description: 'Days a gateway audit record stays in the store; then the gateway archives it. `0` keeps everything.' }),
  'retention.pollMs': key<number>({ env: 'RETENTION_POLL_MS', default: 60000, example: 300000, schema: whole(100, 86_400_000), description: 'How often (100 to 86400000 ms) the core and the gateway look for documents due for the archive.' }),
  'retention.leaseMs': key<number>({
    env: 'RETENTION_LEASE_MS', default: 60000, example: 120000, schema: whole(500, 3_600_000),
    description: "How long an archiver's claim on its group lasts without renewal; a killed archiver's work is taken up after it (500 to 3600000 ms).",
  }),
  'retention.batchSize': key<number>({ env: 'RETENTION_BATCH_SIZE', default: 100, example: 500, schema: whole(1, 10_000), description: 'Jobs (with their tasks) or audit records archived per batch (1 to 10000); smaller batches hold the event loop for less.' }),
  'auth.logoutTime': key<number>({ env: 'AUTH_LOGOUT_TIME', default: 60, example: 480, schema: count(), description: 'Minutes of inactivity after which a token expires (integer ≥ 1).' }),
  'auth.maxFailedLogins': key<number>({ env: 'AUTH_MAX_FAILED_LOGINS', default: 5, example: 10, schema: count(), description: 'Failed logins for one username (known or not) before it is locked out.' }),
  'auth.maxFailedLoginsPerAddress': key<number>({ env: 'AUTH_MAX_FAILED_LOGINS_PER_ADDRESS', default: 20, example: 50, schema: count(), description: 'Failed logins from one client address before it is locked out.' }),
  'auth.lockoutMinutes': key<number>({ env: 'AUTH_LOCKOUT_MINUTES', default: 15, example: 30, schema: count(), description: 'How long a lockout lasts, and the window in which failures are counted.' }),
  'auth.oauthTokenSeconds': key<number>({ env: 'AUTH_OAUTH_TOKEN_SECONDS', default: 3600, example: 900, schema: count(), description: 'Lifetime of a client-credentials token (`expires_in`).' }),
  'log.level': key<LogLevel>({
    env: 'LOG_LEVEL', default: 'info', example: 'debug', schema: Joi.string().valid(...LOG_LEVELS).messages({ 'any.only': `must be one of ${LOG_LEVELS.join(', ')}` }),
    description: `One of ${LOG_LEVELS.map((l) => `\`${l}\``).join(', ')}.`,
  }),
  'http.bodyLimit': key<string>({
    env: 'HTTP_BODY_LIMIT', default: '1mb', example: '10mb', schema: bodySize(),
    description: 'Largest accepted request body (`512kb`, `1mb`, `2gb`, …; a kb is 1024 bytes). Read once, at start, into `http.bodyLimitBytes`, the number every body reader of both services uses.',
  }),
  'http.trustedProxies': key<string[]>({
    env: 'TRUSTED_PROXIES', envForm: 'list', default: ['127.0.0.1', '::1'], example: ['10.0.0.1', '10.1.0.0/16'],
    schema: Joi.array().items(
      Joi.string()
        .ip({ cidr: 'optional' })
        .messages({ 'string.ip': 'must be an IP address or a CIDR block such as 10.0.0.0/8', 'string.ipVersion': 'must be an IP address or a CIDR block such as 10.0.0.0/8' }),
    ),
    description: 'Peers, as addresses or CIDR blocks (`10.0.0.1`, `10.1.0.0/16`, `fd00::/8`), whose `X-Forwarded-For`, `-Proto` and `-Host` each service believes; any other peer is the client itself. The default trusts this machine, so the core believes the gateway of `npm start`; name a gateway or load balancer on another host here, and `[]` trusts no one. See docs/auth.md, "Forwarded addresses".',
  }),
  'search.defaultLimit': key<number>({
    env: 'SEARCH_DEFAULT_LIMIT', default: 100, example: 50, schema: count().max(Joi.ref('maxLimit')).messages({ 'number.max': 'must not exceed search.maxLimit' }),
    description: 'Page size when a search gives no `limit`; may not exceed `search.maxLimit`.',
  }),
  'search.maxLimit': key<number>({
    env: 'SEARCH_MAX_LIMIT', default: 1000, example: 5000, schema: count(),
    description: 'Largest accepted `limit`, of the job and task searches and of every list (accounts, groups, roles, workflows, transformations, catalogs, automations, triggers). The gateway pages its legacy reads by its own `gateway.upstreamPageMax` instead.',
  }),
  'search.maxQueryLength': key<number>({ env: 'SEARCH_MAX_QUERY_LENGTH', default: 16384, example: 32768, schema: count(), description: 'Longest accepted query string (characters).' }),
  'search.maxInItems': key<number>({ env: 'SEARCH_MAX_IN_ITEMS', default: 1000, example: 500, schema: count(), description: 'Most values in one `in` / `not-in` list.' }),
  'search.maxQDepth': key<number>({ env: 'SEARCH_MAX_Q_DEPTH', default: 8, example: 4, schema: count(), description: 'Deepest nesting of `and` / `or` / `not` in `q`.' }),
  'search.maxQNodes': key<number>({ env: 'SEARCH_MAX_Q_NODES', default: 200, example: 100, schema: count(), description: 'Most conditions in one `q`.' }),
  'search.maxValueLength': key<number>({ env: 'SEARCH_MAX_VALUE_LENGTH', default: 1024, example: 4096, schema: count(), description: 'Longest single filter value (characters).' }),
  'search.maxUnindexedSortWindow': key<number>({
    env: 'SEARCH_MAX_UNINDEXED_SORT_WINDOW', default: 10000, example: 50000, schema: count(),
    description: 'Largest `skip + limit` of a search sorted on a field that has no index: such a sort reads every match and keeps that many rows in memory (see `docs/search.md`).',
  }),
  'search.maxPageMb': key<number>({
    env: 'SEARCH_MAX_PAGE_MB', default: 64, example: 256, schema: whole(16, 4096),
    description: 'Most MiB of documents, as stored, one page of a search or list may carry. A page of 1,000 jobs of 8 MB each would be an 8 GB answer; past this the page is refused (400 naming `limit`, with how many would fit) before a document is read. At least 16, so one document of the largest size a store keeps always fits.',
  }),
  'search.maxDereferenceMb': key<number>({
    env: 'SEARCH_MAX_DEREFERENCE_MB', default: 64, example: 256, schema: whole(1, 4096),
    description: 'Most MiB of jobs `dereference=job` may copy into one page of tasks. Each task carries its whole job, so a page of 1,000 tasks of one 1 MB job would be a 1 GB answer, built on the core\'s event loop; past this the search is refused (400) and the caller asks for fewer tasks.',
  }),
  'search.maxDereferenceTasks': key<number>({
    env: 'SEARCH_MAX_DEREFERENCE_TASKS', default: 10_000, example: 50_000, schema: whole(1, 1_000_000),
    description: 'Most task runs `dereference=tasks` may read into one page of jobs (a job keeps up to 10,000); past this the search is refused (400) and the caller asks for fewer jobs.',
  }),
  'search.countCacheEntries': key<number>({
    env: 'SEARCH_COUNT_CACHE_ENTRIES', default: 1000, example: 0, schema: whole(0),
    description: "Search totals the embedded store keeps per collection until the next write to it (its own, or another process's commit); `0` turns the cache off. Totals stay exact either way. Totals the value counters answer (status, name, start-time ranges: docs/search.md, \"How totals are computed\") do not go through it.",
  }),
  'vault.url': key<string | null>({ env: 'VAULT_ADDR', default: null, example: 'https://vault.example:8200', schema: httpUrl().allow(null), description: 'HashiCorp Vault address, e.g. `https://vault.example:8200`.' }),
  'vault.token': key<string | null>({ env: 'VAULT_TOKEN', default: null, example: 'hvs.example', schema: Joi.string().allow(null), description: 'Vault token.' }),
  'vault.tokenFile': key<string | null>({
    env: 'VAULT_TOKEN_FILE', default: null, example: '/run/secrets/vault-token', schema: Joi.string().allow(null),
    description: 'File holding the token (e.g. written by a Vault agent); used when `vault.token` is `null`.',
  }),
  'vault.endpoint': key<string>({
    env: 'VAULT_ENDPOINT', default: 'secret/data', example: 'kv/data',
    schema: Joi.string().pattern(/^[^/].*[^/]$|^[^/]$/).messages({ 'string.pattern.base': 'must be a mount path like secret/data, without leading or trailing /' }),
    description: 'KV v2 mount followed by `data`.',
  }),
  'vault.timeoutMs': key<number>({ env: 'VAULT_TIMEOUT_MS', default: 5000, example: 10000, schema: whole(1, 600_000), description: 'Time limit of one Vault request.' }),
};

checkDeclaration(CONFIG_KEYS);
