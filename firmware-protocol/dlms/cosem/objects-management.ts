// The management objects [CO-5]: associations, SAP assignment, logical device name, clock, name plate;
// and the control objects: disconnect control [CO-8] and the prepayment objects [CO-9].

import { attr, col, data, method, object, profile } from './define.ts';
import { OBIS } from './obis.ts';
import type { CosemObject } from './types.ts';

/** [CO-5.1] Association LN (class 15, version 1): the current one, and one per client SAP. */
function association(obis: string, name: string, visible: 'public-read' | 'public-only' | 'reader-read') {
  return object('associationLn', obis, name, visible, [
    attr(2, 'object_list', 'array', visible),
    attr(3, 'associated_partners_id', 'structure', visible),
    attr(4, 'application_context_name', 'octet-string', visible),
    attr(5, 'xDLMS_context_info', 'structure', visible),
    attr(6, 'authentication_mechanism_name', 'octet-string', visible),
    // [CO-5.1] The LLS secret is neither read nor written over DLMS (it is the meter's configuration).
    attr(7, 'secret', 'octet-string', 'hidden'),
    attr(8, 'association_status', 'enum', visible),
    // [CO-5.1] No security setup object (no HLS, no ciphering): nothing to reference, so nobody reads it.
    attr(9, 'security_setup_reference', 'octet-string', 'hidden'),
  ]);
}

export const MANAGEMENT: CosemObject[] = [
  association(OBIS.associationCurrent, 'Association LN (current)', 'public-read'),
  association(OBIS.associationPublic, 'Association LN (public client, SAP 16)', 'public-only'),
  association(OBIS.associationReader, 'Association LN (meter reader, SAP 32)', 'reader-read'),
  // [CO-5.2] SAP assignment (class 17): one logical device, the management device at SAP 1.
  object('sapAssignment', OBIS.sapAssignment, 'SAP assignment', 'public-read', [
    attr(2, 'SAP_assignment_list', 'array', 'public-read'),
  ]),
  // [CO-5.3] Logical device name: 16 octets, FLAG id then serial.
  data(OBIS.logicalDeviceName, 'Logical device name', 'octet-string', 'public-read'),
  // [CO-5.5] Clock (class 8): read by both; set by nobody (the meter keeps the world's time).
  object(
    'clock',
    OBIS.clock,
    'Clock',
    'public-read',
    [
      attr(2, 'time', 'octet-string', 'public-read'),
      attr(3, 'time_zone', 'long', 'reader-read'),
      attr(4, 'status', 'unsigned', 'reader-read'),
      attr(5, 'daylight_savings_begin', 'octet-string', 'reader-read'),
      attr(6, 'daylight_savings_end', 'octet-string', 'reader-read'),
      attr(7, 'daylight_savings_deviation', 'integer', 'reader-read'),
      attr(8, 'daylight_savings_enabled', 'boolean', 'reader-read'),
      attr(9, 'clock_base', 'enum', 'reader-read'),
    ],
    [
      method(1, 'adjust_to_quarter', 'integer', 'none'),
      method(2, 'adjust_to_measuring_period', 'integer', 'none'),
      method(3, 'adjust_to_minute', 'integer', 'none'),
      method(4, 'adjust_to_preset_time', 'structure', 'none'),
      method(5, 'preset_adjusting_time', 'structure', 'none'),
      method(6, 'shift_time', 'long', 'none'),
    ],
  ),
  // [CO-5.4] Name plate.
  data(OBIS.serialNumber, 'Meter serial number', 'visible-string', 'public-read'),
  data(OBIS.manufacturer, 'Manufacturer name', 'visible-string', 'public-read'),
  data(OBIS.firmwareVersion, 'Firmware version', 'visible-string', 'public-read'),
  data(OBIS.meterType, 'Meter type', 'unsigned', 'public-read'),
  profile(
    OBIS.namePlate,
    'Name plate details',
    [
      col(1, OBIS.serialNumber),
      col(1, OBIS.manufacturer),
      col(1, OBIS.firmwareVersion),
      col(1, OBIS.meterType),
    ],
    0,
    'public-read',
  ),
];

/** [CO-8.1] Disconnect control (class 70): the relay. */
export const DISCONNECT: CosemObject = object(
  'disconnectControl',
  OBIS.disconnectControl,
  'Disconnect control',
  'reader-read',
  [
    attr(2, 'output_state', 'boolean', 'reader-read'),
    attr(3, 'control_state', 'enum', 'reader-read'),
    attr(4, 'control_mode', 'enum', 'reader-read'),
  ],
  [method(1, 'remote_disconnect', 'integer', 'reader'), method(2, 'remote_reconnect', 'integer', 'reader')],
);

/** [CO-9] Prepayment: Account (111), Credit (112), and meterstack's Data objects for mode and tariffs. */
export const PREPAID: CosemObject[] = [
  object(
    'account',
    OBIS.account,
    'Account',
    'reader-read',
    [
      attr(2, 'account_mode_and_status', 'structure', 'reader-read'),
      attr(3, 'current_credit_in_use', 'unsigned', 'reader-read'),
      attr(4, 'current_credit_status', 'bit-string', 'reader-read'),
      attr(5, 'available_credit', 'double-long', 'reader-read'),
      attr(6, 'amount_to_clear', 'double-long', 'reader-read'),
      attr(7, 'clearance_threshold', 'double-long', 'reader-read'),
      attr(8, 'aggregated_debt', 'double-long', 'reader-read'),
      attr(9, 'credit_reference_list', 'array', 'reader-read'),
      attr(10, 'charge_reference_list', 'array', 'reader-read'),
      attr(15, 'currency', 'structure', 'reader-read'),
    ],
    [
      method(1, 'activate_account', 'integer', 'none'),
      method(2, 'close_account', 'integer', 'none'),
      method(3, 'reset_account', 'integer', 'none'),
    ],
  ),
  object(
    'credit',
    OBIS.credit,
    'Credit (import credit)',
    'reader-read',
    [
      attr(2, 'current_credit_amount', 'double-long', 'reader-read'),
      attr(3, 'type', 'enum', 'reader-read'),
      attr(4, 'priority', 'unsigned', 'reader-read'),
      attr(5, 'warning_threshold', 'double-long', 'reader-read'),
      attr(6, 'limit', 'double-long', 'reader-read'),
      attr(7, 'credit_configuration', 'bit-string', 'reader-read'),
      attr(8, 'status', 'enum', 'reader-read'),
    ],
    // [CO-9.3] update_amount adds paise: a recharge.
    [
      method(1, 'update_amount', 'double-long', 'reader'),
      method(2, 'set_amount_to_value', 'double-long', 'none'),
      method(3, 'invoke_credit', 'unsigned', 'none'),
    ],
  ),
  data(OBIS.balanceIndia, 'Current balance amount (paise)', 'double-long'),
  data(OBIS.balanceTimeIndia, 'Current balance time', 'octet-string'),
  data(OBIS.mode, 'meterstack mode', 'enum', 'reader-write'),
  data(OBIS.ebTariff, 'meterstack EB tariff (paise/kWh)', 'double-long-unsigned', 'reader-write'),
  data(OBIS.dgTariff, 'meterstack DG tariff (paise/kWh)', 'double-long-unsigned', 'reader-write'),
  data(OBIS.activeTariff, 'meterstack active tariff (1 EB, 2 DG)', 'unsigned', 'reader-write'),
  data(OBIS.paymentGateway, 'meterstack payment gateway enabled', 'boolean', 'reader-read'),
];
