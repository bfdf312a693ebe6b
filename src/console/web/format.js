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
const IST_DAY = new Intl.DateTimeFormat('en-IN', {
  timeZone: 'Asia/Kolkata',
  day: '2-digit',
  month: 'short',
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

/**
 * An event's time as a list shows it [spec-decisions 192]: `18:30:01` on the (virtual) day it is now,
 * `27 Nov 18:30:01` on another, `27 Nov 2025 18:30:01` in another year: after a +1 d advance the
 * journal's days are told apart.
 */
export function eventTime(ms, now) {
  if (!ms) return '—';
  const day = istDate(ms);
  if (now && day === istDate(now)) return istTime(ms);
  const year = now && day.slice(0, 4) !== istDate(now).slice(0, 4) ? ` ${day.slice(0, 4)}` : '';
  return `${IST_DAY.format(ms)}${year} ${istTime(ms)}`;
}

/** "3 min ago", "in 5 h", "2 d ago": how far `ms` is from `now` (virtual), to the unit that matters. */
export function relative(ms, now) {
  if (!ms || !now) return '';
  const s = Math.round((now - ms) / 1000);
  const a = Math.abs(s);
  const span =
    a < 60
      ? `${a} s`
      : a < 3600
        ? `${Math.floor(a / 60)} min`
        : a < 86_400
          ? `${Math.floor(a / 3600)} h`
          : `${Math.floor(a / 86_400)} d`;
  return s >= 0 ? `${span} ago` : `in ${span}`;
}

/** A duration in seconds as a person says it: "45 min", "5 h", "1 d 3 h", "+7 d". */
export function span(seconds) {
  const s = Math.round(Math.abs(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86_400) {
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    return m && h < 10 ? `${h} h ${m} min` : `${Math.round(s / 3600)} h`;
  }
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  return h ? `${d} d ${h} h` : `${d} d`;
}

/** "12 s ago" relative to virtual now; the date and time beyond a day. */
export function ago(ms, now) {
  if (!ms) return 'never';
  if (!now) return eventTime(ms, now);
  const s = Math.round((now - ms) / 1000);
  if (s < 0) return eventTime(ms, now);
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return eventTime(ms, now);
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
