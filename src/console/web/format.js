// How values read on screen: money in ₹ with paise, times in IST, power and energy with units.

const IST = new Intl.DateTimeFormat('en-IN', {
  timeZone: 'Asia/Kolkata',
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
});
const IST_TIME = new Intl.DateTimeFormat('en-IN', {
  timeZone: 'Asia/Kolkata',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
});
const IST_DATE = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Kolkata' });
const RUPEES = new Intl.NumberFormat('en-IN', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Paise (integer) as ₹ with paise: -42 -> "-₹0.42". */
export function rupees(paise) {
  if (paise === null || paise === undefined) return '—';
  const sign = paise < 0 ? '-' : '';
  return `${sign}₹${RUPEES.format(Math.abs(paise) / 100)}`;
}

export const istDateTime = (ms) => (ms ? `${IST.format(ms)} IST` : '—');
export const istTime = (ms) => (ms ? IST_TIME.format(ms) : '—');
/** YYYY-MM-DD of the IST calendar day holding `ms`. */
export const istDate = (ms) => IST_DATE.format(ms);

export function watts(w) {
  if (w === null || w === undefined) return '—';
  return Math.abs(w) >= 1000 ? `${(w / 1000).toFixed(2)} kW` : `${Math.round(w)} W`;
}

export const kwh = (e) => (e === null || e === undefined ? '—' : `${e.toFixed(3)} kWh`);

/** "12 s ago" relative to virtual now; absolute time beyond a day. */
export function ago(ms, now) {
  if (!ms) return 'never';
  if (!now) return istTime(ms);
  const s = Math.round((now - ms) / 1000);
  if (s < 0) return istTime(ms);
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return istDateTime(ms);
}

/**
 * [MC-11.4] Which clock a meter lives on: a virtual meter on the world's; an external one on wall time,
 * its data mapped onto the world's by the offset (virtual − wall) its time was shifted by.
 */
export function clockText(kind, clock, offsetMs) {
  if (kind !== 'external') return 'virtual (the world’s clock)';
  if (clock !== 'wall') return 'the world’s clock, as it declares (MC-4.7)';
  const m = Math.round((offsetMs ?? 0) / 60_000);
  if (m === 0) return 'wall clock (the world runs on it too)';
  const h = Math.floor(Math.abs(m) / 60);
  const span = `${h > 0 ? `${h} h` : ''}${h > 0 && Math.abs(m) % 60 ? ' ' : ''}${Math.abs(m) % 60 ? `${Math.abs(m) % 60} min` : ''}`;
  return `wall clock, mapped to virtual (${m > 0 ? '+' : '−'}${span})`;
}

export const relayText = (on) => (on === null || on === undefined ? '—' : on ? 'closed' : 'open');
export const tariffText = (t) => (t === 1 ? 'EB' : t === 2 ? 'DG' : '—');
