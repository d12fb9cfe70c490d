export * from './types.js';
export * from './create-syntax-service.js';
export * from './language-for-path.js';
export * from './syntax-error.js';
export * from './line-index.js';
export { extractTagsFromTree } from './extract-tags.js';
export { codeParseProblems } from './code-parse-problems.js';
export { dataParseProblems, stripJsonComments } from './data-parse-problems.js';
export { scanJson, jsonStringValues, type JsonStringValue } from './json-scan.js';
