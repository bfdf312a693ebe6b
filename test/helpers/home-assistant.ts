// Home Assistant's MQTT discovery payloads as zod schemas, written from HA's documentation of each
// platform used (home-assistant.io/integrations/{sensor,binary_sensor,switch,select}.mqtt and the MQTT
// integration's discovery section): the options each platform takes (strict: an option HA does not know
// is an error), the required ones, and the sensor rules HA checks (enum takes options and no unit or
// state class; energy takes an energy unit and a total state class; monetary an ISO 4217 code). Abbreviated
// keys (`stat_t`) are valid in HA too but meterstack sends the long ones, so only those are listed.

import { z } from 'zod';

/** [discovery] `<prefix>/<component>/[<node_id>/]<object_id>/config`, ids of [a-zA-Z0-9_-]. */
export const DISCOVERY_TOPIC =
  /^(.+)\/(sensor|binary_sensor|switch|select)\/([a-zA-Z0-9_-]+)\/([a-zA-Z0-9_-]+)\/config$/;

const topic = z
  .string()
  .min(1)
  .refine((t) => !t.includes('+') && !t.includes('#'), 'a topic, no wildcards');
const template = z.string().min(1);

const availability = z
  .object({
    topic,
    payload_available: z.string().optional(),
    payload_not_available: z.string().optional(),
    value_template: template.optional(),
  })
  .strict();

const device = z
  .object({
    configuration_url: z.string().optional(),
    connections: z.array(z.tuple([z.string(), z.string()])).optional(),
    hw_version: z.string().optional(),
    identifiers: z.union([z.string(), z.array(z.string()).min(1)]),
    manufacturer: z.string().optional(),
    model: z.string().optional(),
    model_id: z.string().optional(),
    name: z.string().optional(),
    serial_number: z.string().optional(),
    suggested_area: z.string().optional(),
    sw_version: z.string().optional(),
    via_device: z.string().optional(),
  })
  .strict();

const origin = z
  .object({ name: z.string().min(1), sw_version: z.string().optional(), support_url: z.string().optional() })
  .strict();

/** Options every MQTT entity platform takes. */
const entity = {
  availability: z.array(availability).min(1).optional(),
  availability_mode: z.enum(['all', 'any', 'latest']).optional(),
  availability_template: template.optional(),
  availability_topic: topic.optional(),
  payload_available: z.string().optional(),
  payload_not_available: z.string().optional(),
  // The device registry only takes an entity with a unique_id.
  device: device.optional(),
  default_entity_id: z.string().optional(),
  enabled_by_default: z.boolean().optional(),
  encoding: z.string().optional(),
  entity_category: z.enum(['config', 'diagnostic']).optional(),
  entity_picture: z.string().optional(),
  icon: z.string().optional(),
  json_attributes_template: template.optional(),
  json_attributes_topic: topic.optional(),
  name: z.string().nullable().optional(),
  origin: origin.optional(),
  qos: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
  unique_id: z.string().min(1).optional(),
};

function commonRules(
  c: { availability?: unknown; availability_topic?: unknown; device?: unknown; unique_id?: unknown },
  ctx: z.RefinementCtx,
) {
  if (c.availability !== undefined && c.availability_topic !== undefined)
    ctx.addIssue({
      code: 'custom',
      message: 'availability and availability_topic must not be used together',
    });
  if (c.device !== undefined && c.unique_id === undefined)
    ctx.addIssue({ code: 'custom', message: 'device needs unique_id' });
}

const SENSOR_UNITS: Record<string, readonly string[]> = {
  power: ['mW', 'W', 'kW', 'MW', 'GW', 'TW', 'BTU/h'],
  energy: ['J', 'kJ', 'MJ', 'GJ', 'mWh', 'Wh', 'kWh', 'MWh', 'GWh', 'TWh', 'cal', 'kcal', 'Mcal', 'Gcal'],
  voltage: ['V', 'mV', 'µV', 'kV', 'MV'],
  current: ['A', 'mA'],
};

export const SensorConfig = z
  .object({
    ...entity,
    state_topic: topic,
    device_class: z.string().optional(),
    expire_after: z.int().positive().optional(),
    force_update: z.boolean().optional(),
    last_reset_value_template: template.optional(),
    options: z.array(z.string()).min(1).optional(),
    suggested_display_precision: z.int().nonnegative().optional(),
    state_class: z.enum(['measurement', 'measurement_angle', 'total', 'total_increasing']).optional(),
    unit_of_measurement: z.string().optional(),
    value_template: template.optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    commonRules(c, ctx);
    const issue = (message: string) => ctx.addIssue({ code: 'custom', message });
    if (c.device_class === 'enum') {
      if (!c.options) issue('an enum sensor needs options');
      if (c.unit_of_measurement !== undefined) issue('an enum sensor has no unit');
      if (c.state_class !== undefined) issue('an enum sensor has no state_class');
    } else if (c.options !== undefined) issue('options only with device_class enum');
    const units = c.device_class ? SENSOR_UNITS[c.device_class] : undefined;
    if (units && !units.includes(c.unit_of_measurement ?? ''))
      issue(`${c.device_class}: unit ${c.unit_of_measurement} is not one of ${units.join(', ')}`);
    if (c.device_class === 'energy' && c.state_class !== 'total' && c.state_class !== 'total_increasing')
      issue('energy takes state_class total or total_increasing');
    if (c.device_class === 'monetary') {
      if (!/^[A-Z]{3}$/.test(c.unit_of_measurement ?? '')) issue('monetary: the unit is an ISO 4217 code');
      if (c.state_class !== undefined && c.state_class !== 'total')
        issue('monetary: state_class total or none');
    }
  });

export const BinarySensorConfig = z
  .object({
    ...entity,
    state_topic: topic,
    device_class: z.string().optional(),
    expire_after: z.int().positive().optional(),
    force_update: z.boolean().optional(),
    off_delay: z.int().positive().optional(),
    payload_off: z.string().optional(),
    payload_on: z.string().optional(),
    value_template: template.optional(),
  })
  .strict()
  .superRefine(commonRules);

export const SwitchConfig = z
  .object({
    ...entity,
    command_topic: topic,
    command_template: template.optional(),
    device_class: z.enum(['outlet', 'switch']).optional(),
    optimistic: z.boolean().optional(),
    payload_off: z.string().optional(),
    payload_on: z.string().optional(),
    retain: z.boolean().optional(),
    state_off: z.string().optional(),
    state_on: z.string().optional(),
    state_topic: topic.optional(),
    value_template: template.optional(),
  })
  .strict()
  .superRefine(commonRules);

export const SelectConfig = z
  .object({
    ...entity,
    command_topic: topic,
    command_template: template.optional(),
    optimistic: z.boolean().optional(),
    options: z.array(z.string()).min(1),
    retain: z.boolean().optional(),
    state_topic: topic.optional(),
    value_template: template.optional(),
  })
  .strict()
  .superRefine(commonRules);

export const PLATFORM_SCHEMAS = {
  sensor: SensorConfig,
  binary_sensor: BinarySensorConfig,
  switch: SwitchConfig,
  select: SelectConfig,
} as const;

/** meterstack's per-meter state topic (HA-4), what the value templates read. */
export const HaStatePayload = z
  .object({
    power: z.number().nullable(),
    energy: z.number().nonnegative().nullable(),
    voltage: z.number().nonnegative().nullable(),
    current: z.number().nonnegative().nullable(),
    balance: z.number().nullable(),
    mode: z.enum(['prepaid', 'postpaid', 'measurement', 'relay_off']).nullable(),
    tariff: z.enum(['EB', 'DG']).nullable(),
    relay: z.enum(['ON', 'OFF']).nullable(),
    online: z.boolean(),
  })
  .strict();

/** The `value_json.<key>` fields a template reads. */
export function templateKeys(template: string): string[] {
  return [...template.matchAll(/value_json\.([a-z_]+)/g)].map((m) => m[1]!);
}
