// The twins' side of register continuity (register-continuity.ts): each device's continuity held in
// memory, judged per message, and made durable BEFORE the samples it applies to. So a restart finds
// either the old continuity and the old samples, or the new continuity (with or without the samples):
// never new samples under an old offset, which would count the old register twice.

import type { SamplePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import {
  FIRST_REGISTER,
  type JoinedVerdicts,
  judgeJoined,
  needsJoin,
  type RegisterContinuity,
} from './register-continuity.ts';
import type { Log } from './types.ts';

export interface RegisterJoinsOptions {
  /** Makes a device's continuity durable; unset: nothing is stored (a mirror, issue 11 §4). */
  save?: (deviceId: string, register: RegisterContinuity) => Promise<void>;
  log?: Log;
}

export class RegisterJoins {
  readonly #opts: RegisterJoinsOptions;
  readonly #held = new Map<string, RegisterContinuity>();
  readonly #saving = new Map<string, Promise<void>>();
  readonly #unsaved = new Set<string>();

  constructor(opts: RegisterJoinsOptions) {
    this.#opts = opts;
  }

  restore(deviceId: string, register: RegisterContinuity): void {
    this.#held.set(deviceId, register);
  }

  /** A meter reset or a world restored: its series starts again (the store's row went with it). */
  forget(deviceId?: string): void {
    if (deviceId === undefined) {
      this.#held.clear();
      this.#unsaved.clear();
    } else {
      this.#held.delete(deviceId);
      this.#unsaved.delete(deviceId);
    }
  }

  held(deviceId: string): RegisterContinuity {
    return this.#held.get(deviceId) ?? FIRST_REGISTER;
  }

  /**
   * The verdicts on a message joined into the device's series, or null when it needs no joining (the
   * common case: the caller judges it as it is). A changed continuity is taken and saved at once.
   */
  judge(
    deviceId: string,
    samples: readonly SamplePayload[],
    newest: SamplePayload | null,
    maxKwh: number | undefined,
    now: number,
  ): JoinedVerdicts | null {
    const held = this.held(deviceId);
    if (!needsJoin(samples, held, maxKwh)) return null;
    const verdict = judgeJoined(samples, newest, held, maxKwh, now);
    if (verdict.register !== held) {
      this.#held.set(deviceId, verdict.register);
      this.#save(deviceId);
    } else if (this.#unsaved.has(deviceId)) this.#save(deviceId);
    return verdict;
  }

  /** What the device's samples must wait for before they are stored (its continuity's save), or null. */
  durable(deviceId: string): Promise<void> | null {
    return this.#saving.get(deviceId) ?? null;
  }

  #save(deviceId: string): void {
    const save = this.#opts.save;
    if (!save) return;
    this.#unsaved.add(deviceId);
    const before = this.#saving.get(deviceId) ?? Promise.resolve();
    const p: Promise<void> = before
      .catch(() => undefined)
      .then(() => save(deviceId, this.held(deviceId)))
      .then(
        () => {
          if (this.#saving.get(deviceId) === p) {
            this.#saving.delete(deviceId);
            this.#unsaved.delete(deviceId);
          }
        },
        (err: Error) => {
          // Its samples are not stored either (they wait on this); the next message saves it again.
          if (this.#saving.get(deviceId) === p) this.#saving.delete(deviceId);
          this.#opts.log?.(
            'error',
            `twins: saving the register continuity of ${deviceId} failed: ${err.message}`,
          );
          throw err;
        },
      );
    this.#saving.set(deviceId, p);
    p.catch(() => undefined); // handled by whoever waits on it; never an unhandled rejection
  }
}
