// "The line has been quiet for N ms" (HD-8.3, AS-8.2), measured only while this process was awake to
// hear it. A process held off the CPU mid-frame wakes with its quiet timer expired and the rest of the
// frame already waiting unread in the port; Node runs expired timers before it reads, so a plain
// setTimeout would flush half a frame as noise. A timer that fires late therefore waits once more (at
// most MAX_WAITS times in a row), which gives the waiting bytes their read first.

/** How late (ms past due, as a share of the quiet spell) a timer may fire and still be trusted. */
const LATE_SHARE = 0.5;
/** A process late every time still flushes in the end: memory and the splitter stay bounded. */
const MAX_WAITS = 4;

export class QuietTimer {
  readonly #ms: number;
  readonly #onQuiet: () => void;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | null = null;
  #waits = 0;

  constructor(ms: number, onQuiet: () => void, now: () => number = () => performance.now()) {
    if (!(ms > 0)) throw new TypeError(`QuietTimer: ms must be positive, got ${ms}`);
    this.#ms = ms;
    this.#onQuiet = onQuiet;
    this.#now = now;
  }

  /** A byte came: the quiet spell starts again. */
  arm(): void {
    this.#waits = 0;
    this.#start();
  }

  clear(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #start(): void {
    this.clear();
    const due = this.#now() + this.#ms;
    this.#timer = setTimeout(() => this.#fire(due), this.#ms);
  }

  #fire(due: number): void {
    this.#timer = null;
    if (this.#now() - due > this.#ms * LATE_SHARE && this.#waits < MAX_WAITS) {
      this.#waits++;
      this.#start();
      return;
    }
    this.#onQuiet();
  }
}
