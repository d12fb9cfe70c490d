import { afterEach } from 'vitest';
import { contractFailure, takeContractViolations } from './live-standins.js';

// A setup file (vitest.config.ts): every test that talks to a GitHub stand-in is checked
// against GitHub's OpenAPI description, and the test whose requests broke it fails.
afterEach(() => {
  const violations = takeContractViolations();
  if (violations.length > 0) throw contractFailure(violations);
});
