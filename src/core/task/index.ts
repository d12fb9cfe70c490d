export * from './fenced-blocks.js';
export * from './parse-task.js';
export * from './recipe-steps.js';
export * from './search-terms.js';
export * from './slash-command.js';
export * from './task-contract.js';
export * from './task-error.js';
export * from './task-json-schema.js';
