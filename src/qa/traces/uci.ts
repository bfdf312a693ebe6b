// The UCI "Individual household electric power consumption" data set (one-minute averages of a real
// household; fixtures/README.md says where it comes from) as a column profile of the CSV reader. Its wall-clock times
// are read as Asia/Kolkata; powers are in kW; `?` marks a minute that was not measured (skipped).

import { type CsvProfile, readCsvTrace } from './csv.ts';
import type { Trace } from './types.ts';

export const UCI_HEADER =
  'datetime,global_active_power_kw,global_reactive_power_kw,voltage_v,global_intensity_a';

export const UCI_PROFILE: CsvProfile = {
  format: 'uci',
  missing: '?',
  columns: {
    datetime: { kind: 'ts' },
    global_active_power_kw: { kind: 'power', shift: 6 },
    // The data set calls it reactive "power" in kW; as a meter reading it is var.
    global_reactive_power_kw: { kind: 'number', field: 'reactive_power', scale: 1000 },
    voltage_v: { kind: 'number', field: 'voltage', scale: 1 },
    global_intensity_a: { kind: 'number', field: 'current', scale: 1 },
  },
};

export function isUciHeader(firstLine: string): boolean {
  return firstLine.trim().replace(/\s/g, '') === UCI_HEADER;
}

export function readUciTrace(file: string, text: string): Trace {
  return readCsvTrace(file, text, UCI_PROFILE);
}
