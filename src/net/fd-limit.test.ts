// issue 8 item 6: the connection caps fit under the open-files limit.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/service.ts';
import { fitCaps, openFilesLimit, RESERVED_FDS } from './fd-limit.ts';

describe('open-files limit (issue 8 item 6)', () => {
  it('reads the soft limit from a /proc/self/limits file, null when unknown', () => {
    const tmp = tempDir();
    try {
      const file = join(tmp.dir, 'limits');
      writeFileSync(
        file,
        'Limit                     Soft Limit           Hard Limit           Units     \n' +
          'Max open files            1024                 524288               files     \n',
      );
      expect(openFilesLimit(file)).toBe(1024);
      writeFileSync(file, 'Max open files            unlimited            unlimited            files\n');
      expect(openFilesLimit(file)).toBeNull();
      expect(openFilesLimit(join(tmp.dir, 'absent'))).toBeNull();
    } finally {
      tmp.remove();
    }
    if (process.platform === 'linux') expect(openFilesLimit()).toBeGreaterThan(0);
  });

  it('[issue 8 item 6] lowers the caps so that MQTT + HTTP + a reserve fit under the limit', () => {
    const asked = { http: 1024, mqtt: 20_000 };
    expect(fitCaps(asked, 1024 * 1024)).toEqual(asked);
    expect(fitCaps(asked, null)).toEqual(asked);
    expect(fitCaps(asked, 20_000)).toEqual({ http: 1024, mqtt: 20_000 - 1024 - RESERVED_FDS });
    // ulimit -n 1024: both still work.
    expect(fitCaps(asked, 1024)).toEqual({ http: 120, mqtt: 1024 - RESERVED_FDS - 120 });
    expect(fitCaps({ http: 50, mqtt: 20_000 }, 1024)).toEqual({ http: 50, mqtt: 1024 - RESERVED_FDS - 50 });
  });
});
