/**
 * Regenerate infra/alarms.yml from the code's lists:
 *   node --import tsx scripts/gen-alarms.ts
 * test/unit/deploy/alarms-drift.test.ts fails when the file is out of date.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { alarmsTemplate } from './alarms-template.js';

const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'infra', 'alarms.yml');
writeFileSync(target, alarmsTemplate());
console.log('wrote infra/alarms.yml');
