export * from './target-selection-schema.js';
export * from './keyword-search.js';
export * from './symbol-search.js';
export * from './select-targets.js';
