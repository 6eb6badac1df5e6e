/**
 * Reads the audit collection for the report, page by page in (time, _id)
 * order. Pages continue after the last key seen rather than skipping, so
 * each page is one walk of the (time, _id) index however large the audit.
 */
import { and, repository, yieldToLoop } from '../../../kernel/index.ts';
import type { Condition, FieldDef, Store } from '../../../kernel/index.ts';
import { AUDIT, audit as auditType } from './collection.ts';
import type { Call } from './report.ts';

const PAGE = 2000;
const EARLIEST = -8.64e15;

function fieldOf(path: string): FieldDef {
  const field = auditType.fields.get(path);
  if (!field) throw new Error(`the audit doc type has no field ${path}`);
  return field;
}

const OUTCOMES = new Set(['rewritten', 'refused', 'failed']);
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** A stored record as a call; null for a document that is not one (so one bad row cannot break the report). */
export function callOfRecord(doc: Record<string, unknown>): Call | null {
  const client = (typeof doc['client'] === 'object' && doc['client'] !== null ? doc['client'] : {}) as Record<string, unknown>;
  const operation = text(doc['operation']);
  const entry = text(doc['entry']);
  const deprecated = text(doc['deprecated']);
  const removed = text(doc['removed']);
  const outcome = doc['outcome'];
  if (!operation || !entry || !deprecated || !removed || typeof outcome !== 'string' || !OUTCOMES.has(outcome)) return null;
  return {
    time: typeof doc['time'] === 'number' ? doc['time'] : null,
    operation,
    entry,
    client: { account: text(client['account']), clientId: text(client['clientId']), address: text(client['address']), userAgent: text(client['userAgent']) },
    outcome: outcome as Call['outcome'],
    deprecated,
    removed,
    replacement: text(doc['replacement']),
  };
}

/** Hands every stored call with since ≤ time < until to `onCall`; answers how many documents were unreadable. */
export async function eachStoredCall(store: Store, range: { since: number | null; until: number | null }, onCall: (call: Call) => void): Promise<{ skipped: number }> {
  const time = fieldOf('time');
  const id = fieldOf('_id');
  // Always bounded below, so a document without a numeric time never reaches the paging keys.
  const bounds: Condition[] = [{ kind: 'compare', op: 'gte', field: time, value: range.since ?? EARLIEST }];
  if (range.until !== null) bounds.push({ kind: 'compare', op: 'lt', field: time, value: range.until });
  const audit = repository(store, AUDIT);
  let after: { time: number; id: string } | null = null;
  let skipped = 0;
  for (;;) {
    const page: Condition[] = after === null ? [] : [{
      kind: 'or',
      items: [
        { kind: 'compare', op: 'gt', field: time, value: after.time },
        { kind: 'and', items: [{ kind: 'compare', op: 'eq', field: time, value: after.time }, { kind: 'compare', op: 'gt', field: id, value: after.id }] },
      ],
    }];
    // Pages without totals: counting what is left again for every page made a report of N calls count about N²/4,000 entries.
    const docs = await audit.findPage({ where: and([...bounds, ...page]), sort: [{ field: time, direction: 1 }, { field: id, direction: 1 }], skip: 0, limit: PAGE });
    for (const doc of docs) {
      const call = callOfRecord(doc);
      if (call) onCall(call);
      else skipped += 1;
    }
    if (docs.length < PAGE) return { skipped };
    const last = docs[docs.length - 1]!;
    after = { time: Number(last['time']), id: String(last['_id']) };
    // The embedded store answers at once, so without this a report over a long history held the gateway's event
    // loop for its whole length (2.1 s for 200,000 calls); one page at a time, other requests go on between pages.
    await yieldToLoop();
  }
}
