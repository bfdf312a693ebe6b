import { UDF_COLUMNS } from './columns.ts';
import type { SchemaMigration } from './dialect.ts';

export const v1: SchemaMigration = {
  version: 1,
  name: 'accounts, keys, spaces, devices',
  sql: (d) => `
CREATE TABLE accounts (
  id ${d.id},
  name TEXT NOT NULL,
  created_at BIGINT NOT NULL
);

-- key_hash: sha256 hex of the key. Keys are 32-byte random tokens, so a fast hash is enough (no brute force
-- over such a space); the key itself is never stored.
CREATE TABLE api_keys (
  key_hash TEXT PRIMARY KEY,
  account_id ${d.ref} NOT NULL REFERENCES accounts (id),
  created_at BIGINT NOT NULL,
  expires_at BIGINT,
  revoked_at BIGINT
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE spaces (
  id ${d.id},
  account_id ${d.ref} NOT NULL REFERENCES accounts (id),
  name TEXT NOT NULL,
  description TEXT NOT NULL,${UDF_COLUMNS},
  -- Target of devices' (space_id, account_id) key: a device can only be in a space of its own account.
  UNIQUE (id, account_id)
);
CREATE INDEX spaces_account ON spaces (account_id);

-- pk is the stable internal key; device_id changes when a meter is replaced.
CREATE TABLE devices (
  pk ${d.id},
  device_id TEXT NOT NULL UNIQUE,
  account_id ${d.ref} NOT NULL REFERENCES accounts (id),
  space_id ${d.ref},
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  model TEXT NOT NULL CHECK (model IN ('basic', 'full')),
  kind TEXT NOT NULL CHECK (kind IN ('virtual', 'external')),
  public_access BOOLEAN NOT NULL DEFAULT FALSE,
  public_hash TEXT,
  is_shared BOOLEAN NOT NULL DEFAULT FALSE,
  mqtt_secret_hash TEXT NOT NULL,${UDF_COLUMNS},
  created_at BIGINT NOT NULL,
  FOREIGN KEY (space_id, account_id) REFERENCES spaces (id, account_id)
);
CREATE INDEX devices_account ON devices (account_id);
CREATE INDEX devices_space ON devices (space_id);
`,
};
