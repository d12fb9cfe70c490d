import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alarmsTemplate } from '../../../scripts/alarms-template.js';

describe('infra/alarms.yml', () => {
  it('is what scripts/gen-alarms.ts writes from the code (run `node --import tsx scripts/gen-alarms.ts`)', () => {
    expect(readFileSync(join(import.meta.dirname, '../../../infra/alarms.yml'), 'utf8')).toBe(alarmsTemplate());
  });
});
