/**
 * The one error the simulator throws while serving a request. Each area
 * renders it in its own form: RFC 8040 `ietf-restconf:errors` under
 * /restconf, the legacy `errors` form under /api.
 */
export class SimError extends Error {
  readonly status: number;
  readonly tag: string;
  readonly headers: Record<string, string>;

  constructor(status: number, tag: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'SimError';
    this.status = status;
    this.tag = tag;
    this.headers = headers;
  }
}

export const notFound = (what: string): SimError => new SimError(404, 'invalid-value', `uri keypath not found: ${what}`);
export const badRequest = (message: string, tag = 'invalid-value'): SimError => new SimError(400, tag, message);

/** The RFC 8040 section 7 error-tag that best fits a bare status, for injected faults. */
export function tagForStatus(status: number): string {
  switch (status) {
    case 401:
    case 403:
      return 'access-denied';
    case 405:
    case 501:
      return 'operation-not-supported';
    case 409:
      return 'resource-denied';
    case 413:
      return 'too-big';
    case 503:
      return 'resource-denied';
    default:
      return status >= 500 ? 'operation-failed' : 'invalid-value';
  }
}

/** Protocol-level tags name a fault in the request itself rather than in the data. */
export function errorType(tag: string): 'protocol' | 'application' {
  return tag === 'malformed-message' || tag === 'operation-not-supported' || tag === 'access-denied' ? 'protocol' : 'application';
}
