/**
 * The upstream's keep-alive agents, with the idle limit set once per socket.
 *
 * Node's own per-call timeout (`timeout` on the agent or the request) costs
 * every call on a kept-alive socket two timer changes: the socket's timer is
 * cleared as the answer ends and set again as the socket goes back to the
 * pool, each making a new timer and a bound function (lib/_http_client.js
 * `responseKeepAlive`, lib/_http_agent.js `keepSocketAlive`). Here each socket
 * gets its idle limit when it is made and keeps it for its life: reads and
 * writes refresh it, a call on the socket hears its `timeout` as its own (the
 * pass-through answers 504), and a socket idle in the pool that long is closed
 * by the agent's own listener, as before. A server's shorter `Keep-Alive:
 * timeout=N` hint still shortens a socket's limit, as Node does.
 */
import type { Agent as HttpAgent } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** What Node leaves under a server's announced keep-alive time, so the client closes first (lib/_http_agent.js). */
const HINT_MARGIN_MS = 1000;

/** Node's name for the call a socket is serving; stable since its first releases, and what keep-alive libraries read. */
type PooledSocket = Socket & { _httpMessage?: { emit(event: 'timeout'): boolean; res?: { headers: Record<string, string | string[] | undefined> } | null } | null };

function limited(socket: Duplex | null | undefined, idleMs: number): Duplex | null | undefined {
  const s = socket as PooledSocket | null | undefined;
  if (s) {
    s.setTimeout(idleMs);
    s.on('timeout', onIdle);
  }
  return socket;
}

/** A call on the socket times out as with Node's per-call timeout; a free socket is closed by the agent. */
function onIdle(this: PooledSocket): void {
  this._httpMessage?.emit('timeout');
}

/**
 * Node's keepSocketAlive without its timer changes: the limit is the socket's
 * own, shortened only by a server's hint, and a hint too short to reuse the
 * socket safely closes it.
 */
function keep(socket: Duplex, keepAliveMsecs: number): boolean {
  const s = socket as PooledSocket;
  s.setKeepAlive(true, keepAliveMsecs);
  s.unref();
  const hint = s._httpMessage?.res?.headers['keep-alive'];
  const seconds = typeof hint === 'string' ? /^timeout=(\d+)/.exec(hint)?.[1] : undefined;
  if (seconds === undefined) return true;
  const hinted = Number(seconds) * 1000 - HINT_MARGIN_MS;
  if (hinted <= 0) return false;
  if (s.timeout === undefined || hinted < s.timeout) s.setTimeout(hinted);
  return true;
}

/**
 * Gives `agent` the idle limit of this file: `createConnection` and
 * `keepSocketAlive`, the two methods Node documents for an agent to replace,
 * are replaced on the instance, so one function serves the http and the
 * https agent alike.
 */
export function idleLimited<A extends HttpAgent>(agent: A, idleMs: number, keepAliveMs: number): A {
  const base: HttpAgent = agent;
  const make = base.createConnection.bind(agent);
  base.createConnection = (options, callback) => limited(make(options, callback), idleMs);
  base.keepSocketAlive = (socket) => keep(socket, keepAliveMs);
  return agent;
}
