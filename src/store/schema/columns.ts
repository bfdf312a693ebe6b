// Column groups that several tables share, in both dialects alike.

/** A sample's measured values (samples and its rollups). */
export const PROPERTY_COLUMNS = `
  energy DOUBLE PRECISION,
  active_power DOUBLE PRECISION,
  voltage DOUBLE PRECISION,
  current DOUBLE PRECISION,
  power_factor DOUBLE PRECISION,
  apparent_power DOUBLE PRECISION,
  reactive_power DOUBLE PRECISION,
  balance BIGINT`;

/** The spec's five user-defined fields of spaces and devices. */
export const UDF_COLUMNS = `
  udf1 TEXT,
  udf2 TEXT,
  udf3 TEXT,
  udf4 TEXT,
  udf5 TEXT`;
