// Never assume a port is free: when the one asked for is taken, say so and take the next free one
// (as Vite does), unless strict. Port 0 asks the OS for any free port.

export interface ListenOptions {
  strict: boolean;
  what: string;
  attempts?: number;
  log?: (level: 'info' | 'warn' | 'error', msg: string) => void;
}

export async function listenWithFallback(
  listen: (port: number) => Promise<number>,
  port: number,
  opts: ListenOptions,
): Promise<number> {
  const attempts = port === 0 || opts.strict ? 1 : (opts.attempts ?? 20);
  for (let i = 0; i < attempts; i++) {
    const candidate = port + i;
    try {
      const bound = await listen(candidate);
      if (i > 0) opts.log?.('warn', `${opts.what} port ${port} is in use, using ${bound} instead`);
      return bound;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      if (opts.strict) throw new Error(`${opts.what} port ${port} is already in use (--strict-port)`);
    }
  }
  throw new Error(`${opts.what} ports ${port}..${port + attempts - 1} are all in use`);
}
