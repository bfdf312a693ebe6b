import type { DialectName, SchemaMigration } from './dialect.ts';

/**
 * The ledger refuses UPDATE and DELETE (PostgreSQL: TRUNCATE too), in each dialect's trigger language.
 * A SQLite restore or reset drops the triggers inside its transaction and makes them again from here.
 */
export const APPEND_ONLY: Record<DialectName, string> = {
  sqlite: `
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;
`,
  postgres: `
CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger is append-only';
END $$;
CREATE TRIGGER ledger_no_update BEFORE UPDATE OR DELETE ON ledger
  FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON ledger
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();
`,
};

export const v3: SchemaMigration = {
  version: 3,
  name: 'ledger, snapshots, settings',
  sql: (d) => `
-- Append-only money ledger, amounts in integer paise. transaction_id is unique across the store
-- (NULLs do not collide, in SQLite and PostgreSQL alike).
CREATE TABLE ledger (
  seq ${d.seq},
  device_pk ${d.ref} NOT NULL REFERENCES devices (pk),
  kind TEXT NOT NULL CHECK (kind IN ('opening', 'recharge', 'adjustment')),
  amount BIGINT NOT NULL,
  transaction_id TEXT UNIQUE,
  created_at BIGINT NOT NULL
);
CREATE INDEX ledger_device_seq ON ledger (device_pk, seq);${APPEND_ONLY[d.name]}
CREATE TABLE meter_snapshots (
  device_pk ${d.ref} PRIMARY KEY REFERENCES devices (pk),
  state TEXT NOT NULL,
  ledger_seq BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`,
};
