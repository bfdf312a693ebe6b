// What an HTML report shows, as plain data: the builder (html.ts) turns it into a page, the collectors
// (scenario-collect.ts, replay-collect.ts) fill it. Times are virtual ms since the epoch; values are
// already at their meter's declared resolution [RP-4].

export interface ReportData {
  kind: 'scenario' | 'replay';
  /** The page's title: what was run. */
  title: string;
  /** When the report was written (wall time, ms): shown, never used in a comparison. */
  writtenAt: number;
  /** Wall ms the whole run took. */
  wallMs: number;
  runs: RunData[];
}

/** One scenario, or one replayed trace. */
export interface RunData {
  /** Where the run came from (a scenario or trace file), as given. */
  file: string;
  /** The file as a link from the report's folder [RP-6]; null when it has no file. */
  href: string | null;
  name: string;
  /** null for a replay (it has none). */
  seed: number | null;
  /** Virtual time the run covers. */
  vtStart: number;
  vtEnd: number;
  /** Wall ms it took. */
  wallMs: number;
  /** A problem before the timeline (the world could not be built). */
  setupError: string | null;
  /** Lines of facts under the name (a replay's samples and final balance). */
  notes: string[];
  meters: MeterSeries[];
  marks: Mark[];
  checks: CheckMark[];
  /** Points or marks left out to keep the report bounded [RP-3]. */
  thinned: boolean;
}

export interface MeterSeries {
  id: string;
  /** Decimal places of each value as its meter declared the resolution [RP-4]. */
  places: { power: number; energy: number };
  /** Sample times (virtual ms), ascending. */
  t: number[];
  power: (number | null)[];
  energy: (number | null)[];
  /** Integer paise. */
  balance: (number | null)[];
  /** The relay's changes: [time, closed] in time order, the first its state when first seen. */
  relay: [number, boolean][];
}

export type MarkKind = 'cutoff' | 'restore' | 'recharge' | 'fault' | 'offline' | 'online' | 'relay' | 'mode';

/** Something that happened, at its virtual time, on a meter (or on all when meter is null). */
export interface Mark {
  t: number;
  kind: MarkKind;
  meter: string | null;
  text: string;
}

/** One expectation, at the virtual time it was checked. */
export interface CheckMark {
  t: number;
  /** The meters its step names: drawn on their charts (on every meter's when none). */
  meters: string[];
  step: number;
  line: number;
  label: string;
  what: string;
  ok: boolean;
  failure: string | null;
  seen: string | null;
}
