import { PROPERTY_COLUMNS } from './columns.ts';
import type { Dialect, SchemaMigration } from './dialect.ts';

/** A rollup: per device and bucket, a copy of one sample. */
const rollup = (d: Dialect, table: string) => `CREATE TABLE ${table} (
  device_pk ${d.ref} NOT NULL,
  bucket_start BIGINT NOT NULL,
  ts BIGINT NOT NULL,${PROPERTY_COLUMNS},
  PRIMARY KEY (device_pk, bucket_start)
)${d.clustered};`;

export const v2: SchemaMigration = {
  version: 2,
  name: 'samples and rollups',
  sql: (d) => `
-- One row per (device, ts); a repeated delivery is ignored (ON CONFLICT DO NOTHING).
-- WITHOUT ROWID (SQLite-only): the table is stored as its primary-key B-tree, so a device's samples are
-- contiguous and in time order.
CREATE TABLE samples (
  device_pk ${d.ref} NOT NULL REFERENCES devices (pk),
  ts BIGINT NOT NULL,${PROPERTY_COLUMNS},
  PRIMARY KEY (device_pk, ts)
)${d.clustered};

-- Rollups: per device and IST-aligned bucket, a copy of the sample with the greatest ts in the bucket.
-- Written in the same transaction as samples; derived data, so no foreign key of their own.
-- 15-minute buckets nest in 30 m, 60 m and IST days (+05:30 is a multiple of 15 min), so samples_15m
-- answers 15/30/60-minute history and samples_1d answers daily history.
${rollup(d, 'samples_15m')}

${rollup(d, 'samples_1d')}
`,
};
