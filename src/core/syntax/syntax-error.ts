import { AgentError } from '../errors.js';

export const SYNTAX_REASONS = ['RUNTIME_LOAD_FAILED', 'GRAMMAR_LOAD_FAILED', 'PARSE_FAILED', 'TAG_QUERY_INVALID'] as const;
export type SyntaxReason = (typeof SYNTAX_REASONS)[number];

/** Tree-sitter could not be started, a grammar could not be loaded or does not fit its tag query, or a parse returned nothing. */
export class SyntaxServiceError extends AgentError<SyntaxReason> {}
