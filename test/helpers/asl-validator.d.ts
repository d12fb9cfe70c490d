/** asl-validator (v4) ships no types: the one call the tests make. */
declare module 'asl-validator' {
  interface AslValidationError {
    'Error code': string;
    Message: string;
    path?: string;
  }
  export default function validator(
    definition: Record<string, unknown>,
    options?: { checkPaths?: boolean; checkArn?: boolean },
  ): { isValid: boolean; errors: AslValidationError[]; errorsText: (separator?: string) => string };
}
