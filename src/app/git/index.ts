export * from './guarded-http.js';
export * from './http-repo-source.js';
export * from './local-repo-source.js';
export * from './repo-identity.js';
