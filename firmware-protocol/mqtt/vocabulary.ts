// The MQTT contract's vocabulary (CONTRACT.md): the modes and models a meter has, the commands it takes,
// the samples and state it reports and the replies it gives. The bottom of the layering: the codecs here,
// the simulator, the device twins, the stores and the API all take these names from this file.

export const MODES = ['prepaid', 'postpaid', 'measurement', 'relay_off'] as const;
export type Mode = (typeof MODES)[number];

export const MODELS = ['basic', 'full'] as const;
export type MeterModel = (typeof MODELS)[number];

/** 1 = EB (Electricity Board), 2 = DG (Diesel Generator). */
export type TariffSlot = 1 | 2;

export type MeterCommand =
  | { op: 'set_relay'; on: boolean }
  | { op: 'set_mode'; mode: Mode }
  | { op: 'set_tariff'; slot: 'eb' | 'dg'; paise: number }
  | { op: 'set_active_tariff'; tariff: TariffSlot }
  | { op: 'set_gateway'; enabled: boolean }
  | { op: 'set_wifi'; ssid: string; password: string }
  | { op: 'get_wifi' }
  | { op: 'recharge'; amount: number; transactionId: string }
  /** Live read of the present readings and state. */
  | { op: 'read' };

/** One telemetry sample. Energy in kWh (cumulative), power W, voltage V, current A, S VA, Q var. */
export interface Sample {
  ts: number;
  energy: number;
  active_power: number;
  voltage: number;
  current?: number;
  power_factor?: number;
  apparent_power?: number;
  reactive_power?: number;
  /** Integer paise at `ts`. */
  balance: number;
  /** [M-25] [MC-7.9] The register's epoch, present only when > 0. */
  register_epoch?: number;
}

export interface ReportedState {
  ts: number;
  mode: Mode;
  relay_commanded: boolean;
  relay_state: boolean;
  eb_tariff: number;
  dg_tariff: number;
  active_tariff: TariffSlot;
  balance: number;
  pg_enabled: boolean;
  wifi_type: 'Primary' | 'Secondary';
  /** [M-22] Tamper conditions active (sorted); absent: none. */
  tamper?: ('cover_open' | 'magnet')[];
  /**
   * [M-30] Present only on a meter with a prepaid policy: the lowest low-balance threshold (paise) the
   * balance is below in prepaid mode, or null.
   */
  low_balance?: number | null;
}

export type CommandReply =
  | { ok: true; data?: unknown }
  | { ok: false; error: { code: CommandErrorCode; message: string } };

export type CommandErrorCode = 'invalid_argument' | 'unsupported' | 'busy' | 'bad_request';
