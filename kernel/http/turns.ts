/**
 * Starts at most `perTurn` requests per turn of the event loop; the rest wait
 * in arrival order for the next turns. Node 20's libuv accepts one new
 * connection per turn (libuv#3696), and a turn otherwise runs every request
 * that arrived in it: with a thousand requests in flight a turn took about a
 * second, so a new connection (a client, or the gateway growing its pool to
 * the core) waited that long per connection ahead of it in the kernel's
 * queue, and requests already written on it timed out (RELIABILITY.md,
 * load). Short turns keep accepting while busy. Under light load nothing
 * waits: requests start at once, as before.
 *
 * The count of requests started is reset only when one has had to wait: a
 * turn scheduled for every request that started would make the loop poll
 * once more for each, an idle `epoll_wait` per two requests at saturation.
 * So at most `perTurn` requests start in a row before the loop gets its turn,
 * whether they came in one turn or several.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export function takeTurns(handle: Handler, perTurn: number): Handler {
  const waiting: Array<[IncomingMessage, ServerResponse]> = [];
  let startedThisTurn = 0;
  let scheduled = false;

  const nextTurn = (): void => {
    scheduled = false;
    startedThisTurn = 0;
    while (waiting.length > 0 && startedThisTurn < perTurn) {
      const [req, res] = waiting.shift()!;
      startedThisTurn += 1;
      handle(req, res);
    }
    // An immediate set from an immediate runs in the next turn, after that turn polls for I/O.
    if (waiting.length > 0) schedule();
  };
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(nextTurn);
  };

  return (req, res) => {
    if (waiting.length === 0 && startedThisTurn < perTurn) {
      startedThisTurn += 1;
      handle(req, res);
    } else {
      waiting.push([req, res]);
      schedule();
    }
  };
}
