// Examples for the OpenAPI document, from the demo world (src/world/demo.ts): Tower A, meter MTR-A101
// (prepaid, ₹10,000 balance), tariffs at the simulator's defaults. Money is in paise (spec §1).

/**
 * The path parameters' examples in the OpenAPI document: Swagger UI's "Try it out" starts from the demo
 * world's first meter, space and account, which a fresh `npm start` has (issue 20 item 10).
 */
export const EXAMPLE_PATH = { device_id: 'MTR-A101', space_id: 1, account_id: 1 } as const;

const udfs = (udf1: string) => ({ udf1, udf2: null, udf3: null, udf4: null, udf5: null });

export const deviceSummaryExample = {
  device_id: 'MTR-A101',
  name: 'Flat A-101',
  active_mode: 'prepaid',
  ...udfs('A-101'),
};

export const spaceExample = {
  space_id: 1,
  name: 'Tower A',
  description: 'Residential tower A',
  devices: [
    deviceSummaryExample,
    { device_id: 'MTR-A102', name: 'Flat A-102', active_mode: 'postpaid', ...udfs('A-102') },
  ],
  tags: [],
  ...udfs('TWR-A'),
};

export const readingExample = {
  property_id: 'energy',
  context_type: 'cumulative',
  value: 1234.567,
  unit: 'kWh',
};

export const deviceExample = {
  device_id: 'MTR-A101',
  name: 'Flat A-101',
  description: '',
  space: { id: 1, name: 'Tower A', description: 'Residential tower A' },
  public_access: false,
  public_hash: null,
  active_mode: 'prepaid',
  balance: 1_000_000,
  has_relay: true,
  is_online: true,
  is_shared: false,
  readings: [
    readingExample,
    { property_id: 'active_power', context_type: 'instantaneous', value: 1480.2, unit: 'W' },
    { property_id: 'voltage', context_type: 'instantaneous', value: 231.45, unit: 'V' },
  ],
  tags: [],
  ...udfs('A-101'),
};

export const metricsExample = {
  device_id: 'MTR-A101',
  eb_tariff: 800,
  dg_tariff: 2000,
  active_tariff: 1,
  energy: 1234.567,
  active_power: 1480.2,
  voltage: 231.45,
  balance: 1_000_000,
  relay_state: true,
  mode: 'PREPAID',
  pg_enabled: false,
};

export const historicalReadingExample = {
  property_id: 'energy',
  value: 1210.04,
  unit: 'kWh',
  timestamp: '2026-01-14T23:59:59+05:30',
};

export const historyExample = {
  device_id: 'MTR-A101',
  from_date: '2026-01-14',
  to_date: '2026-01-15',
  readings: [
    historicalReadingExample,
    { ...historicalReadingExample, value: 1234.567, timestamp: '2026-01-15T23:59:59+05:30' },
  ],
};

export const wifiExample = { ssid: 'home-wifi', password: 'home-wifi-pass', rssi: -58, type: 'Primary' };

export const EXAMPLE_TIMESTAMP = '2026-01-15T10:30:00.000+05:30';
