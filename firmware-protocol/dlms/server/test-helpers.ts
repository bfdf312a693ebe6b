// A meter view and a few request builders for the server's tests (not shipped code).

import type { MeterModel, Sample } from '../../mqtt/vocabulary.ts';
import { associationRequest } from '../apdu/aarq.ts';
import { type Apdu, encodeApdu } from '../apdu/apdu.ts';
import { ZERO_COUNTERS } from '../cosem/values.ts';
import { NEW_SESSION, type ServeResult, type Session, serve } from './server.ts';
import { DEFAULT_SERVER_CONFIG, type MeterView, type ServerConfig } from './view.ts';

/** 2026-11-26 13:30:00 IST, the worked example of APDU.md AX-5. */
export const NOW = Date.UTC(2026, 10, 26, 8, 0, 0);

/** Two hours of samples a minute apart ending at NOW, 1 kW: 1/60 kWh a minute. */
export function history(minutes = 120): Sample[] {
  const out: Sample[] = [];
  for (let i = minutes; i >= 0; i--) {
    const k = minutes - i;
    out.push({
      ts: NOW - i * 60_000,
      energy: Number((100 + k / 60).toFixed(3)),
      active_power: 1000,
      voltage: 230 + (k % 3),
      balance: 50_000 - k,
    });
  }
  return out;
}

export function view(over: Partial<MeterView> = {}, hasRelay = true, model: MeterModel = 'full'): MeterView {
  const h = over.history ?? history();
  return {
    now: NOW,
    snapshot: {
      sample: h[h.length - 1]!,
      state: {
        ts: NOW - 3_600_000,
        mode: 'prepaid',
        relay_commanded: true,
        relay_state: true,
        eb_tariff: 800,
        dg_tariff: 2000,
        active_tariff: 1,
        balance: 60_000,
        pg_enabled: false,
        wifi_type: 'Primary',
      },
      info: { device_id: 'MTR-1', firmware: 'fw-1.2', has_relay: hasRelay, model, serial: 'SN0001' },
      counters: { ...ZERO_COUNTERS, apparentEnergyVah: 13_000, billingCount: 2 },
    },
    history: h,
    vahAtStart: 11_000,
    historyLimit: 1440,
    ...over,
  };
}

export const hex = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase();
export const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/\s+/g, ''), 'hex'));

export const CONFIG: ServerConfig = { ...DEFAULT_SERVER_CONFIG };

/** A session associated as the public client (16) or the meter reader (32). */
export function associated(who: 'public' | 'reader', maxPdu = 1200, v = view()): Session {
  const aarq = associationRequest(
    who === 'reader'
      ? { password: CONFIG.readerPassword, maxReceivePduSize: maxPdu }
      : { maxReceivePduSize: maxPdu },
  );
  const r = serve(CONFIG, NEW_SESSION, who === 'reader' ? 32 : 16, encodeApdu(aarq), v);
  if (r.kind !== 'reply' || r.session.association === null) throw new Error('association refused');
  return r.session;
}

export function ask(
  s: Session,
  request: Apdu | Uint8Array,
  v = view(),
  sap = s.association?.clientSap ?? 16,
  config: ServerConfig = CONFIG,
): ServeResult {
  return serve(config, s, sap, request instanceof Uint8Array ? request : encodeApdu(request), v);
}
