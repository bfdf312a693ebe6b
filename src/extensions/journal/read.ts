// A journal query (GET /sim/v1/events, and the SSE stream's replay): the in-memory journal, and before
// what it still holds the durable events kept in the store (money and meter state only).

import type { MeterEvent } from '../../events/schemas.ts';
import type { DurableSource, JournalAnswer, JournalQuery } from '../../events/views.ts';
import type { Journal } from './journal.ts';

export async function readJournal(
  journal: Journal,
  durable: DurableSource | null,
  q: JournalQuery,
): Promise<JournalAnswer> {
  return q.since === undefined ? readNewest(journal, durable, q) : readAfter(journal, durable, q.since, q);
}

async function readAfter(
  journal: Journal,
  durable: DurableSource | null,
  since: number,
  q: JournalQuery,
): Promise<JournalAnswer> {
  const events: MeterEvent[] = [];
  let cursor = since;
  let durableOnlyBefore: number | null = null;
  // The store first, up to what memory holds; the journal may move on while the store answers, so
  // until the cursor has caught up with it.
  while (durable !== null && cursor < journal.oldestSeq - 1 && events.length < q.limit) {
    const upToSeq = journal.oldestSeq - 1;
    const want = q.limit - events.length;
    const rows = await durable.read({ afterSeq: cursor, upToSeq, filter: q.filter, limit: want });
    events.push(...rows);
    durableOnlyBefore = upToSeq + 1;
    cursor = rows.length === want ? rows.at(-1)!.seq : upToSeq;
  }
  if (events.length < q.limit) events.push(...journal.after(cursor, q.filter, q.limit - events.length));
  const full = events.length === q.limit;
  return {
    events,
    next_since: full ? events.at(-1)!.seq : Math.max(cursor, journal.lastSeq),
    oldest_seq: journal.oldestSeq,
    durable_only_before: durableOnlyBefore,
  };
}

async function readNewest(
  journal: Journal,
  durable: DurableSource | null,
  q: JournalQuery,
): Promise<JournalAnswer> {
  let older: MeterEvent[] = [];
  let durableOnlyBefore: number | null = null;
  // After a restart (or a wrap) memory may hold fewer than asked: the newest durable ones before it.
  if (durable !== null && journal.oldestSeq > 1 && journal.newest(q.filter, q.limit).length < q.limit) {
    const upToSeq = journal.oldestSeq - 1;
    older = await durable.read({ afterSeq: 0, upToSeq, filter: q.filter, limit: q.limit, newest: true });
    durableOnlyBefore = upToSeq + 1;
  }
  const recent = journal.newest(q.filter, q.limit);
  const oldest = recent[0]?.seq ?? Number.POSITIVE_INFINITY;
  const events = [...older.filter((e) => e.seq < oldest), ...recent].slice(-q.limit);
  return {
    events,
    next_since: journal.lastSeq,
    oldest_seq: journal.oldestSeq,
    durable_only_before: events.length > 0 && events[0]!.seq < journal.oldestSeq ? durableOnlyBefore : null,
  };
}
