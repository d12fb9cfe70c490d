/**
 * The GitHub stand-ins running in this test process, so one shared `afterEach` can fail the test
 * whose requests broke GitHub's contract (no test has to opt in). Kept free of imports so that
 * test files that never start a stand-in pay nothing for it.
 */
/** Set by the usage-report globalSetup: where each test process appends the operations it saw. */
export const USAGE_DIR_ENV = 'GITHUB_STANDIN_USAGE_DIR';

export interface ContractSubject {
  contract: { take(): string[] };
}

export const liveStandins = new Set<ContractSubject>();

/** The contract violations not yet reported, of every live stand-in, formatted. */
export function takeContractViolations(): string[] {
  return [...liveStandins].flatMap((s) => s.contract.take());
}

export function contractFailure(violations: string[]): Error {
  return new Error(
    `The GitHub stand-in saw ${violations.length} request(s) or answer(s) GitHub's OpenAPI description does not allow:\n  ${violations.join('\n  ')}`,
  );
}
