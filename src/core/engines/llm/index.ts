export * from '../../budget/budget.js';
export * from '../../budget/cost.js';
export * from './llm-engine-error.js';
export * from './llm-tool.js';
export * from './recorded-exchange.js';
export * from './llm-phase-types.js';
export * from './run-llm-phase.js';
export * from '../../text/untrusted-content.js';
