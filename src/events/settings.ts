// The store setting the durable events extension keeps its seq mark in (extensions/durable/seq-reserve.ts).
// Here, at the bottom, because a world snapshot's restore keeps it as it is (world/world-snapshots.ts):
// a restored world must not hand out seqs an earlier run already did.
export const SEQ_SETTING = 'events.seq_reserved';
