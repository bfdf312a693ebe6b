// Small shared hooks: re-render on live data changes (once per animation frame at most).

import { useEffect, useState } from 'preact/hooks';
import { subscribe } from './live.js';

/** The live data's version: a component using it re-renders when the data changed. */
export function useLive() {
  const [version, setVersion] = useState(0);
  useEffect(() => subscribe(setVersion), []);
  return version;
}

/** Runs `f` every `ms` while mounted (and once at once). */
export function useEvery(ms, f, deps = []) {
  useEffect(() => {
    f();
    const t = setInterval(f, ms);
    return () => clearInterval(t);
  }, deps);
}
