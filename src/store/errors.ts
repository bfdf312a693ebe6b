// Errors a Store throws that callers are expected to handle. Anything else is a bug or an I/O failure.

/** A write would break a uniqueness rule (a transaction id of another device, a taken device_id, a repeated API key). */
export class StoreConflictError extends Error {
  override readonly name = 'StoreConflictError';

  constructor(
    message: string,
    /** What collided, e.g. 'transaction_id', 'device_id', 'api_key'. */
    readonly field: string,
  ) {
    super(message);
  }
}

/** The database could not be opened; the message names the file and the reason (issue 8 item 20). */
export class StoreOpenError extends Error {
  override readonly name = 'StoreOpenError';

  constructor(
    message: string,
    /** The database file as given. */
    readonly path: string,
  ) {
    super(message);
  }
}

/** A file offered as a world snapshot is not one of ours, or not of this build's schema (spec-decisions 110). */
export class SnapshotFileError extends Error {
  override readonly name = 'SnapshotFileError';
}
