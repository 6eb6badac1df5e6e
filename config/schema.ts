import Joi from 'joi';

export const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface SearchConfig {
  defaultLimit: number;
  maxLimit: number;
  maxQueryLength: number;
  maxInItems: number;
  maxQDepth: number;
  maxQNodes: number;
  maxValueLength: number;
  /**
   * Largest skip + limit of a search sorted on a field without an index: the
   * store keeps that many rows in its top-N sorter while it reads every match.
   */
  maxUnindexedSortWindow: number;
  /** Exact totals kept per collection until the next write; 0 turns the cache off. */
  countCacheEntries: number;
}

export interface VaultConfig {
  url: string | null;
  token: string | null;
  tokenFile: string | null;
  endpoint: string;
  timeoutMs: number;
}

// Hand-written rather than derived from the joi schema so that other modules
// read a plain, documented type; the test suite checks both stay in step.
/** An adapter instance (docs/decisions.md D22): an orchestrator (`nso`) or an automation gateway (`gateway`). */
export interface AdapterConfig {
  /** The `adapterId` of the relay routes; may contain spaces. */
  name: string;
  type: 'nso' | 'gateway';
  baseUrl: string;
  credentials: { username: string; password: string } | { token: string } | null;
  timeoutMs: number;
  tls: { rejectUnauthorized: boolean; ca: string | null };
  enabled: boolean;
}

export interface AppConfig {
  port: number;
  /** Address the gateway listens on (docs/deployment.md, "Listen addresses"). */
  host: string;
  core: {
    port: number;
    url: string;
    /** Address the core listens on; null: every interface (`start:core`), loopback under `npm start`. */
    host: string | null;
  };
  dataDir: string;
  mongoUrl: string | null;
  platform: { release: string };
  admin: { username: string; password: string | null };
  auth: {
    logoutTime: number;
    /** Failed logins for one username before it is locked out for lockoutMinutes. */
    maxFailedLogins: number;
    /** Failed logins from one address before it is locked out for lockoutMinutes. */
    maxFailedLoginsPerAddress: number;
    lockoutMinutes: number;
    /** Lifetime of an OAuth client-credentials token, in seconds. */
    oauthTokenSeconds: number;
  };
  log: { level: LogLevel };
  http: {
    bodyLimit: string;
    /**
     * Peers (addresses or CIDR blocks) whose X-Forwarded-For, -Proto and -Host are believed
     * (docs/auth.md, "Forwarded addresses"); every other peer is the client itself.
     */
    trustedProxies: string[];
  };
  search: SearchConfig;
  vault: VaultConfig;
  gateway: {
    /** Longest the gateway waits for the core, in milliseconds. */
    timeoutMs: number;
    /** Windows before removal in which deprecated operations already answer as removed. */
    brownouts: Array<{ operations: string[]; from: string; until: string }>;
  };
  adapters: AdapterConfig[];
  workflowEngine: {
    /** Run again, on start, the automatic tasks a stopped process left running (replaces the old `activate` property). */
    processTasksOnStart: boolean;
    /** Task runs one job may make in its whole life (loops included); one more puts the job in error. */
    maxTaskRunsPerJob: number;
    /** Iteration ids a job lists per task in `tasks[key].iterations`; older ones are counted in `iterationsOmitted`. */
    maxIterationsListed: number;
    /** How deep child jobs nest (a root job is depth 0); a childJob that would go deeper puts its job in error. */
    maxChildJobDepth: number;
    /** Jobs one root job and all its descendants may number; a childJob that would start more puts its job in error. */
    maxJobsPerTree: number;
    /** Largest a job's document may grow, in bytes of JSON; a change that would make it larger puts the job in error instead. */
    maxJobBytes: number;
  };
  scheduler: {
    /** How often each core looks for due scheduled automations, in milliseconds. */
    pollMs: number;
  };
  stalls: {
    /** An event loop blocked longer than this is logged and counted as a stall (core and gateway). */
    thresholdMs: number;
  };
  metrics: {
    /** Collect Prometheus metrics and serve `GET /metrics` (docs/metrics.md). */
    enabled: boolean;
  };
  /** The embedded store (not used with mongoUrl). */
  sqlite: {
    /** How often a thread of its own checkpoints the WAL, in milliseconds; 0 leaves it to SQLite at commit, on the event loop. */
    checkpointMs: number;
  };
  /** What leaves the store for the archive, and when (docs/archive.md). */
  retention: {
    /** Days a finished job (complete, canceled) and its tasks stay after it ended; 0 keeps them for ever. */
    jobDays: number;
    /** Days a gateway audit record stays; 0 keeps them for ever. */
    auditDays: number;
    /** How often each service looks for due documents, in milliseconds. */
    pollMs: number;
    /** How long an archiver's claim lasts without renewal, in milliseconds. */
    leaseMs: number;
    /** Jobs or audit records archived per batch. */
    batchSize: number;
  };
}

// Messages never echo the offending value: after $VAULT_ resolution the value
// may be a secret, and the same schema validates it.
const port = () => Joi.number().integer().min(0).max(65535);
const count = () => Joi.number().integer().min(1);
/** An address to listen on: an IP address (0.0.0.0 and :: for every interface) or a host name. */
const listenHost = () =>
  Joi.alternatives()
    .try(Joi.string().ip({ cidr: 'forbidden' }), Joi.string().hostname())
    .messages({ 'alternatives.match': 'must be an IP address or a host name to listen on' });
const httpUrl = () =>
  Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .messages({ 'string.uri': 'must be an http:// or https:// URL', 'string.uriCustomScheme': 'must be an http:// or https:// URL' });

export const configSchema: Joi.ObjectSchema<AppConfig> = Joi.object<AppConfig>({
  port: port(),
  host: listenHost(),
  core: Joi.object({ port: port(), url: httpUrl(), host: listenHost().allow(null) }),
  dataDir: Joi.string(),
  // The driver accepts host lists ("a:1,b:2") that joi's URI rule rejects, so
  // only the scheme is checked here and the driver reports the rest.
  mongoUrl: Joi.string()
    .pattern(/^mongodb(\+srv)?:\/\/\S+$/)
    .allow(null)
    .messages({ 'string.pattern.base': 'must be a mongodb:// or mongodb+srv:// URL' }),
  platform: Joi.object({
    release: Joi.string()
      .pattern(/^\d{4}\.\d+$/)
      .messages({ 'string.pattern.base': 'must be a release like 2022.1 (year.number)' }),
  }),
  admin: Joi.object({ username: Joi.string(), password: Joi.string().allow(null) }),
  auth: Joi.object({ logoutTime: count(), maxFailedLogins: count(), maxFailedLoginsPerAddress: count(), lockoutMinutes: count(), oauthTokenSeconds: count() }),
  log: Joi.object({
    level: Joi.string()
      .valid(...LOG_LEVELS)
      .messages({ 'any.only': `must be one of ${LOG_LEVELS.join(', ')}` }),
  }),
  http: Joi.object({
    bodyLimit: Joi.string()
      .pattern(/^\d+(\.\d+)?\s*(b|kb|mb|gb)$/i)
      .messages({ 'string.pattern.base': 'must be a size like 512kb or 1mb' }),
    trustedProxies: Joi.array().items(
      Joi.string()
        .ip({ cidr: 'optional' })
        .messages({ 'string.ip': 'must be an IP address or a CIDR block such as 10.0.0.0/8', 'string.ipVersion': 'must be an IP address or a CIDR block such as 10.0.0.0/8' }),
    ),
  }),
  search: Joi.object({
    defaultLimit: count()
      .max(Joi.ref('maxLimit'))
      .messages({ 'number.max': 'must not exceed search.maxLimit' }),
    maxLimit: count(),
    maxQueryLength: count(),
    maxInItems: count(),
    maxQDepth: count(),
    maxQNodes: count(),
    maxValueLength: count(),
    maxUnindexedSortWindow: count(),
    countCacheEntries: Joi.number().integer().min(0),
  }),
  gateway: Joi.object({
    timeoutMs: count(),
    brownouts: Joi.array().items(Joi.object({ operations: Joi.array().items(Joi.string()).min(1).required(), from: Joi.string().isoDate().required(), until: Joi.string().isoDate().required() })),
  }),
  adapters: Joi.array().items(
    Joi.object({
      name: Joi.string().min(1).max(200).pattern(/^[^/]+$/).required().messages({ 'string.pattern.base': 'must not contain /' }),
      type: Joi.string().valid('nso', 'gateway').required(),
      baseUrl: httpUrl().required(),
      // Entries are written by operators, so what they may leave out is marked optional with its default.
      credentials: Joi.alternatives().try(Joi.object({ username: Joi.string().required(), password: Joi.string().required() }), Joi.object({ token: Joi.string().required() })).allow(null).optional().default(null),
      timeoutMs: count().optional().default(10000),
      tls: Joi.object({ rejectUnauthorized: Joi.boolean().optional().default(true), ca: Joi.string().allow(null).optional().default(null) }).optional().default({ rejectUnauthorized: true, ca: null }),
      enabled: Joi.boolean().optional().default(true),
    }),
  ).unique('name'),
  workflowEngine: Joi.object({ processTasksOnStart: Joi.boolean(), maxTaskRunsPerJob: count().max(10_000_000), maxIterationsListed: count().max(100_000), maxChildJobDepth: count().max(1000), maxJobsPerTree: count().max(10_000_000), maxJobBytes: Joi.number().integer().min(65_536).max(16_000_000) }),
  scheduler: Joi.object({ pollMs: Joi.number().integer().min(10).max(3_600_000) }),
  stalls: Joi.object({ thresholdMs: Joi.number().integer().min(50).max(600_000) }),
  metrics: Joi.object({ enabled: Joi.boolean() }),
  sqlite: Joi.object({ checkpointMs: Joi.number().integer().min(0).max(60_000) }),
  retention: Joi.object({
    jobDays: Joi.number().integer().min(0),
    auditDays: Joi.number().integer().min(0),
    pollMs: Joi.number().integer().min(100).max(86_400_000),
    leaseMs: Joi.number().integer().min(500).max(3_600_000),
    batchSize: Joi.number().integer().min(1).max(10_000),
  }),
  vault: Joi.object({
    url: httpUrl().allow(null),
    token: Joi.string().allow(null),
    tokenFile: Joi.string().allow(null),
    endpoint: Joi.string()
      .pattern(/^[^/].*[^/]$|^[^/]$/)
      .messages({ 'string.pattern.base': 'must be a mount path like secret/data, without leading or trailing /' }),
    timeoutMs: Joi.number().integer().min(1).max(600_000),
  }),
})
  // Every key is required: config/default.json is the single place defaults
  // live, so a missing key there is a packaging bug worth stopping for.
  .prefs({ presence: 'required' });
