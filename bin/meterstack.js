#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx's ESM loader, so there is no build step
// and no stale compiled copy: `npm install` is all a newcomer needs.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
